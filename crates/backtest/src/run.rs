//! One run: scratch books (a SQLite file in a temporary folder, the live store's own code),
//! a paper exchange on a hand-driven market, the user's trading worker, and the clock moved
//! minute by minute through the history.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_core::settings::BotSettings;
use signaldesk_core::signal::TradeSignal;
use signaldesk_engine::journal::BotJournal;
use signaldesk_engine::signals::ratings_candle;
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::trading::{TradingDeps, TradingWorker};
use signaldesk_engine::EventBus;
use signaldesk_ratings::RatingEngine;
use signaldesk_store::repo::stats::ChainWithTrades;
use signaldesk_store::{Store, StoredSignal, Trade};
use signaldesk_venue::market::candles::aggregate;
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::{Venue, VenueEvent};
use tokio::sync::broadcast;

use crate::path::price_path;
use crate::{BacktestError, Summary};

const MINUTE_MS: i64 = 60_000;

/// Where the run's signals come from.
#[derive(Debug, Clone)]
pub enum Signals {
    /// The rating engine over candles of this many minutes, built from the 1-minute ones.
    Ratings { interval_minutes: u32 },
    /// Given signals (recorded alerts, a test's script, ratings computed once for a sweep),
    /// each taken at its time.
    Scripted(Arc<Vec<ScriptedSignal>>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedSignal {
    /// When the signal is known: it is taken at the first minute at or after it.
    pub at_ms: i64,
    /// The time of the candle it rates (its arrival for an alert).
    pub candle_ms: i64,
    pub symbol: String,
    /// STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL.
    pub rating: String,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Backtest {
    pub settings: BotSettings,
    pub instruments: Vec<Instrument>,
    /// 1-minute candles per symbol, oldest first, one for every minute from the symbol's
    /// first ([`crate::data::fill_gaps`]). Those before `from_ms` only warm the ratings up.
    pub minutes: Arc<BTreeMap<String, Vec<Candle>>>,
    /// Trading starts here (Unix ms).
    pub from_ms: i64,
    pub signals: Signals,
    pub paper: PaperConfig,
}

/// How far a run is, and whether it should stop; shared with whoever watches it.
#[derive(Debug, Default)]
pub struct Progress {
    /// The share done (0 to 1), as `f64` bits.
    done: AtomicU64,
    cancelled: AtomicBool,
}

impl Progress {
    pub fn share(&self) -> f64 {
        f64::from_bits(self.done.load(Ordering::Relaxed))
    }

    pub(crate) fn set(&self, share: f64) {
        self.done.store(share.to_bits(), Ordering::Relaxed);
    }

    /// Asks the run to stop at its next check (within a thousand minutes of history).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every trade, oldest first, as the scratch books hold them at the end.
    pub trades: Vec<Trade>,
    /// The martingale chains, with their trades.
    pub chains: Vec<ChainWithTrades>,
    pub summary: Summary,
    /// The bot log of the run, oldest first (at most the last 1,000 lines).
    pub log: Vec<String>,
}

impl Backtest {
    /// Runs the history through the bot, telling `progress` the share done and stopping
    /// with [`BacktestError::Cancelled`] once it is cancelled. The same inputs give the same
    /// trades.
    pub async fn run(&self, progress: &Progress) -> Result<Outcome, BacktestError> {
        let timeline = Timeline::of(&self.minutes)?;
        let scratch = scratch_dir()?;
        let url = format!("sqlite://{}", scratch.path().join("backtest.db").display());
        let store = Store::connect(&url).await?;
        let user = store.create_user("backtest", "-", 0).await?.id;
        let record = store.settings_or_default(user, 0).await?;
        store
            .update_settings(user, record.id, &self.settings, 0)
            .await?;

        let market = Arc::new(ManualMarket::new(
            self.instruments.clone(),
            timeline.first_ms,
        ));
        let exchange =
            PaperExchange::new(market.clone(), self.paper.clone(), Arc::new(NoJournal)).await?;
        for (symbol, candles) in self.minutes.iter() {
            let open = candles[0].open;
            market.set_price(symbol, open);
            exchange.on_tick(symbol, open, timeline.first_ms);
        }
        let venue: Arc<dyn Venue> = Arc::new(exchange.account(user));
        let mut events = venue.subscribe();
        let bus = EventBus::new();
        let deps = TradingDeps {
            store: store.clone(),
            journal: BotJournal::new(store.clone(), bus.clone()),
            bus,
            venue: venue.clone(),
            market: market.clone(),
            telegram: Notifier::disabled(),
        };
        let known = self
            .minutes
            .keys()
            .map(|s| (s.clone(), TradeSignal::Neutral));
        let mut worker = TradingWorker::new(user, deps, known).await?;
        let mut ratings = Ratings::new(&self.signals, &self.minutes);

        let mut driver = Driver {
            store: &store,
            market: &market,
            exchange: &exchange,
            venue: &venue,
            events: &mut events,
            worker: &mut worker,
        };
        let total = timeline.minutes.max(1) as f64;
        for step in 0..timeline.minutes {
            let minute_ms = timeline.first_ms + step as i64 * MINUTE_MS;
            for signal in ratings.due(minute_ms, &self.minutes, timeline.first_ms) {
                if minute_ms >= self.from_ms {
                    driver.signal(user, signal, minute_ms).await?;
                }
            }
            if minute_ms >= self.from_ms {
                driver.minute(&self.minutes, &timeline, step).await?;
            }
            if step % 1_000 == 0 {
                if progress.is_cancelled() {
                    return Err(BacktestError::Cancelled);
                }
                progress.set(step as f64 / total);
            }
        }
        progress.set(1.0);

        let trades = store.all_trades(user).await?;
        let wallet = venue.wallet().await?;
        let chains = store.chains_with_trades(user, i64::MIN, i64::MAX).await?;
        let mut log = store.recent_logs(user, None, 1000).await?;
        log.reverse();
        let summary = Summary::of(
            &trades,
            self.settings.timezone(),
            self.paper.starting_balance,
            wallet.wallet_balance,
        );
        store.close().await;
        Ok(Outcome {
            trades,
            chains,
            summary,
            log: log.into_iter().map(|e| e.message).collect(),
        })
    }
}

impl Backtest {
    /// Every signal the run would take, computed without trading: the same for any settings,
    /// so a sweep computes them once and gives each cell [`Signals::Scripted`].
    pub fn signals_once(&self) -> Result<Arc<Vec<ScriptedSignal>>, BacktestError> {
        if let Signals::Scripted(list) = &self.signals {
            return Ok(list.clone());
        }
        let timeline = Timeline::of(&self.minutes)?;
        let mut ratings = Ratings::new(&self.signals, &self.minutes);
        let mut all = Vec::new();
        for step in 0..timeline.minutes {
            let minute_ms = timeline.first_ms + step as i64 * MINUTE_MS;
            all.extend(ratings.due(minute_ms, &self.minutes, timeline.first_ms));
        }
        Ok(Arc::new(all))
    }
}

/// The minutes the run walks: from the first candle to the last, every symbol on each.
struct Timeline {
    first_ms: i64,
    minutes: usize,
}

impl Timeline {
    fn of(minutes: &BTreeMap<String, Vec<Candle>>) -> Result<Timeline, BacktestError> {
        let mut first = i64::MAX;
        let mut last = i64::MIN;
        for (symbol, candles) in minutes {
            let (Some(a), Some(b)) = (candles.first(), candles.last()) else {
                return Err(BacktestError::NoCandles(symbol.clone()));
            };
            first = first.min(a.open_time_ms);
            last = last.max(b.open_time_ms);
        }
        if first > last {
            return Err(BacktestError::EmptyPeriod);
        }
        Ok(Timeline {
            first_ms: first,
            minutes: usize::try_from((last - first) / MINUTE_MS + 1).unwrap_or(0),
        })
    }
}

/// The signals due at the start of each minute.
struct Ratings {
    source: Source,
}

enum Source {
    Engines {
        interval_minutes: u32,
        engines: BTreeMap<String, RatingEngine>,
    },
    Scripted {
        signals: Arc<Vec<ScriptedSignal>>,
        next: usize,
    },
}

impl Ratings {
    fn new(signals: &Signals, minutes: &BTreeMap<String, Vec<Candle>>) -> Ratings {
        let source = match signals {
            Signals::Ratings { interval_minutes } => Source::Engines {
                interval_minutes: (*interval_minutes).max(1),
                engines: minutes
                    .keys()
                    .map(|s| (s.clone(), RatingEngine::new()))
                    .collect(),
            },
            Signals::Scripted(list) => {
                let signals = if list.is_sorted_by_key(|s| s.at_ms) {
                    list.clone()
                } else {
                    let mut sorted = list.as_ref().clone();
                    sorted.sort_by_key(|s| s.at_ms);
                    Arc::new(sorted)
                };
                Source::Scripted { signals, next: 0 }
            }
        };
        Ratings { source }
    }

    /// The signals known at `minute_ms`: with ratings, each symbol's rating of the candle
    /// that closed at this minute (none before the first full candle); scripted, those
    /// whose time has come.
    fn due(
        &mut self,
        minute_ms: i64,
        minutes: &BTreeMap<String, Vec<Candle>>,
        first_ms: i64,
    ) -> Vec<ScriptedSignal> {
        match &mut self.source {
            Source::Engines {
                interval_minutes,
                engines,
            } => {
                let interval_ms = i64::from(*interval_minutes) * MINUTE_MS;
                let opened = minute_ms - interval_ms;
                if minute_ms.rem_euclid(interval_ms) != 0 || opened < first_ms {
                    return Vec::new();
                }
                let width = *interval_minutes as usize;
                let mut due = Vec::with_capacity(engines.len());
                for (symbol, engine) in engines.iter_mut() {
                    let candles = &minutes[symbol];
                    // Each symbol's minutes are contiguous from its own first one.
                    let Some(index) = candles
                        .first()
                        .and_then(|c| usize::try_from((opened - c.open_time_ms) / MINUTE_MS).ok())
                    else {
                        continue;
                    };
                    let Some(slice) = candles.get(index..index + width) else {
                        continue;
                    };
                    let Some(candle) = aggregate(slice, 1, *interval_minutes).pop() else {
                        continue;
                    };
                    let rating = engine.update(&ratings_candle(&candle));
                    due.push(ScriptedSignal {
                        at_ms: minute_ms,
                        candle_ms: candle.open_time_ms,
                        symbol: symbol.clone(),
                        rating: rating.recommendation.as_str().to_string(),
                    });
                }
                due
            }
            Source::Scripted { signals, next } => {
                let start = *next;
                while *next < signals.len() && signals[*next].at_ms <= minute_ms {
                    *next += 1;
                }
                signals[start..*next].to_vec()
            }
        }
    }
}

/// Moves the world one step at a time and lets the worker hear it.
struct Driver<'a> {
    store: &'a Store,
    market: &'a ManualMarket,
    exchange: &'a PaperExchange,
    venue: &'a Arc<dyn Venue>,
    events: &'a mut broadcast::Receiver<VenueEvent>,
    worker: &'a mut TradingWorker,
}

impl Driver<'_> {
    async fn signal(
        &mut self,
        user: i64,
        signal: ScriptedSignal,
        now_ms: i64,
    ) -> Result<(), BacktestError> {
        self.market.set_time(now_ms);
        let stored = self
            .store
            .insert_signal(&StoredSignal {
                id: 0,
                user_id: user,
                symbol: signal.symbol,
                rating: signal.rating,
                total: None,
                ma: None,
                osc: None,
                candle_time: signal.candle_ms,
                source: "backtest".into(),
                created_at: now_ms,
            })
            .await?;
        self.worker.on_signal(&stored, at(now_ms)).await;
        self.pump(now_ms).await
    }

    /// Every symbol's candle of minute `step`, each walked as its price path.
    async fn minute(
        &mut self,
        minutes: &BTreeMap<String, Vec<Candle>>,
        timeline: &Timeline,
        step: usize,
    ) -> Result<(), BacktestError> {
        let minute_ms = timeline.first_ms + step as i64 * MINUTE_MS;
        for (symbol, candles) in minutes {
            let offset = (minute_ms - candles[0].open_time_ms) / MINUTE_MS;
            let Some(candle) = usize::try_from(offset).ok().and_then(|i| candles.get(i)) else {
                continue;
            };
            for (after, price) in price_path(candle) {
                let now_ms = minute_ms + after;
                self.market.set_time(now_ms);
                self.market.set_price(symbol, price);
                self.exchange.on_tick(symbol, price, now_ms);
                self.pump(now_ms).await?;
                self.worker.on_tick(symbol, price, at(now_ms)).await;
                self.pump(now_ms).await?;
            }
        }
        self.worker.on_clock(at(minute_ms + MINUTE_MS - 1)).await;
        Ok(())
    }

    /// Hands the worker everything the exchange did so far.
    async fn pump(&mut self, now_ms: i64) -> Result<(), BacktestError> {
        self.venue.catch_up().await?;
        while let Ok(event) = self.events.try_recv() {
            self.worker.on_venue_event(event, at(now_ms)).await;
        }
        Ok(())
    }
}

/// The scratch books' folder: in memory (`/dev/shm`) where the machine has it, since the
/// books are thrown away and every write to a disk costs system time; else the temp folder.
fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::Builder::new()
            .prefix("signaldesk-backtest-")
            .tempdir_in(shm)
        {
            return Ok(dir);
        }
    }
    tempfile::tempdir()
}

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
