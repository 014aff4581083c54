//! A market moved by hand: every price and candle is set by the caller. For tests of the
//! paper exchange and of the workers built on [`MarketData`], where each step must be exact.

use rustc_hash::FxHashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use rust_decimal::Decimal;
use signaldesk_core::market::{Candle, Instrument};
use tokio::sync::broadcast;

use super::funding::FundingRates;
use super::{MarketData, MarketEvent};
use crate::error::VenueError;

/// A [`MarketData`] whose clock, prices and candles are set by the caller.
pub struct ManualMarket {
    instruments: Vec<Instrument>,
    funding: FundingRates,
    state: Mutex<ManualState>,
    events: broadcast::Sender<MarketEvent>,
}

#[derive(Default)]
struct ManualState {
    now_ms: i64,
    prices: FxHashMap<String, Decimal>,
    history: FxHashMap<(String, u32), Vec<Candle>>,
}

impl ManualMarket {
    pub fn new(instruments: Vec<Instrument>, start_ms: i64) -> Self {
        let (events, _) = broadcast::channel(4096);
        Self {
            instruments,
            funding: FundingRates::None,
            state: Mutex::new(ManualState {
                now_ms: start_ms,
                ..ManualState::default()
            }),
            events,
        }
    }

    /// The same market with these funding rates (none by default).
    pub fn with_funding(self, funding: FundingRates) -> Self {
        Self { funding, ..self }
    }

    fn lock(&self) -> MutexGuard<'_, ManualState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the clock to `now_ms`.
    pub fn set_time(&self, now_ms: i64) {
        self.lock().now_ms = now_ms;
    }

    /// Moves the clock forward by `ms`.
    pub fn advance(&self, ms: i64) {
        self.lock().now_ms += ms;
    }

    /// Sets the last price of `symbol` and publishes the tick at the current time (to
    /// whoever subscribed: a backtest hands its exchange every tick itself and sets prices
    /// by the million, so with nobody listening no event is made).
    pub fn set_price(&self, symbol: &str, price: Decimal) {
        let ts_ms = {
            let mut s = self.lock();
            match s.prices.get_mut(symbol) {
                Some(slot) => *slot = price,
                None => {
                    s.prices.insert(symbol.to_string(), price);
                }
            }
            s.now_ms
        };
        if self.events.receiver_count() == 0 {
            return;
        }
        let _ = self.events.send(MarketEvent::Tick {
            symbol: symbol.to_string(),
            price,
            ts_ms,
        });
    }

    /// Appends a closed candle to the history of `symbol` and publishes it.
    pub fn push_candle(&self, symbol: &str, interval_minutes: u32, candle: Candle) {
        self.lock()
            .history
            .entry((symbol.to_string(), interval_minutes))
            .or_default()
            .push(candle.clone());
        let _ = self.events.send(MarketEvent::CandleClosed {
            symbol: symbol.to_string(),
            interval_minutes,
            candle,
        });
    }

    fn check_symbol(&self, symbol: &str) -> Result<(), VenueError> {
        if self.instruments.iter().any(|i| i.symbol == symbol) {
            Ok(())
        } else {
            Err(VenueError::UnknownSymbol(symbol.to_string()))
        }
    }
}

#[async_trait]
impl MarketData for ManualMarket {
    async fn instruments(&self) -> Result<Vec<Instrument>, VenueError> {
        Ok(self.instruments.clone())
    }

    async fn history(
        &self,
        symbol: &str,
        interval_minutes: u32,
        limit: usize,
    ) -> Result<Vec<Candle>, VenueError> {
        self.check_symbol(symbol)?;
        let s = self.lock();
        let all = s
            .history
            .get(&(symbol.to_string(), interval_minutes))
            .map(Vec::as_slice)
            .unwrap_or_default();
        Ok(all[all.len().saturating_sub(limit)..].to_vec())
    }

    async fn last_price(&self, symbol: &str) -> Result<Decimal, VenueError> {
        self.check_symbol(symbol)?;
        self.lock()
            .prices
            .get(symbol)
            .copied()
            .ok_or_else(|| VenueError::Network(format!("no price for {symbol} yet")))
    }

    fn subscribe(&self) -> broadcast::Receiver<MarketEvent> {
        self.events.subscribe()
    }

    fn funding_rate(&self, symbol: &str, at_ms: i64) -> Option<Decimal> {
        self.funding.rate(symbol, at_ms)
    }

    fn now_ms(&self) -> i64 {
        self.lock().now_ms
    }
}
