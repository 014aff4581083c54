//! The trading worker: one per user while the bot runs, written once against the [`Venue`]
//! trait so it trades the same way on paper and on Bybit (DESIGN.md section 5).
//!
//! It is a state machine driven by four inputs, each a method a test can call with a
//! controlled clock: [`TradingWorker::on_signal`] (entries), [`TradingWorker::on_tick`]
//! (the take-profit ladder), [`TradingWorker::on_venue_event`] (stops, trailing stops and
//! liquidations the venue executed) and the commands of [`Command`] (manual closes, settings
//! changes). [`TradingWorker::run`] feeds them from the live sources. Before acting it
//! reconciles the store with the venue ([`TradingWorker::reconcile`]).

mod books;
mod breaker;
mod entries;
mod exits;
mod funding;
mod guard;
mod ledger;
mod notify;
mod reconcile;
mod watch;

use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::Instrument;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::signal::TradeSignal;
use signaldesk_core::trading::{stop_loss_price, trailing_plan, Skip};
use signaldesk_store::{Store, StoredSignal, Trade};
use signaldesk_venue::market::{MarketData, MarketEvent};
use signaldesk_venue::{Stops, Trailing, Venue};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::events::{EventBus, UserEvent};
use crate::journal::BotJournal;
use crate::live;
use crate::notify::{Alerts, Notifications};
use crate::EngineError;

/// How often chains waiting for their next step (in a forbidden window) are looked at.
const WAITING_CHAINS_EVERY: Duration = Duration::from_secs(30);

/// How often a worker out of sync with the store tries to reconcile.
const RESYNC_EVERY: Duration = Duration::from_secs(2);

pub use books::{SyncReport, PARKED_EVENTS_MAX};
pub use guard::PROTECTION_EVERY;
pub use ledger::Ledger;

/// What the supervisor and the API ask of a running worker.
#[derive(Debug)]
pub enum Command {
    /// Close one trade at market; answers the closed trade.
    Close {
        trade_id: i64,
        reply: oneshot::Sender<Result<Trade, EngineError>>,
    },
    /// Close every open trade at market; answers how many were closed.
    CloseAll {
        reply: oneshot::Sender<Result<usize, EngineError>>,
    },
    /// The user saved new settings: use them from the next decision on.
    SettingsChanged,
}

/// What one worker needs from the outside world.
#[derive(Clone)]
pub struct TradingDeps {
    /// Where `venue` is: every trade the worker opens records it.
    pub account_venue: AccountVenue,
    /// The live store: the statistics the worker publishes to the user's live clients.
    pub store: Store,
    /// The worker's books (the live store's own [`Ledger`], or a backtest's in memory).
    pub ledger: Arc<dyn Ledger>,
    pub journal: BotJournal,
    pub bus: Arc<EventBus>,
    pub venue: Arc<dyn Venue>,
    pub market: Arc<dyn MarketData>,
    /// Where trades opened and closed and the daily summary are published for the channels.
    pub notices: Notifications,
    /// Raises and clears the user's alerts (the stale feed, the unreachable venue).
    pub alerts: Alerts,
    /// No price of a traded symbol for this long (two signal intervals) is a stale feed.
    pub feed_stale_after: Duration,
}

/// Two 15-minute signal intervals: the default stale-feed time.
pub const DEFAULT_FEED_STALE_AFTER: Duration = Duration::from_secs(30 * 60);

pub struct TradingWorker {
    user_id: i64,
    deps: TradingDeps,
    settings: BotSettings,
    /// The latest trading signal per symbol, to see transitions.
    signals: FxHashMap<String, TradeSignal>,
    /// The last price seen per symbol.
    prices: FxHashMap<String, Decimal>,
    instruments: FxHashMap<String, Instrument>,
    /// Open trades by symbol (one position per symbol).
    open: FxHashMap<String, Trade>,
    /// Set while a write to the store failed and the books wait for a reconciliation.
    out_of_sync: books::OutOfSync,
    /// Known that no open martingale chain waits for its next step: set when a look at the
    /// chains found none, cleared when a chain's trade closes, a chain starts, a command
    /// comes or the books are reconciled (each may leave a chain without an open trade), so
    /// the timers read the chains again only when something changed.
    no_waiting_chains: bool,
    /// Why the last signal acted on opened nothing (a backtest's parity run reads it).
    last_skip: Option<Skip>,
    /// When prices last came, and since when the venue fails (alerts).
    watch: watch::Watch,
    /// The protection check's state (the stops it expects).
    guard: guard::Guard,
    /// Why a circuit breaker keeps entries out, while one is tripped.
    breaker: Option<String>,
}

