//! TradingView alert webhooks: each user has one secret URL (`/api/webhook/<secret>/`),
//! shown once when it is made and replaceable at any time. An alert POSTed there becomes that
//! user's signal, through their signal worker, as if the ratings had produced it.
//!
//! Replays are refused (docs/security.md, "Replayed alerts"): an alert whose `time` is more
//! than `webhook_max_lag_secs` from this server's clock, either way, is a 400; the same body
//! again within `webhook_duplicate_window_secs` of the one acted on is answered 200 with
//! `"duplicate": true` (so TradingView does not retry it) and only written to the bot log.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use signaldesk_core::alert::{parse_alert, AlertBody, AlertError, ParsedAlert};
use signaldesk_engine::signal_worker::Alert;
use signaldesk_store::{AuditAction, WebhookAlert};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::audit_log::Audit;
use crate::auth::{secrets, AuthUser};
use crate::error::{ApiError, ApiPath, ApiResult, ErrorBody, FieldErrors};
use crate::rate_limit::client_ip;
use crate::wire::rfc3339;

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
    /// Present (true) only in the 200 answer to a copy of an alert acted on within the
    /// duplicate window: nothing was done with it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[schema(required = false)]
    pub duplicate: bool,
}

/// Receives an alert. The body is read as JSON whatever its content type, since TradingView
/// sends `text/plain` for some messages. 202: acted on; 200 with `"duplicate": true`: the same
/// body was acted on moments ago, and this copy is ignored.
#[utoipa::path(post, path = "/api/webhook/{secret}/", tag = "webhook",
    params(("secret" = String, Path)), request_body = AlertBody,
    responses((status = 202, body = AlertAccepted), (status = 200, body = AlertAccepted),
              (status = 400, body = ErrorBody),
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
    let ParsedAlert {
        symbol,
        rating,
        sent_at,
    } = read_alert(&body)?;
    let now = now_ms();
    if let Some(sent_at) = sent_at {
        check_lag(sent_at, now, state.config.webhook_max_lag_secs)?;
    }
    // The symbol must trade on the user's own market: Bybit's list for a Bybit account.
    let market = state.engine.market_of(user_id).await?;
    if !market.lists(&symbol).await? {
        return Err(field_error(
            "symbol",
            format!("{symbol} is not one of the symbols this account's market trades."),
        ));
    }
    let body_hash = hex::encode(Sha256::digest(&body));
    let window_ms = millis(state.config.webhook_duplicate_window_secs);
    let answer = |status, duplicate| {
        let accepted = AlertAccepted {
            symbol: symbol.clone(),
            signal: rating,
            duplicate,
        };
        Ok((status, Json(accepted)))
    };
    // Kept with the claim until the signal worker acts on it; acted on only while it is no
    // older than an alert accepted at all, so one kept through a restart is never traded stale.
    let kept = WebhookAlert {
        symbol: symbol.clone(),
        rating: rating.to_string(),
        expires_at: now.saturating_add(millis(state.config.webhook_max_lag_secs)),
    };
    if !state
        .store
        .claim_webhook_delivery(user_id, &body_hash, now, window_ms, &kept)
        .await?
    {
        let line = format!(
            "{symbol}: duplicate webhook alert {rating} ignored (the same alert arrived less \
             than {} s ago)",
            state.config.webhook_duplicate_window_secs
        );
        state.engine.journal().info(user_id, &line).await;
        return answer(StatusCode::OK, true);
    }
    let alert = Alert {
        symbol: symbol.clone(),
        rating,
        received_at: now,
        body_hash: body_hash.clone(),
    };
    if let Err(e) = state.engine.supervisor().submit_alert(user_id, alert).await {
        // Not acted on: a retry of the same body must not be taken for a duplicate.
        state
            .store
            .release_webhook_delivery(user_id, &body_hash, now)
            .await?;
        return Err(e.into());
    }
    answer(StatusCode::ACCEPTED, false)
}

fn millis(secs: u64) -> i64 {
    i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX)
}

/// Refuses an alert sent more than `max_lag_secs` before `now_ms`, or that far after it (the
/// sender's clock and this server's may differ, but not by minutes).
fn check_lag(sent_at: i64, now_ms: i64, max_lag_secs: u64) -> ApiResult<()> {
    let max_lag = millis(max_lag_secs);
    let age = now_ms.saturating_sub(sent_at);
    if age > max_lag {
        return Err(field_error(
            "time",
            format!(
                "The alert is {} s old; alerts more than {max_lag_secs} s old are refused \
                 (webhook_max_lag_secs).",
                age / 1000
            ),
        ));
    }
    if -age > max_lag {
        return Err(field_error(
            "time",
            format!(
                "The alert's time is {} s ahead of this server's clock; more than \
                 {max_lag_secs} s ahead is refused (webhook_max_lag_secs). Check the clocks.",
                -age / 1000
            ),
        ));
    }
    Ok(())
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
                rating: "SELL",
                sent_at: None,
            }
        );
    }

    #[test]
    fn times_beyond_the_lag_either_way_are_refused_naming_the_field() {
        let now = 1_795_770_900_000;
        for ok in [now, now - 300_000, now + 300_000, now - 1] {
            assert!(check_lag(ok, now, 300).is_ok(), "{ok}");
        }
        let old = check_lag(now - 300_001, now, 300).unwrap_err();
        assert_eq!(old.status, StatusCode::BAD_REQUEST);
        let message = &old.fields.as_ref().unwrap()["time"][0];
        assert!(
            message.contains("is 300 s old") && message.contains("300 s"),
            "{message}"
        );
        let ahead = check_lag(now + 301_000, now, 300).unwrap_err();
        let message = &ahead.fields.as_ref().unwrap()["time"][0];
        assert!(message.contains("301 s ahead"), "{message}");
        assert!(check_lag(0, now, 300).is_err(), "1970");
    }
}
