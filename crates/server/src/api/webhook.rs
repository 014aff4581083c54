//! TradingView alert webhooks: each user has one secret URL (`/api/webhook/<secret>/`),
//! shown once when it is made and replaceable at any time. An alert POSTed there becomes that
//! user's signal, through their signal worker, as if the ratings had produced it.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use serde_json::json;
use signaldesk_core::alert::{parse_alert, AlertBody, AlertError, ParsedAlert};
use signaldesk_engine::signal_worker::Alert;
use signaldesk_store::AuditAction;
use utoipa::ToSchema;

use crate::api::rfc3339;
use crate::app::{now_ms, AppState};
use crate::audit_log::Audit;
use crate::auth::{secrets, AuthUser};
use crate::error::{ApiError, ApiPath, ApiResult, ErrorBody, FieldErrors};
use crate::rate_limit::client_ip;

#[derive(Serialize, ToSchema)]
pub struct WebhookStatus {
    /// Whether the user has a webhook URL.
    pub configured: bool,
    /// When the current URL was made.
    pub created_at: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct NewWebhook {
    /// The URL path to give TradingView, after this server's public address. Shown only now.
    pub path: String,
    pub created_at: String,
}

/// Whether the user has a webhook URL (the URL itself is never shown again).
#[utoipa::path(get, path = "/api/webhook/", tag = "webhook",
    responses((status = 200, body = WebhookStatus), (status = 401, body = ErrorBody)))]
pub async fn status(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<WebhookStatus>> {
    let created_at = state.store.webhook_created_at(auth.id()).await?;
    Ok(Json(WebhookStatus {
        configured: created_at.is_some(),
        created_at: created_at.map(rfc3339),
    }))
}

/// Makes a new webhook URL; the previous one stops working at once.
#[utoipa::path(post, path = "/api/webhook/", tag = "webhook",
    responses((status = 201, body = NewWebhook), (status = 401, body = ErrorBody)))]
pub async fn regenerate(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
) -> ApiResult<(StatusCode, Json<NewWebhook>)> {
    let secret = secrets::new_secret();
    let now = now_ms();
    let had_one = state.store.webhook_created_at(auth.id()).await?.is_some();
    state
        .store
        .set_webhook_secret(auth.id(), &secrets::digest(&secret), now)
        .await?;
    let action = if had_one {
        AuditAction::WebhookUrlRotated
    } else {
        AuditAction::WebhookUrlCreated
    };
    audit.record(Some(auth.id()), action, json!({})).await;
    Ok((
        StatusCode::CREATED,
        Json(NewWebhook {
            path: format!("/api/webhook/{secret}/"),
            created_at: rfc3339(now),
        }),
    ))
}

/// Removes the webhook URL.
#[utoipa::path(delete, path = "/api/webhook/", tag = "webhook",
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn delete(State(state): State<AppState>, auth: AuthUser) -> ApiResult<StatusCode> {
    if state.store.delete_webhook_secret(auth.id()).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

#[derive(Serialize, ToSchema)]
pub struct AlertAccepted {
    pub symbol: String,
    pub signal: &'static str,
}

/// Receives an alert. The body is read as JSON whatever its content type, since TradingView
/// sends `text/plain` for some messages.
#[utoipa::path(post, path = "/api/webhook/{secret}/", tag = "webhook",
    params(("secret" = String, Path)), request_body = AlertBody,
    responses((status = 202, body = AlertAccepted), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
              (status = 429, body = ErrorBody)))]
pub async fn receive(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: axum::http::HeaderMap,
    ApiPath(secret): ApiPath<String>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<AlertAccepted>)> {
    let Some(user_id) = state.store.webhook_user(&secrets::digest(&secret)).await? else {
        // Unknown URLs count against the caller's address, so guessing is slow as well as
        // hopeless. Only unknown URLs are slowed this way: a valid secret is limited by its
        // user's alert rate alone, so nobody can block a user's alerts by failing from the
        // same address (TradingView's senders are shared by every user).
        let client = client_ip(peer.ip(), &headers, &state.config.trusted_proxies);
        state.limits.webhook_unknown(client).await?;
        return Err(ApiError::new(StatusCode::NOT_FOUND, "Unknown webhook URL."));
    };
    state.limits.webhook_alert(user_id).await?;
    let ParsedAlert { symbol, rating } = read_alert(&body)?;
    // The symbol must trade on the user's own market: Bybit's list for a Bybit account.
    let market = state.engine.market_of(user_id).await?;
    if !market.lists(&symbol).await? {
        return Err(field_error(
            "symbol",
            format!("{symbol} is not one of the symbols this account's market trades."),
        ));
    }
    let alert = Alert {
        symbol: symbol.clone(),
        rating,
        received_at: now_ms(),
    };
    state
        .engine
        .supervisor()
        .submit_alert(user_id, alert)
        .await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(AlertAccepted {
            symbol,
            signal: rating,
        }),
    ))
}

fn field_error(field: &str, message: impl Into<String>) -> ApiError {
    let mut fields = FieldErrors::new();
    fields.insert(field.to_string(), vec![message.into()]);
    ApiError::validation(fields)
}

/// The alert's symbol and rating level, or the 400 answer that says what is wrong.
fn read_alert(body: &[u8]) -> ApiResult<ParsedAlert> {
    parse_alert(body).map_err(|e| match e {
        AlertError::NotAnAlert => ApiError::bad_request(AlertError::NOT_AN_ALERT),
        AlertError::Field { field, message } => field_error(field, message),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_alerts_are_bad_requests_naming_the_field() {
        for bad in [
            "not json",
            r#"{"symbol":"BTC/USDT"}"#,
            r#"{"symbol":"BTCUSDT","signal":1}"#,
        ] {
            let err = read_alert(bad.as_bytes()).unwrap_err();
            assert_eq!(err.status, StatusCode::BAD_REQUEST, "{bad}");
        }
        assert_eq!(
            read_alert(br#"{"symbol":"BYBIT:ETHUSDT.P","signal":"sell"}"#).unwrap(),
            ParsedAlert {
                symbol: "ETHUSDT".into(),
                rating: "SELL"
            }
        );
    }
}