impl TradingWorker {
    /// A worker for `user_id` with the user's current settings. `known_signals` are the
    /// signals as they stand now: only a change after them is an entry.
    pub async fn new(
        user_id: i64,
        deps: TradingDeps,
        known_signals: impl IntoIterator<Item = (String, TradeSignal)>,
    ) -> Result<TradingWorker, EngineError> {
        let settings = deps
            .ledger
            .settings_or_default(user_id, chrono::Utc::now().timestamp_millis())
            .await?
            .settings;
        Ok(TradingWorker {
            user_id,
            deps,
            settings,
            signals: known_signals.into_iter().collect(),
            prices: FxHashMap::default(),
            instruments: FxHashMap::default(),
            open: FxHashMap::default(),
            out_of_sync: books::OutOfSync::default(),
            no_waiting_chains: false,
            last_skip: None,
            watch: watch::Watch::default(),
            guard: guard::Guard::default(),
            breaker: None,
        })
    }

    /// The worker's clock: its market's time (simulated time on the simulated market, the
    /// wall clock on Bybit's, the hand-moved time of a backtest). Every decision and every
    /// time in the books is on it, so the books and the prices they were made at share one
    /// clock and a replay of the same prices at the same times decides the same
    /// (docs/parity.md).
    pub fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.deps.market.now_ms()).unwrap_or_else(Utc::now)
    }

    /// Why the last signal [`on_signal`](Self::on_signal) acted on opened nothing (a
    /// limit, a forbidden window); `None` once read or when it opened a trade.
    pub fn take_last_skip(&mut self) -> Option<Skip> {
        self.last_skip.take()
    }

    pub fn settings(&self) -> &BotSettings {
        &self.settings
    }

    /// The open trades, by symbol.
    pub fn open_trades(&self) -> impl Iterator<Item = &Trade> {
        self.open.values()
    }

    /// Re-reads the settings (a settings change applies at the next decision).
    pub async fn reload_settings(&mut self) -> Result<(), EngineError> {
        self.settings = self
            .deps
            .ledger
            .settings_or_default(self.user_id, Utc::now().timestamp_millis())
            .await?
            .settings;
        Ok(())
    }

    pub async fn handle(&mut self, command: Command, now: DateTime<Utc>) {
        self.no_waiting_chains = false;
        match command {
            Command::Close { trade_id, reply } => {
                let _ = reply.send(self.close_trade(trade_id, now).await);
            }
            Command::CloseAll { reply } => {
                let _ = reply.send(self.close_all(now).await);
            }
            Command::SettingsChanged => {
                if let Err(e) = self.reload_settings().await {
                    self.error(&format!("Could not read the new settings: {e}"))
                        .await;
                }
            }
        }
    }

    /// Reconciles, then trades on the live inputs until `stop` is cancelled.
    pub async fn run(
        mut self,
        mut signals: broadcast::Receiver<StoredSignal>,
        mut commands: mpsc::Receiver<Command>,
        stop: CancellationToken,
    ) {
        // Subscribe first so nothing that happens during reconciliation is missed.
        let mut venue_events = self.deps.venue.subscribe();
        let mut market = self.deps.market.subscribe();
        self.reconcile(self.now()).await;
        let mut waiting_chains = tokio::time::interval(WAITING_CHAINS_EVERY);
        let mut resync = tokio::time::interval(RESYNC_EVERY);
        resync.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut feed_check = tokio::time::interval(self.feed_check_every());
        feed_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut venue_probe = tokio::time::interval(watch::VENUE_PROBE_EVERY);
        venue_probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let every = self.protection_every();
        let mut protection = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        protection.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut reconnects = self.deps.venue.reconnects();
        loop {
            let summary_due = self.next_daily_summary(Utc::now());
            tokio::select! {
                _ = stop.cancelled() => {
                    // What the venue did up to now is booked before the worker stops.
                    while let Ok(event) = venue_events.try_recv() {
                        self.on_venue_event(event, self.now()).await;
                    }
                    break;
                }
                _ = tokio::time::sleep(summary_due) => self.send_daily_summary(Utc::now()).await,
                received = signals.recv() => match received {
                    Ok(signal) => self.on_signal(&signal, self.now()).await,
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        self.warning(&format!("The trading worker missed {n} signals while busy")).await;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                received = venue_events.recv() => match received {
                    Ok(event) => self.on_venue_event(event, self.now()).await,
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        self.warning(&format!("Missed {n} venue events: reconciling")).await;
                        self.reconcile(self.now()).await;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                received = market.recv() => match received {
                    Ok(MarketEvent::Tick { symbol, price, .. }) => {
                        self.saw_price(&symbol);
                        self.on_tick(&symbol, price, self.now()).await;
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                Some(command) = commands.recv() => self.handle(command, self.now()).await,
                _ = waiting_chains.tick() => self.resume_waiting_chains(self.now()).await,
                _ = resync.tick() => self.resync(self.now()).await,
                _ = feed_check.tick() => self.check_feed(std::time::Instant::now()),
                _ = venue_probe.tick() => self.probe_venue().await,
                _ = protection.tick() => {
                    self.check_protection(self.now()).await;
                    // A breaker that ends with no signal coming clears its alert.
                    if self.breaker.is_some() {
                        self.circuit_breaker(self.now()).await;
                    }
                }
                connected = reconnected(&mut reconnects) => {
                    if connected {
                        self.check_protection(self.now()).await;
                    } else {
                        reconnects = None;
                    }
                }
            }
        }
    }

    /// What [`run`](Self::run) does on its timers, for a caller that drives the clock itself
    /// (a backtest): retries a reconciliation that failed, then takes up the martingale
    /// chains waiting for the end of a forbidden window.
    pub async fn on_clock(&mut self, now: DateTime<Utc>) {
        self.resync(now).await;
        self.resume_waiting_chains(now).await;
    }

    /// Whether [`on_clock`](Self::on_clock) has anything to do: a reconciliation to retry,
    /// or martingale chains that may be waiting for their next step.
    pub fn clock_due(&self) -> bool {
        self.out_of_sync.active || !self.no_waiting_chains
    }

    async fn instrument(&mut self, symbol: &str) -> Result<Instrument, EngineError> {
        if let Some(found) = self.instruments.get(symbol) {
            return Ok(found.clone());
        }
        let found = self.deps.venue.instrument(symbol).await?;
        self.instruments.insert(symbol.to_string(), found.clone());
        // A symbol this worker trades needs its ticks (take profits), rated or not.
        self.deps.market.watch(symbol);
        Ok(found)
    }

    /// The last price of `symbol` for a decision: the market's (its latest tick), else the
    /// last tick this worker saw.
    async fn price(&mut self, symbol: &str) -> Option<Decimal> {
        match self.deps.market.last_price(symbol).await {
            Ok(p) => {
                self.prices.insert(symbol.to_string(), p);
                Some(p)
            }
            Err(_) => self.prices.get(symbol).copied(),
        }
    }

    /// Puts a trade's stops on the venue: `stop_loss` (the settings' initial one when `None`)
    /// and the settings' trailing stop. Answers the stop loss placed.
    async fn place_stops(
        &mut self,
        trade: &Trade,
        stop_loss: Option<Decimal>,
    ) -> Result<Decimal, EngineError> {
        let instrument = self.instrument(&trade.symbol).await?;
        let entry = trade.entry_price.unwrap_or_default();
        let stop_loss = stop_loss.unwrap_or_else(|| {
            stop_loss_price(
                trade.side,
                entry,
                self.settings.initial_stop_loss_pct,
                &instrument,
            )
        });
        let trailing =
            trailing_plan(trade.side, entry, &self.settings, &instrument).map(|t| Trailing {
                distance: t.distance,
                activation_price: Some(t.activation_price),
            });
        let with_trailing = trailing.is_some();
        let stops = Stops {
            stop_loss: Some(stop_loss),
            take_profit: None,
            trailing,
        };
        self.deps.venue.set_stops(&trade.symbol, stops).await?;
        if with_trailing {
            self.trailing_placed(trade.id);
        }
        Ok(stop_loss)
    }

    /// Sends the account's state to the user's live clients.
    async fn publish_account(&self) {
        if !self.deps.bus.is_watched(self.user_id) {
            return;
        }
        let venue = &self.deps.venue;
        if let Ok(positions) = venue.positions().await {
            self.deps
                .bus
                .publish(self.user_id, UserEvent::Orders(positions));
        }
        if let Ok(wallet) = venue.wallet().await {
            self.deps
                .bus
                .publish(self.user_id, UserEvent::Balance(wallet));
        }
        if let Ok(stats) = live::statistics(
            &self.deps.store,
            self.deps.account_venue,
            venue.as_ref(),
            self.user_id,
            i64::MIN,
        )
        .await
        {
            self.deps
                .bus
                .publish(self.user_id, UserEvent::Statistics(stats));
        }
    }

    async fn info(&self, message: &str) {
        self.deps.journal.info(self.user_id, message).await;
    }

    async fn warning(&self, message: &str) {
        self.deps.journal.warning(self.user_id, message).await;
    }

    async fn error(&self, message: &str) {
        self.deps.journal.error(self.user_id, message).await;
    }
}

/// Waits for the venue's private stream to connect again: `true` then, `false` when the
/// venue is gone; never for a venue without a stream.
async fn reconnected(reconnects: &mut Option<tokio::sync::watch::Receiver<u64>>) -> bool {
    match reconnects {
        Some(rx) => rx.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}
