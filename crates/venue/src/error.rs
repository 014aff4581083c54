//! The one error type of the venue layer: paper exchange, simulated market and Bybit alike.

use rust_decimal::Decimal;

/// Why a venue or market-data call failed, worded for a trader.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VenueError {
    #[error("insufficient balance: {needed} USDT needed, {available} USDT available")]
    InsufficientBalance { needed: Decimal, available: Decimal },

    #[error(
        "quantity {qty} {symbol} is below the minimum order (min qty {min_qty}, min order value {min_notional} USDT)"
    )]
    QtyBelowMinimum {
        symbol: String,
        qty: Decimal,
        min_qty: Decimal,
        min_notional: Decimal,
    },

    #[error("unknown symbol {0}")]
    UnknownSymbol(String),

    #[error("leverage {leverage}x is not allowed for {symbol}: {reason}")]
    LeverageNotAllowed {
        symbol: String,
        leverage: u32,
        reason: String,
    },

    #[error("no open position on {0}")]
    NoPosition(String),

    #[error("invalid request: {0}")]
    InvalidRequest(String),

    #[error("exchange error {code}: {message}")]
    Exchange { code: i64, message: String },

    #[error("network error: {0}")]
    Network(String),

    #[error("rate limited by the exchange")]
    RateLimited { retry_after_ms: Option<u64> },

    /// Refused before it was sent: this process no longer runs the user's bot (its lease
    /// ended; another instance may run it now).
    #[error("not sent: this instance no longer runs the bot")]
    NotOwner,
}

impl VenueError {
    /// Whether the same call may succeed if retried later unchanged (network trouble or
    /// rate limiting); rejections of the request itself are not retryable.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            VenueError::Network(_) | VenueError::RateLimited { .. }
        )
    }
}
