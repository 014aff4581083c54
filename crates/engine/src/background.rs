//! The engine's background tasks: each kept until it ends or the engine stops, when it is
//! aborted (markets and hubs are loops with nothing to flush).

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

#[derive(Clone)]
pub struct Background {
    pub(crate) tasks: TaskTracker,
    pub(crate) stop: CancellationToken,
}

impl Background {
    pub fn new() -> Background {
        Background {
            tasks: TaskTracker::new(),
            stop: CancellationToken::new(),
        }
    }

    /// Tracks `task` until it ends or the engine stops.
    pub fn keep(&self, task: JoinHandle<()>) {
        self.tasks.spawn(until_cancelled(task, self.stop.clone()));
    }
}

impl Default for Background {
    fn default() -> Self {
        Background::new()
    }
}

async fn until_cancelled(mut task: JoinHandle<()>, stop: CancellationToken) {
    tokio::select! {
        _ = &mut task => {}
        _ = stop.cancelled() => {
            task.abort();
            let _ = task.await;
        }
    }
}
