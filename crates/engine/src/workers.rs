//! The two per-user workers as tasks that run until cancelled: the signal worker (see
//! `signals`), and the trading worker, whose trading logic arrives with the trading issue:
//! until then it holds its place, and stops cleanly.

use std::sync::Arc;

use signaldesk_store::Store;
use tokio_util::sync::CancellationToken;

use crate::journal::BotJournal;
use crate::signals::{run_signal_worker, RatingHub};

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

/// What every worker needs.
#[derive(Clone)]
pub struct WorkerContext {
    pub store: Store,
    pub journal: BotJournal,
    pub hub: Arc<RatingHub>,
}

/// Runs one worker until `stop` is cancelled. The supervisor logs the start before spawning,
/// so starts appear in the order the supervisor made them.
pub async fn run(kind: WorkerKind, user_id: i64, ctx: WorkerContext, stop: CancellationToken) {
    let journal = ctx.journal.clone();
    match kind {
        WorkerKind::Signals => {
            run_signal_worker(user_id, ctx.hub, ctx.store, ctx.journal, stop).await
        }
        WorkerKind::Trading => stop.cancelled().await,
    }
    journal
        .info(user_id, &format!("{} stopped", kind.label()))
        .await;
}
