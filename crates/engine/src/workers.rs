//! The two per-user workers as tasks that run until cancelled. Their trading logic arrives
//! with the signal and trading issues; today they announce themselves, wait for the stop
//! signal and stop cleanly.

use tokio_util::sync::CancellationToken;

use crate::journal::BotJournal;

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

/// Runs one worker until `stop` is cancelled. The supervisor logs the start before spawning,
/// so starts appear in the order the supervisor made them.
pub async fn run_until_stopped(
    kind: WorkerKind,
    user_id: i64,
    journal: BotJournal,
    stop: CancellationToken,
) {
    stop.cancelled().await;
    journal
        .info(user_id, &format!("{} stopped", kind.label()))
        .await;
}
