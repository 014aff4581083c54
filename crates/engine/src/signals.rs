//! Signals from technical ratings: one [`RatingHub`] keeps a rating engine per symbol of the
//! universe, warmed from history and moved by every closed candle, and broadcasts each new
//! rating; each user's signal worker stores what it hears and logs what changed.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use rust_decimal::prelude::ToPrimitive;
use signaldesk_core::market::Candle;
use signaldesk_ratings::{Rating, RatingEngine, Recommendation};
use signaldesk_store::{Store, StoredSignal};
use signaldesk_venue::market::{MarketData, MarketEvent};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::journal::BotJournal;
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
    latest: RwLock<HashMap<String, SymbolRating>>,
    tx: broadcast::Sender<SymbolRating>,
}

fn ratings_candle(c: &Candle) -> signaldesk_ratings::Candle {
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
        for symbol in universe {
            let mut engine = RatingEngine::new();
            let mut last = None;
            for candle in market
                .history(&symbol, interval_minutes, WARM_UP_CANDLES)
                .await?
            {
                let rating = engine.update(&ratings_candle(&candle));
                last = Some(SymbolRating {
                    symbol: symbol.clone(),
                    rating,
                    candle_time: candle.open_time_ms,
                });
            }
            if let Some(last) = last {
                latest.insert(symbol.clone(), last);
            }
            engines.insert(symbol, engine);
        }
        let (tx, _) = broadcast::channel(CHANNEL_CAPACITY);
        let hub = Arc::new(RatingHub {
            latest: RwLock::new(latest),
            tx,
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

fn to_stored(user_id: i64, r: &SymbolRating, now_ms: i64) -> StoredSignal {
    StoredSignal {
        id: 0,
        user_id,
        symbol: r.symbol.clone(),
        rating: r.rating.recommendation.as_str().to_string(),
        total: Some(r.rating.total),
        ma: Some(r.rating.ma),
        osc: Some(r.rating.osc),
        candle_time: r.candle_time,
        source: "ratings".into(),
        created_at: now_ms,
    }
}

/// The signal worker of one user: stores the current ratings at start (so the page fills at
/// once), then every new one; logs each change of recommendation.
pub async fn run_signal_worker(
    user_id: i64,
    hub: Arc<RatingHub>,
    store: Store,
    journal: BotJournal,
    stop: CancellationToken,
) {
    let mut feed = hub.subscribe();
    let mut previous: HashMap<String, Recommendation> = HashMap::new();
    for rating in hub.latest() {
        store_one(user_id, &rating, &store, &journal, &mut previous).await;
    }
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            received = feed.recv() => match received {
                Ok(rating) => store_one(user_id, &rating, &store, &journal, &mut previous).await,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    journal.warning(user_id, &format!("Signal worker fell behind and skipped {n} ratings")).await;
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
}

async fn store_one(
    user_id: i64,
    rating: &SymbolRating,
    store: &Store,
    journal: &BotJournal,
    previous: &mut HashMap<String, Recommendation>,
) {
    let now = chrono::Utc::now().timestamp_millis();
    if let Err(e) = store.insert_signal(&to_stored(user_id, rating, now)).await {
        journal
            .error(
                user_id,
                &format!("Could not store the {} signal: {e}", rating.symbol),
            )
            .await;
        return;
    }
    let new = rating.rating.recommendation;
    let old = previous.insert(rating.symbol.clone(), new);
    if old.is_some_and(|o| o != new) {
        journal
            .info(
                user_id,
                &format!(
                    "{}: {} -> {} (total {:.2}, MA {:.2}, oscillators {:.2})",
                    rating.symbol,
                    old.map(|o| o.as_str()).unwrap_or(""),
                    new.as_str(),
                    rating.rating.total,
                    rating.rating.ma,
                    rating.rating.osc
                ),
            )
            .await;
    }
}
