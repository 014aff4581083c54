//! Market data behind one trait: the simulated market (the offline default), a manually
//! driven market for tests, and Bybit V5 public data.

pub mod candles;
pub mod funding;
pub mod manual;
pub mod sim;

use async_trait::async_trait;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_core::market::{Candle, Instrument};
use tokio::sync::broadcast;

use crate::error::VenueError;

/// A live market update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarketEvent {
    /// A new last traded price.
    Tick {
        symbol: String,
        price: Decimal,
        ts_ms: i64,
    },
    /// A candle of `interval_minutes` has closed.
    CandleClosed {
        symbol: String,
        interval_minutes: u32,
        candle: Candle,
    },
}

/// A source of instruments, candles and live prices.
#[async_trait]
pub trait MarketData: Send + Sync {
    /// The instruments this market trades.
    async fn instruments(&self) -> Result<Vec<Instrument>, VenueError>;

    /// The last `limit` closed candles of `interval_minutes`, oldest first.
    async fn history(
        &self,
        symbol: &str,
        interval_minutes: u32,
        limit: usize,
    ) -> Result<Vec<Candle>, VenueError>;

    /// The last traded price.
    async fn last_price(&self, symbol: &str) -> Result<Decimal, VenueError>;

    /// Live ticks and closed candles from now on.
    fn subscribe(&self) -> broadcast::Receiver<MarketEvent>;

    /// Ticks of `symbol` from now on, where the market does not send them already (a market
    /// that streams every symbol it lists does nothing).
    fn watch(&self, _symbol: &str) {}

    /// The funding rate of `symbol` settled at `at_ms` (a settlement time,
    /// [`funding::next_settlement`]), if this market knows it.
    fn funding_rate(&self, _symbol: &str, _at_ms: i64) -> Option<Decimal> {
        None
    }

    /// The market's clock, Unix milliseconds (simulated time for the simulated market).
    fn now_ms(&self) -> i64;
}
