//! What can go wrong talking to Bybit's REST API, and how it reads to a trader.

use crate::error::VenueError;

/// A failed Bybit REST call.
#[derive(Debug, thiserror::Error)]
pub enum BybitHttpError {
    #[error("could not reach Bybit: {0}")]
    Transport(#[from] reqwest::Error),
    #[error("Bybit answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("Bybit error {code}: {message}")]
    Api { code: i64, message: String },
    #[error("unexpected answer from Bybit: {0}")]
    Decode(String),
    /// Bybit answered HTTP 403 (too many requests from this IP address): nothing is sent
    /// until `retry_in` has passed.
    #[error("Bybit has banned this server's IP address for too many requests (HTTP 403): Signal Desk sends Bybit nothing for {} more minute(s); it lifts by itself after about 10 minutes. A 403 that persists means Bybit does not serve this server's region: run it elsewhere", minutes_up(*retry_in))]
    IpBanned { retry_in: std::time::Duration },
}

fn minutes_up(d: std::time::Duration) -> u64 {
    d.as_secs().div_ceil(60).max(1)
}

/// Bybit's "too many visits" return codes.
const RATE_LIMIT_CODES: [i64; 2] = [10006, 10018];

impl From<BybitHttpError> for VenueError {
    fn from(e: BybitHttpError) -> Self {
        match e {
            BybitHttpError::Transport(e) => VenueError::Network(e.to_string()),
            e @ BybitHttpError::IpBanned { .. } => VenueError::Exchange {
                code: 403,
                message: e.to_string(),
            },
            BybitHttpError::Status { status: 429, .. } => VenueError::RateLimited {
                retry_after_ms: None,
            },
            BybitHttpError::Status { status, body } => VenueError::Exchange {
                code: i64::from(status),
                message: body,
            },
            BybitHttpError::Api { code, .. } if RATE_LIMIT_CODES.contains(&code) => {
                VenueError::RateLimited {
                    retry_after_ms: None,
                }
            }
            BybitHttpError::Api { code, message } => VenueError::Exchange { code, message },
            BybitHttpError::Decode(message) => VenueError::Exchange { code: -1, message },
        }
    }
}
