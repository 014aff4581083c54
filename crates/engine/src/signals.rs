//! Signals from technical ratings: one [`RatingHub`] keeps a rating engine per symbol of the
//! universe, warmed from history and moved by every closed candle, and broadcasts each new
//! rating. Each user's signal worker (`signal_worker`) stores what it hears, logs what
//! changed and publishes it live.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use rust_decimal::prelude::ToPrimitive;
use signaldesk_core::market::Candle;
use signaldesk_ratings::{Rating, RatingEngine};
use signaldesk_venue::market::{MarketData, MarketEvent};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::EngineError;

/// Candles each engine is warmed on: enough for the 200-period averages to vote.
const WARM_UP_CANDLES: usize = 300;
const CHANNEL_CAPACITY: usize = 1024;

/// A symbol's rating after a closed candle.
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolRating {
    pub symbol: String,
    pub rating: Rating,
    /// Open time of the candle it is for (Unix ms).
    pub candle_time: i64,
}

pub struct RatingHub {
    /// The symbols rated, sorted.
    universe: Vec<String>,
    latest: RwLock<HashMap<String, SymbolRating>>,
    tx: broadcast::Sender<SymbolRating>,
    /// The market rated: its clock stamps the signals.
    market: Arc<dyn MarketData>,
}

/// An engine warmed on each history of `histories` (oldest first), and its rating after the
/// last candle: all histories at once (the cold batch, `extend_batch`: bit for bit what
/// feeding the candles one by one gives, for a fraction of the work) or, for a history
/// holding a candle the engine refuses, one candle at a time, the refused ones skipped as the
/// live feed skips them.
pub fn warmed_all<H: AsRef<[signaldesk_ratings::Candle]>>(
    histories: &[H],
) -> Vec<(RatingEngine, Rating)> {
    signaldesk_ratings::extend_batch(histories)
        .into_iter()
        .zip(histories)
        .map(|((mut engine, result), history)| {
            let rating = match result {
                Ok(rating) => rating,
                // Nothing was taken: the engine is as new.
                Err(_) => history
                    .as_ref()
                    .iter()
                    .fold(engine.rating(), |_, candle| engine.update(candle)),
            };
            (engine, rating)
        })
        .collect()
}

/// A market candle in the rating engine's numbers.
pub fn ratings_candle(c: &Candle) -> signaldesk_ratings::Candle {
    let f = |d: rust_decimal::Decimal| d.to_f64().unwrap_or(f64::NAN);
    signaldesk_ratings::Candle {
        time: c.open_time_ms,
        open: f(c.open),
        high: f(c.high),
        low: f(c.low),
        close: f(c.close),
        volume: f(c.volume),
    }
}

impl RatingHub {
    /// Warms an engine per symbol from the market's history, then follows closed candles of
    /// `interval_minutes` until the returned task is aborted.
    pub async fn start(
        market: Arc<dyn MarketData>,
        universe: Vec<String>,
        interval_minutes: u32,
    ) -> Result<(Arc<RatingHub>, JoinHandle<()>), EngineError> {
        // Subscribe before reading history so no candle falls between the two.
        let mut feed = market.subscribe();
        let mut engines = HashMap::new();
        let mut latest = HashMap::new();
        let mut sorted = universe.clone();
        sorted.sort();
        sorted.dedup();
        let mut symbols = Vec::with_capacity(universe.len());
        let mut histories = Vec::with_capacity(universe.len());
        for symbol in universe {
            let history = market
                .history(&symbol, interval_minutes, WARM_UP_CANDLES)
                .await?;
            histories.push(history.iter().map(ratings_candle).collect::<Vec<_>>());
            symbols.push(symbol);
        }
        for ((symbol, history), (engine, rating)) in symbols
            .into_iter()
            .zip(&histories)
            .zip(warmed_all(&histories))
        {
            // A rating candle's time is its market candle's opening time.
            if let Some(last) = history.last() {
                let rating = SymbolRating {
                    symbol: symbol.clone(),
                    rating,
                    candle_time: last.time,
                };
                latest.insert(symbol.clone(), rating);
            }
            engines.insert(symbol, engine);
        }
        let (tx, _) = broadcast::channel(CHANNEL_CAPACITY);
        let hub = Arc::new(RatingHub {
            universe: sorted,
            latest: RwLock::new(latest),
            tx,
            market: market.clone(),
        });
        let runner = hub.clone();
        let task = tokio::spawn(async move {
            loop {
                match feed.recv().await {
                    Ok(MarketEvent::CandleClosed {
                        symbol,
                        interval_minutes: i,
                        candle,
                    }) if i == interval_minutes => {
                        let Some(engine) = engines.get_mut(&symbol) else {
                            continue;
                        };
                        let Ok(rating) = engine.try_update(&ratings_candle(&candle)) else {
                            // A replayed or malformed candle changes nothing.
                            continue;
                        };
                        runner.publish(SymbolRating {
                            symbol,
                            rating,
                            candle_time: candle.open_time_ms,
                        });
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "rating hub fell behind the market feed");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        Ok((hub, task))
    }

    fn publish(&self, rating: SymbolRating) {
        self.latest
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(rating.symbol.clone(), rating.clone());
        let _ = self.tx.send(rating);
    }

    /// The rated market's time (Unix ms): simulated time on the simulated market, the wall
    /// clock on Bybit's. Signals are stamped with it, so a signal and the prices around it
    /// are on one clock (docs/parity.md).
    pub fn now_ms(&self) -> i64 {
        self.market.now_ms()
    }

    /// Whether `symbol` is one of the rated symbols (the ones the venues have prices for).
    /// The rated symbols, in order.
    pub fn universe(&self) -> &[String] {
        &self.universe
    }

    pub fn covers(&self, symbol: &str) -> bool {
        self.universe
            .binary_search_by(|s| s.as_str().cmp(symbol))
            .is_ok()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<SymbolRating> {
        self.tx.subscribe()
    }

    /// The current rating of every symbol, by symbol.
    pub fn latest(&self) -> Vec<SymbolRating> {
        let mut all: Vec<_> = self
            .latest
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        all.sort_by(|a, b| a.symbol.cmp(&b.symbol));
        all
    }
}
