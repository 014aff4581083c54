//! Bybit's private-API failures as a trader reads them: each documented retCode and HTTP
//! status becomes a [`VenueError`] whose sentence says what is wrong and what to do.

use crate::bybit::http::BybitHttpError;
use crate::error::VenueError;

use super::Environment;

/// "Set leverage not modified": the leverage already is what was asked.
pub const LEVERAGE_NOT_MODIFIED: i64 = 110043;
/// "OrderLinkedID is duplicate": an order with this orderLinkId exists.
pub const DUPLICATE_ORDER_LINK_ID: i64 = 110072;
/// Trading stop "not modified": the stops already are what was asked.
pub const STOPS_NOT_MODIFIED: i64 = 34040;
/// The request's timestamp is outside the recv window (the clock is off).
pub const TIMESTAMP_OUTSIDE_WINDOW: i64 = 10002;

/// What a hedge-mode account is told: the bot trades one-way positions (positionIdx 0).
pub const HEDGE_MODE: &str = "the Bybit account's USDT perpetuals are in hedge mode (both sides); the bot trades in one-way mode only. Switch to one-way: close the USDT perpetual positions and cancel their orders, then on Bybit open a USDT perpetual's trading page, Settings (the gear) > Position Mode > One-Way Mode for all USDT contracts";

/// Whether Bybit asks us to slow down (retCode 10006 / 10018, HTTP 429). HTTP 403 is
/// more: a ban of the IP address ([`crate::bybit::http::ip_ban`]), never retried.
pub fn is_rate_limit(e: &BybitHttpError) -> bool {
    match e {
        BybitHttpError::Api { code, .. } => matches!(code, 10006 | 10018),
        BybitHttpError::Status { status, .. } => *status == 429,
        _ => false,
    }
}

/// Whether the request may not have reached Bybit or Bybit failed inside (timeouts,
/// connection errors, 5xx): its effect is unknown.
pub fn is_transient(e: &BybitHttpError) -> bool {
    match e {
        BybitHttpError::Transport(_) => true,
        BybitHttpError::Status { status, .. } => *status >= 500,
        BybitHttpError::Api { code, .. } => matches!(code, 10000 | 10016),
        BybitHttpError::Decode(_) | BybitHttpError::IpBanned { .. } => false,
    }
}

/// The trader's version of `e`, for a key of `environment`.
pub fn venue_error(e: BybitHttpError, environment: Environment) -> VenueError {
    let env = environment.describe();
    let exchange = |code: i64, message: String| VenueError::Exchange { code, message };
    match e {
        BybitHttpError::Transport(t) if t.is_timeout() => {
            VenueError::Network("Bybit did not answer in time".into())
        }
        BybitHttpError::Transport(t) => VenueError::Network(format!(
            "could not reach Bybit {env}: {}",
            t.without_url()
        )),
        BybitHttpError::Status { status, .. } if status >= 500 => {
            VenueError::Network(format!("Bybit {env} is unavailable (HTTP {status})"))
        }
        BybitHttpError::Status { status: 401, .. } => exchange(
            401,
            format!("Bybit {env} refused the API key (HTTP 401): check the key and secret"),
        ),
        ref e if is_rate_limit(e) => VenueError::RateLimited {
            retry_after_ms: None,
        },
        BybitHttpError::Api { code, message } => match code {
            10001 if message.contains("position idx not match position mode") => {
                exchange(code, HEDGE_MODE.into())
            }
            10001 => VenueError::InvalidRequest(format!("Bybit rejected the request: {message}")),
            10002 => exchange(
                code,
                "the request's time is outside Bybit's receive window: this server's clock is off"
                    .into(),
            ),
            10003 | 33004 => exchange(
                code,
                format!(
                    "invalid API key: Bybit {env} does not know it (or it expired). A demo-trading key only works with Demo on, a mainnet key only with Demo off"
                ),
            ),
            10004 => exchange(
                code,
                "signature rejected by Bybit: the API secret does not belong to this key".into(),
            ),
            10005 => exchange(
                code,
                "permission denied: the API key needs read-write Contract permissions (Orders and Positions)".into(),
            ),
            10010 => exchange(
                code,
                "IP not allowed: add this server's IP address to the API key's IP whitelist on Bybit, or remove the restriction".into(),
            ),
            110007 | 110012 | 110044 | 110045 | 110052 => exchange(
                code,
                format!("insufficient balance on Bybit {env}: the available balance does not cover this order's margin and fee"),
            ),
            110094 => exchange(
                code,
                format!("quantity below the minimum order on Bybit: {message}"),
            ),
            110040 => exchange(
                code,
                "Bybit refused the order because it would trigger the position's forced liquidation: the margin left would not carry it".into(),
            ),
            110013 => exchange(
                code,
                format!("leverage not allowed by Bybit's risk limit: {message}"),
            ),
            110028 => exchange(
                code,
                "open orders exist on Bybit, so the position mode cannot be changed: cancel them first".into(),
            ),
            110054..=110056 => exchange(
                code,
                "the position has take-profit, stop-loss or trailing-stop orders on Bybit, so its TP/SL mode cannot be switched: cancel them first".into(),
            ),
            _ => exchange(code, format!("Bybit error {code}: {message}")),
        },
        other => VenueError::from(other),
    }
}
