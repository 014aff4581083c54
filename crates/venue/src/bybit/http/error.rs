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
}

/// Bybit's "too many visits" return codes.
const RATE_LIMIT_CODES: [i64; 2] = [10006, 10018];

impl From<BybitHttpError> for VenueError {
    fn from(e: BybitHttpError) -> Self {
        match e {
            BybitHttpError::Transport(e) => VenueError::Network(e.to_string()),
            BybitHttpError::Status { status, .. } if status == 403 || status == 429 => {
                VenueError::RateLimited {
                    retry_after_ms: None,
                }
            }
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
