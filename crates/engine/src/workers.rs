//! The two per-user workers as tasks that run until cancelled: the signal worker (see
//! `signal_worker`) and the trading worker (see `trading`), which hears every signal the
//! signal worker stores through the user's signal feed.

use std::sync::Arc;

use signaldesk_core::signal::TradeSignal;
use signaldesk_store::{Store, StoredSignal};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use signaldesk_venue::Venue;

use crate::accounts::{Accounts, Market};
use crate::events::EventBus;
use crate::fence::FencedVenue;
use crate::journal::BotJournal;
use crate::notify::{AlertKind, Alerts, Notifications};
use crate::ownership::HeldLeases;
use crate::signal_worker::{Alert, SignalWorker};
use crate::trading::{Command, SyncReport, TradingDeps, TradingWorker};
use crate::EngineError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerKind {
    Signals,
    Trading,
}

impl WorkerKind {
    pub fn label(self) -> &'static str {
        match self {
            WorkerKind::Signals => "Signal worker",
            WorkerKind::Trading => "Trading worker",
        }
    }
}

/// A worker to run, with what only that worker needs.
pub enum WorkerJob {
    Signals {
        alerts: mpsc::Receiver<Alert>,
        feed: broadcast::Sender<StoredSignal>,
    },
    Trading {
        signals: broadcast::Receiver<StoredSignal>,
        commands: mpsc::Receiver<Command>,
        /// Where the worker says whether its books are out of sync (the bot's status).
        sync: SyncReport,
    },
}

impl WorkerJob {
    pub fn kind(&self) -> WorkerKind {
        match self {
            WorkerJob::Signals { .. } => WorkerKind::Signals,
            WorkerJob::Trading { .. } => WorkerKind::Trading,
        }
    }
}

/// What every worker needs.
#[derive(Clone)]
pub struct WorkerContext {
    pub store: Store,
    pub journal: BotJournal,
    pub bus: Arc<EventBus>,
    pub accounts: Accounts,
    /// Trades, summaries and alerts to the user's notification channels.
    pub notices: Notifications,
    pub alerts: Alerts,
    /// Two signal intervals: no price for this long is a stale market feed.
    pub feed_stale_after: std::time::Duration,
    pub held: Arc<HeldLeases>,
}

impl WorkerContext {
    /// What a trading worker needs, on the user's account and its market as the active key
    /// says now (a key cannot change while the bot runs); with leases its venue and its
    /// store are fenced by the tenure it starts under. Also the market, for the signals
    /// known at the start.
    pub async fn trading_deps(
        &self,
        user_id: i64,
    ) -> Result<(TradingDeps, Arc<Market>), EngineError> {
        let account = self.accounts.of_user(user_id).await?;
        let venue: Arc<dyn Venue> = match self.tenure(user_id) {
            None => account.account,
            Some(token) => Arc::new(FencedVenue::new(
                account.account,
                self.store.clone(),
                user_id,
                token,
            )),
        };
        let store = self.store_for(user_id);
        let deps = TradingDeps {
            account_venue: account.venue,
            ledger: Arc::new(store.clone()),
            store,
            journal: self.journal.clone(),
            bus: self.bus.clone(),
            venue,
            market: account.market.data.clone(),
            notices: self.notices.clone(),
            alerts: self.alerts.clone(),
            feed_stale_after: self.feed_stale_after,
        };
        Ok((deps, account.market))
    }

    /// A trading worker on the user's account, knowing the signals as they stand.
    pub async fn trading_worker(&self, user_id: i64) -> Result<TradingWorker, EngineError> {
        let (deps, market) = self.trading_deps(user_id).await?;
        let known = self.known_signals(user_id, &market).await;
        TradingWorker::new(user_id, deps, known).await
    }

    /// With leases, the token of the user's tenure here (0, which no tenure has, when none is
    /// held: everything fenced by it is refused); `None` when this process is the only one.
    fn tenure(&self, user_id: i64) -> Option<i64> {
        (!self.held.is_sole()).then(|| self.held.token(user_id).unwrap_or(0))
    }

    /// The store a worker of the user writes through: fenced by the user's tenure here.
    pub fn store_for(&self, user_id: i64) -> Store {
        match self.tenure(user_id) {
            None => self.store.clone(),
            Some(token) => self.store.fenced(user_id, token),
        }
    }

    /// The signals as they stand: the user's stored ones, then their market's current
    /// ratings.
    async fn known_signals(&self, user_id: i64, market: &Market) -> Vec<(String, TradeSignal)> {
        let mut known: Vec<(String, TradeSignal)> = self
            .store
            .latest_signal_per_symbol(user_id)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s.symbol, TradeSignal::from_rating(&s.rating)))
            .collect();
        known.extend(market.hub.latest().into_iter().map(|r| {
            (
                r.symbol,
                TradeSignal::from_rating(r.rating.recommendation.as_str()),
            )
        }));
        known
    }
}

/// Runs one worker until `stop` is cancelled. The supervisor logs the start before spawning,
/// so starts appear in the order the supervisor made them.
pub async fn run(job: WorkerJob, user_id: i64, ctx: WorkerContext, stop: CancellationToken) {
    let kind = job.kind();
    let journal = ctx.journal.clone();
    let alerts = ctx.alerts.clone();
    ctx.notices.warm(user_id).await;
    let failed: Option<String> = match job {
        WorkerJob::Signals {
            alerts: alerts_in,
            feed,
        } => match ctx.accounts.market_of(user_id).await {
            Ok(market) => {
                SignalWorker {
                    user_id,
                    store: ctx.store_for(user_id),
                    hub: market.hub.clone(),
                    journal: ctx.journal,
                    bus: ctx.bus,
                    feed,
                }
                .run(alerts_in, stop.clone())
                .await;
                None
            }
            Err(e) => Some(format!("The signal worker could not start: {e}")),
        },
        WorkerJob::Trading {
            signals,
            commands,
            sync,
        } => match ctx.trading_worker(user_id).await {
            Ok(mut worker) => {
                worker.report_sync_to(sync);
                alerts.clear(user_id, AlertKind::WorkerStopped);
                worker.run(signals, commands, stop.clone()).await;
                None
            }
            Err(e) => Some(format!("The trading worker could not start: {e}")),
        },
    };
    let failed = failed.or_else(|| {
        (!stop.is_cancelled())
            .then(|| format!("The {} ended on its own.", kind.label().to_lowercase()))
    });
    if let Some(why) = failed {
        journal.error(user_id, &why).await;
        alerts.raise(user_id, AlertKind::WorkerStopped, why);
    }
    journal
        .info(user_id, &format!("{} stopped", kind.label()))
        .await;
}
