//! Backtests the API started, run in the background. Each runs on a thread of its own (a
//! backtest is all computation: on the server's runtime it would hold up the live bots),
//! at most `max_backtest_jobs` at once across the process; the others wait their turn as
//! `running` with no progress. While one runs, a task on the server's runtime writes its
//! progress about every second (the heartbeat other instances read) and stops it once the
//! row says it was cancelled or deleted.

use std::sync::Arc;
use std::time::Duration;

use signaldesk_backtest::sweep::sweep;
use signaldesk_backtest::walk_forward::walk_forward;
use signaldesk_backtest::{
    yield_to_the_live_bots, BacktestError, Checked, History, Market, Progress, ScriptedSignal,
};
use signaldesk_store::{BacktestRecord, Store, StoreError};
use tokio::sync::{oneshot, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::view::{BacktestResult, SweepResult, WalkForwardResult, MAX_TRADES_KEPT};

const HEARTBEAT: Duration = Duration::from_secs(1);
const SERVER_STOPPED: &str = "The server stopped before the backtest finished.";

pub struct BacktestJobs {
    store: Store,
    market: Market,
    permits: Arc<Semaphore>,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl BacktestJobs {
    pub fn new(store: Store, market: Market, max_jobs: usize) -> Arc<BacktestJobs> {
        Arc::new(BacktestJobs {
            store,
            market,
            permits: Arc::new(Semaphore::new(max_jobs.max(1))),
            stop: CancellationToken::new(),
            tasks: TaskTracker::new(),
        })
    }

    /// Records the user's backtest and starts it; [`StoreError::Conflict`] while another
    /// of theirs runs.
    pub async fn start(
        self: &Arc<Self>,
        user_id: i64,
        checked: Checked,
        request_json: &str,
    ) -> Result<BacktestRecord, StoreError> {
        let record = self.store.start_backtest(user_id, request_json).await?;
        let jobs = self.clone();
        let id = record.id;
        self.tasks.spawn(async move {
            let ended = jobs.drive(id, user_id, checked).await;
            let written = match ended {
                Ok(Some(json)) => jobs.store.finish_backtest(id, Ok(&json)).await,
                // Cancelled or deleted: the row already says so.
                Ok(None) => Ok(true),
                Err(why) => jobs.store.finish_backtest(id, Err(&why)).await,
            };
            if let Err(e) = written {
                tracing::warn!(backtest = id, error = %e, "could not record a backtest's end; it will show as failed");
            }
        });
        Ok(record)
    }

    /// Stops every running job (the server is stopping), each recorded as failed, waiting
    /// up to 5 s for those records.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        self.tasks.close();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.tasks.wait()).await;
    }

    /// Waits for a turn, runs the backtest (or the sweep) on its own thread with the
    /// heartbeat beside it; answers its result's JSON. `Ok(None)`: cancelled or deleted;
    /// `Err`: why it failed.
    async fn drive(
        &self,
        id: i64,
        user_id: i64,
        checked: Checked,
    ) -> Result<Option<String>, String> {
        let permit = loop {
            tokio::select! {
                permit = self.permits.clone().acquire_owned() => {
                    break permit.map_err(|e| e.to_string())?;
                }
                _ = self.stop.cancelled() => return Err(SERVER_STOPPED.into()),
                _ = tokio::time::sleep(HEARTBEAT) => {
                    if !self.beat(id, 0.0).await {
                        return Ok(None);
                    }
                }
            }
        };
        // The store is read here, on the server's runtime; the thread only computes.
        let alerts = checked
            .alerts(&self.store, user_id)
            .await
            .map_err(|e| e.to_string())?;
        let stored = checked
            .stored(&self.market, &self.store)
            .await
            .map_err(|e| e.to_string())?;
        let progress = Arc::new(Progress::default());
        let (done, outcome) = oneshot::channel();
        let market = self.market.clone();
        let shared = progress.clone();
        std::thread::Builder::new()
            .name(format!("backtest-{id}"))
            .spawn(move || {
                let _permit = permit;
                yield_to_the_live_bots();
                let _ = done.send(compute(checked, &market, stored, alerts, &shared));
            })
            .map_err(|e| e.to_string())?;
        let mut outcome = std::pin::pin!(outcome);
        loop {
            tokio::select! {
                ended = &mut outcome => {
                    return match ended {
                        Ok(Ok(json)) => Ok(Some(json)),
                        Ok(Err(BacktestError::Cancelled)) if !self.stop.is_cancelled() => Ok(None),
                        Ok(Err(BacktestError::Cancelled)) => Err(SERVER_STOPPED.into()),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(_) => Err("The backtest stopped unexpectedly.".into()),
                    };
                }
                _ = self.stop.cancelled(), if !progress.is_cancelled() => progress.cancel(),
                _ = tokio::time::sleep(HEARTBEAT) => {
                    if !self.beat(id, progress.share()).await {
                        progress.cancel();
                    }
                }
            }
        }
    }

    /// Writes the progress; false once the backtest no longer runs. A database that does not
    /// answer is no reason to stop: the next beat tries again.
    async fn beat(&self, id: i64, share: f64) -> bool {
        match self.store.backtest_progress(id, share).await {
            Ok(running) => running,
            Err(e) => {
                tracing::warn!(backtest = id, error = %e, "could not write a backtest's progress");
                true
            }
        }
    }
}

/// The run, the sweep or the walk-forward `checked` asks for, as its result's JSON: a sweep
/// (and a walk-forward's training runs) on every core,
/// its threads as low in priority as the run's.
fn compute(
    checked: Checked,
    market: &Market,
    stored: Option<History>,
    alerts: Option<Vec<ScriptedSignal>>,
    progress: &Progress,
) -> Result<String, BacktestError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let axes = checked.sweep.clone();
    let walk = checked.walk_forward.clone();
    let tz = checked.settings.timezone();
    let backtest = runtime.block_on(checked.build(market, stored, alerts))?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let json = if let Some((plan, layout)) = walk {
        let outcome = walk_forward(&backtest, &axes, &plan, &layout, tz, threads, progress)?;
        serde_json::to_string(&WalkForwardResult::of(
            &backtest, &axes, &plan, &layout, outcome,
        ))
    } else if axes.is_empty() {
        let outcome = backtest.run_on_a_core(progress)?;
        serde_json::to_string(&BacktestResult::of(&backtest, outcome, MAX_TRADES_KEPT))
    } else {
        let cells = sweep(&backtest, &axes, threads, progress)?;
        serde_json::to_string(&SweepResult::of(&backtest, &axes, cells))
    };
    json.map_err(|e| BacktestError::Data(format!("the result could not be written: {e}")))
}
