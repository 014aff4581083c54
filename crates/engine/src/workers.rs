//! The two per-user workers as tasks that run until cancelled: the signal worker (see
//! `signal_worker`) and the trading worker (see `trading`), which hears every signal the
//! signal worker stores through the user's signal feed.

use std::sync::Arc;

use signaldesk_core::signal::TradeSignal;
use signaldesk_store::{Store, StoredSignal};
use signaldesk_venue::market::MarketData;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use signaldesk_venue::Venue;

use crate::events::EventBus;
use crate::fence::FencedVenue;
use crate::journal::BotJournal;
use crate::ownership::HeldLeases;
use crate::signal_worker::{Alert, SignalWorker};
use crate::signals::RatingHub;
use crate::telegram::Notifier;
use crate::trading::{Command, TradingDeps, TradingWorker};
use crate::venues::Venues;

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
    pub hub: Arc<RatingHub>,
    pub bus: Arc<EventBus>,
    pub venues: Venues,
    pub market: Arc<dyn MarketData>,
    pub telegram: Notifier,
    pub held: Arc<HeldLeases>,
}

impl WorkerContext {
    /// What a trading worker needs; with leases its venue and its store are fenced by the
    /// tenure it starts under.
    pub fn trading_deps(&self, user_id: i64) -> TradingDeps {
        let venue = self.venues.account(user_id);
        let venue: Arc<dyn Venue> = match self.tenure(user_id) {
            None => venue,
            Some(token) => Arc::new(FencedVenue::new(venue, self.store.clone(), user_id, token)),
        };
        TradingDeps {
            store: self.store_for(user_id),
            journal: self.journal.clone(),
            bus: self.bus.clone(),
            venue,
            market: self.market.clone(),
            telegram: self.telegram.clone(),
        }
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

    /// The signals as they stand: the user's stored ones, then the hub's current ratings.
    pub async fn known_signals(&self, user_id: i64) -> Vec<(String, TradeSignal)> {
        let mut known: Vec<(String, TradeSignal)> = self
            .store
            .latest_signal_per_symbol(user_id)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s.symbol, TradeSignal::from_rating(&s.rating)))
            .collect();
        known.extend(self.hub.latest().into_iter().map(|r| {
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
    match job {
        WorkerJob::Signals { alerts, feed } => {
            SignalWorker {
                user_id,
                store: ctx.store_for(user_id),
                hub: ctx.hub,
                journal: ctx.journal,
                bus: ctx.bus,
                feed,
            }
            .run(alerts, stop)
            .await
        }
        WorkerJob::Trading { signals, commands } => {
            let known = ctx.known_signals(user_id).await;
            match TradingWorker::new(user_id, ctx.trading_deps(user_id), known).await {
                Ok(worker) => worker.run(signals, commands, stop).await,
                Err(e) => {
                    journal
                        .error(user_id, &format!("The trading worker could not start: {e}"))
                        .await
                }
            }
        }
    }
    journal
        .info(user_id, &format!("{} stopped", kind.label()))
        .await;
}
