//! The two per-user workers as tasks that run until cancelled: the signal worker (see
//! `signal_worker`), and the trading worker, whose trading logic arrives with the trading
//! issue: until then it holds its place, and stops cleanly.

use std::sync::Arc;

use signaldesk_store::Store;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::events::EventBus;
use crate::journal::BotJournal;
use crate::signal_worker::{Alert, SignalWorker};
use crate::signals::RatingHub;

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
    Signals { alerts: mpsc::Receiver<Alert> },
    Trading,
}

impl WorkerJob {
    pub fn kind(&self) -> WorkerKind {
        match self {
            WorkerJob::Signals { .. } => WorkerKind::Signals,
            WorkerJob::Trading => WorkerKind::Trading,
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
}

/// Runs one worker until `stop` is cancelled. The supervisor logs the start before spawning,
/// so starts appear in the order the supervisor made them.
pub async fn run(job: WorkerJob, user_id: i64, ctx: WorkerContext, stop: CancellationToken) {
    let kind = job.kind();
    let journal = ctx.journal.clone();
    match job {
        WorkerJob::Signals { alerts } => {
            SignalWorker {
                user_id,
                hub: ctx.hub,
                store: ctx.store,
                journal: ctx.journal,
                bus: ctx.bus,
            }
            .run(alerts, stop)
            .await
        }
        WorkerJob::Trading => stop.cancelled().await,
    }
    journal
        .info(user_id, &format!("{} stopped", kind.label()))
        .await;
}
