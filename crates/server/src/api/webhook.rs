//! TradingView alert webhooks: each user has one secret URL (`/api/webhook/<secret>/`),
//! shown once when it is made and replaceable at any time. An alert POSTed there becomes that
//! user's signal, through their signal worker, as if the ratings had produced it.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use signaldesk_core::signal::parse_rating_level;
use signaldesk_engine::signal_worker::Alert;
use utoipa::ToSchema;

use crate::api::rfc3339;
use crate::app::{now_ms, AppState};
use crate::auth::{secrets, AuthUser};
use crate::error::{ApiError, ApiPath, ApiResult, ErrorBody, FieldErrors};
use crate::rate_limit::client_ip;

/// The longest symbol accepted (Bybit's are far shorter).
const MAX_SYMBOL_LEN: usize = 30;

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
    auth: AuthUser,
) -> ApiResult<(StatusCode, Json<NewWebhook>)> {
    let secret = secrets::new_secret();
    let now = now_ms();
    state
        .store
        .set_webhook_secret(auth.id(), &secrets::digest(&secret), now)
        .await?;
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

/// A TradingView alert: `{"symbol": "BTCUSDT", "signal": "STRONG_BUY"}` (`recommendation` is
/// accepted for `signal`; a missing signal is NEUTRAL).
#[derive(Deserialize, ToSchema)]
pub struct AlertBody {
    pub symbol: Option<Value>,
    pub signal: Option<Value>,
    pub recommendation: Option<Value>,
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
        state.limits.webhook_unknown.check(&client)?;
        return Err(ApiError::new(StatusCode::NOT_FOUND, "Unknown webhook URL."));
    };
    state.limits.webhook_alerts.check(&user_id)?;
    let (symbol, rating) = parse_alert(&body)?;
    if !state.supervisor.hub().covers(&symbol) {
        return Err(field_error(
            "symbol",
            format!("{symbol} is not one of the symbols this server trades."),
        ));
    }
    let alert = Alert {
        symbol: symbol.clone(),
        rating,
        received_at: now_ms(),
    };
    state.supervisor.submit_alert(user_id, alert).await?;
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

/// The symbol as Bybit names it and the rating level, from an alert body. TradingView's
/// `{{ticker}}` may carry an exchange prefix and a `.P` perpetual suffix (`BYBIT:BTCUSDT.P`).
fn parse_alert(body: &[u8]) -> Result<(String, &'static str), ApiError> {
    let alert: AlertBody = serde_json::from_slice(body).map_err(|_| {
        ApiError::bad_request(
            "The alert must be a JSON object such as {\"symbol\": \"BTCUSDT\", \"signal\": \"STRONG_BUY\"}.",
        )
    })?;
    let symbol = match alert.symbol {
        Some(Value::String(s)) => normalise_symbol(&s)
            .ok_or_else(|| field_error("symbol", "Not a valid symbol, e.g. BTCUSDT."))?,
        Some(_) => return Err(field_error("symbol", "Must be a string, e.g. BTCUSDT.")),
        None => return Err(field_error("symbol", "This field is required.")),
    };
    let rating = match alert.signal.or(alert.recommendation) {
        None | Some(Value::Null) => "NEUTRAL",
        Some(Value::String(s)) => parse_rating_level(&s).ok_or_else(|| {
            field_error(
                "signal",
                "Must be STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL.",
            )
        })?,
        Some(_) => return Err(field_error("signal", "Must be a string.")),
    };
    Ok((symbol, rating))
}

fn normalise_symbol(raw: &str) -> Option<String> {
    let upper = raw.trim().to_ascii_uppercase();
    let without_exchange = upper.rsplit(':').next().unwrap_or_default();
    let symbol = without_exchange
        .strip_suffix(".P")
        .unwrap_or(without_exchange);
    let valid = !symbol.is_empty()
        && symbol.len() <= MAX_SYMBOL_LEN
        && symbol.chars().all(|c| c.is_ascii_alphanumeric());
    valid.then(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tradingview_tickers_become_bybit_symbols() {
        assert_eq!(normalise_symbol("btcusdt").as_deref(), Some("BTCUSDT"));
        assert_eq!(
            normalise_symbol("BYBIT:BTCUSDT.P").as_deref(),
            Some("BTCUSDT")
        );
        assert_eq!(normalise_symbol(" ETHUSDT ").as_deref(), Some("ETHUSDT"));
        assert_eq!(normalise_symbol(""), None);
        assert_eq!(normalise_symbol("BTC/USDT"), None);
        assert_eq!(normalise_symbol(&"A".repeat(31)), None);
    }

    #[test]
    fn alerts_parse_with_either_field_name_and_default_to_neutral() {
        let ok = |b: &str| parse_alert(b.as_bytes()).unwrap();
        assert_eq!(
            ok(r#"{"symbol":"BTCUSDT","signal":"strong_buy"}"#),
            ("BTCUSDT".into(), "STRONG_BUY")
        );
        assert_eq!(
            ok(r#"{"symbol":"BTCUSDT","recommendation":"Strong Sell"}"#),
            ("BTCUSDT".into(), "STRONG_SELL")
        );
        assert_eq!(ok(r#"{"symbol":"BTCUSDT"}"#), ("BTCUSDT".into(), "NEUTRAL"));
        for bad in [
            "",
            "not json",
            "[]",
            r#"{"signal":"STRONG_BUY"}"#,
            r#"{"symbol":5,"signal":"STRONG_BUY"}"#,
            r#"{"symbol":"BTCUSDT","signal":"moon"}"#,
            r#"{"symbol":"BTCUSDT","signal":1}"#,
        ] {
            let err = parse_alert(bad.as_bytes()).unwrap_err();
            assert_eq!(err.status, StatusCode::BAD_REQUEST, "{bad}");
        }
    }
}
