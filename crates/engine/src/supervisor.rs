//! The supervisor: one signal task and one trading task per user.

use std::collections::HashMap;
use std::sync::Arc;

use signaldesk_store::StoredSignal;
use signaldesk_store::{RunFlags, SettingsRecord, Store};
use tokio::sync::{broadcast, mpsc, oneshot, Mutex};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::events::{EventBus, UserEvent};
use crate::journal::BotJournal;
use crate::metrics::Metrics;
use crate::signal_worker::{Alert, ALERT_QUEUE};
use crate::status::{BotStatus, WorkerState};
use crate::trading::{Command, TradingWorker};
use crate::workers::{run, WorkerContext, WorkerJob, WorkerKind};
use crate::EngineError;

struct Worker {
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Worker {
    /// Runs `job` on the engine's tracker until `stop` (a child of the engine's root token)
    /// is cancelled.
    async fn spawn(
        job: WorkerJob,
        user_id: i64,
        ctx: WorkerContext,
        stop: CancellationToken,
        tasks: &TaskTracker,
    ) -> Worker {
        ctx.journal
            .info(user_id, &format!("{} started", job.kind().label()))
            .await;
        let task = tasks.spawn(run(job, user_id, ctx, stop.clone()));
        Worker { stop, task }
    }

    fn is_running(&self) -> bool {
        !self.task.is_finished()
    }

    async fn stop(self) {
        self.stop.cancel();
        if let Err(e) = self.task.await {
            tracing::error!(error = %e, "a worker task failed while stopping");
        }
    }
}

/// Signals the signal worker stored, waiting for the trading worker to read them.
const SIGNAL_FEED: usize = 1024;
/// Close requests waiting for a busy trading worker.
const COMMAND_QUEUE: usize = 32;

struct UserWorkers {
    signals: Option<Worker>,
    /// Webhook alerts to the running signal worker.
    alerts: Option<mpsc::Sender<Alert>>,
    trading: Option<Worker>,
    /// Commands to the running trading worker.
    commands: Option<mpsc::Sender<Command>>,
    /// From the signal worker to the trading worker; lives as long as the user's entry.
    feed: broadcast::Sender<StoredSignal>,
}

impl Default for UserWorkers {
    fn default() -> Self {
        UserWorkers {
            signals: None,
            alerts: None,
            trading: None,
            commands: None,
            feed: broadcast::channel(SIGNAL_FEED).0,
        }
    }
}

impl UserWorkers {
    fn slot(&mut self, kind: WorkerKind) -> &mut Option<Worker> {
        match kind {
            WorkerKind::Signals => &mut self.signals,
            WorkerKind::Trading => &mut self.trading,
        }
    }
}

/// Starts, stops and resumes each user's workers: lifecycles only. Control calls for all
/// users are serialised by one lock: they are rare, and it keeps flag writes and task changes
/// in step.
pub struct Supervisor {
    store: Store,
    journal: BotJournal,
    ctx: WorkerContext,
    bus: Arc<EventBus>,
    workers: Mutex<HashMap<i64, UserWorkers>>,
    /// One standby (bot stopped) close at a time, so two cannot race on one position.
    standby: Mutex<()>,
    /// The engine's root token and tracker: every worker runs on them.
    stop: CancellationToken,
    tasks: TaskTracker,
    metrics: Metrics,
}

impl Supervisor {
    pub(crate) fn new(
        ctx: WorkerContext,
        stop: CancellationToken,
        tasks: TaskTracker,
        metrics: Metrics,
    ) -> Supervisor {
        Supervisor {
            store: ctx.store.clone(),
            journal: ctx.journal.clone(),
            bus: ctx.bus.clone(),
            ctx,
            workers: Mutex::new(HashMap::new()),
            standby: Mutex::new(()),
            stop,
            tasks,
            metrics,
        }
    }

    pub fn journal(&self) -> &BotJournal {
        &self.journal
    }

    async fn record(&self, user_id: i64) -> Result<SettingsRecord, EngineError> {
        Ok(self
            .store
            .settings_or_default(user_id, chrono::Utc::now().timestamp_millis())
            .await?)
    }

    async fn ensure_running(
        &self,
        map: &mut HashMap<i64, UserWorkers>,
        kind: WorkerKind,
        user_id: i64,
    ) {
        let workers = map.entry(user_id).or_default();
        if workers.slot(kind).as_ref().is_some_and(Worker::is_running) {
            return;
        }
        let job = match kind {
            WorkerKind::Signals => {
                let (tx, rx) = mpsc::channel(ALERT_QUEUE);
                workers.alerts = Some(tx);
                WorkerJob::Signals {
                    alerts: rx,
                    feed: workers.feed.clone(),
                }
            }
            WorkerKind::Trading => {
                let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
                workers.commands = Some(tx);
                WorkerJob::Trading {
                    signals: workers.feed.subscribe(),
                    commands: rx,
                }
            }
        };
        let stop = self.stop.child_token();
        *workers.slot(kind) =
            Some(Worker::spawn(job, user_id, self.ctx.clone(), stop, &self.tasks).await);
    }

    /// `signaldesk_bot_owned`: whether any of the user's workers is in this instance's hands.
    fn mark_owned(&self, map: &HashMap<i64, UserWorkers>, user_id: i64) {
        let owned = map
            .get(&user_id)
            .is_some_and(|w| w.signals.is_some() || w.trading.is_some());
        self.metrics.bot_owned(user_id, owned);
    }

    async fn stop_worker(map: &mut HashMap<i64, UserWorkers>, kind: WorkerKind, user_id: i64) {
        let Some(workers) = map.get_mut(&user_id) else {
            return;
        };
        match kind {
            WorkerKind::Signals => workers.alerts = None,
            WorkerKind::Trading => workers.commands = None,
        }
        if let Some(worker) = workers.slot(kind).take() {
            worker.stop().await;
        }
    }

    /// Hands a webhook alert to the user's signal worker. Fails when signal fetching is not
    /// running, or when the worker already has a full queue of alerts.
    pub async fn submit_alert(&self, user_id: i64, alert: Alert) -> Result<(), EngineError> {
        let map = self.workers.lock().await;
        let sender = map
            .get(&user_id)
            .filter(|w| w.signals.as_ref().is_some_and(Worker::is_running))
            .and_then(|w| w.alerts.as_ref())
            .ok_or(EngineError::SignalsInactive)?;
        sender.try_send(alert).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => EngineError::Busy,
            mpsc::error::TrySendError::Closed(_) => EngineError::SignalsInactive,
        })
    }

    pub async fn start_signals(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        self.record(user_id).await?;
        let mut map = self.workers.lock().await;
        self.store
            .set_run_flags(
                user_id,
                RunFlags {
                    signals_active: Some(true),
                    ..RunFlags::default()
                },
            )
            .await?;
        self.ensure_running(&mut map, WorkerKind::Signals, user_id)
            .await;
        self.mark_owned(&map, user_id);
        drop(map);
        self.publish_status(user_id).await
    }

    pub async fn stop_signals(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let record = self.record(user_id).await?;
        let mut map = self.workers.lock().await;
        self.store
            .set_run_flags(
                user_id,
                RunFlags {
                    signals_active: Some(false),
                    ..RunFlags::default()
                },
            )
            .await?;
        Self::stop_worker(&mut map, WorkerKind::Signals, user_id).await;
        self.mark_owned(&map, user_id);
        drop(map);
        if record.is_bot_running {
            self.journal
                .warning(user_id, "Signals stopped while the bot runs: no new entries until signals start again; open positions are still managed")
                .await;
        }
        self.publish_status(user_id).await
    }

    /// Starts signal fetching first when it is off, then the trading worker.
    pub async fn start_trading(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let record = self.record(user_id).await?;
        if self.store.active_api_key(user_id).await?.is_none() {
            return Err(EngineError::NoActiveKey);
        }
        let mut map = self.workers.lock().await;
        let now = chrono::Utc::now().timestamp_millis();
        let started_at = match record.bot_started_at {
            Some(at) if record.is_bot_running => at,
            _ => now,
        };
        self.store
            .set_run_flags(
                user_id,
                RunFlags {
                    signals_active: Some(true),
                    bot_running: Some(true),
                    started_at: Some(started_at),
                },
            )
            .await?;
        self.ensure_running(&mut map, WorkerKind::Signals, user_id)
            .await;
        self.ensure_running(&mut map, WorkerKind::Trading, user_id)
            .await;
        self.mark_owned(&map, user_id);
        drop(map);
        self.publish_status(user_id).await
    }

    pub async fn stop_trading(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        self.record(user_id).await?;
        let mut map = self.workers.lock().await;
        self.store
            .set_run_flags(
                user_id,
                RunFlags {
                    bot_running: Some(false),
                    ..RunFlags::default()
                },
            )
            .await?;
        Self::stop_worker(&mut map, WorkerKind::Trading, user_id).await;
        self.mark_owned(&map, user_id);
        drop(map);
        self.publish_status(user_id).await
    }

    /// After a restart: starts the workers whose flags are on. Returns how many started.
    pub async fn resume(&self) -> Result<usize, EngineError> {
        let mut started = 0;
        for record in self.store.active_bots().await? {
            let user_id = record.user_id;
            let mut map = self.workers.lock().await;
            if record.is_signals_fetching_active {
                self.ensure_running(&mut map, WorkerKind::Signals, user_id)
                    .await;
                self.mark_owned(&map, user_id);
                started += 1;
            }
            if record.is_bot_running {
                if self.store.active_api_key(user_id).await?.is_some() {
                    self.ensure_running(&mut map, WorkerKind::Trading, user_id)
                        .await;
                    self.mark_owned(&map, user_id);
                    started += 1;
                } else {
                    self.store
                        .set_run_flags(
                            user_id,
                            RunFlags {
                                bot_running: Some(false),
                                ..RunFlags::default()
                            },
                        )
                        .await?;
                    self.journal
                        .error(user_id, "The bot was running before the restart but has no active API key now: it stays stopped")
                        .await;
                }
            }
        }
        if started > 0 {
            tracing::info!(workers = started, "resumed workers after restart");
        }
        Ok(started)
    }

    /// Stops every task without touching the flags, so the next start resumes them.
    pub async fn shutdown(&self) {
        let mut map = self.workers.lock().await;
        let mut all = Vec::new();
        for (user_id, workers) in map.drain() {
            all.extend([workers.signals, workers.trading].into_iter().flatten());
            self.metrics.bot_owned(user_id, false);
        }
        drop(map);
        for worker in all {
            worker.stop().await;
        }
    }

    /// How many signal workers and trading workers run in this process (`/metrics`).
    pub async fn running_workers(&self) -> (usize, usize) {
        let map = self.workers.lock().await;
        let count = |slot: fn(&UserWorkers) -> &Option<Worker>| {
            map.values()
                .filter(|w| slot(w).as_ref().is_some_and(Worker::is_running))
                .count()
        };
        (count(|w| &w.signals), count(|w| &w.trading))
    }

    /// Whether the user's trading worker is running in this process.
    pub async fn is_trading(&self, user_id: i64) -> bool {
        self.worker_state(user_id, WorkerKind::Trading).await == WorkerState::Running
    }

    async fn worker_state(&self, user_id: i64, kind: WorkerKind) -> WorkerState {
        let mut map = self.workers.lock().await;
        let running = map
            .get_mut(&user_id)
            .and_then(|w| w.slot(kind).as_ref().map(Worker::is_running))
            .unwrap_or(false);
        if running {
            WorkerState::Running
        } else {
            WorkerState::Stopped
        }
    }

    pub async fn status(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let record = self.record(user_id).await?;
        Ok(BotStatus {
            is_bot_running: record.is_bot_running,
            is_signals_fetching_active: record.is_signals_fetching_active,
            bot_mode: record.settings.bot_mode.as_str().to_string(),
            open_trades: self.store.count_open_trades(user_id).await?,
            active_chains: self.store.open_chains(user_id).await?.len() as i64,
            venue: self.ctx.venues.name(),
            started_at: record
                .bot_started_at
                .filter(|_| record.is_bot_running)
                .and_then(chrono::DateTime::from_timestamp_millis)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            signal_worker: self.worker_state(user_id, WorkerKind::Signals).await,
            trading_worker: self.worker_state(user_id, WorkerKind::Trading).await,
        })
    }

    /// The status, also sent live as `bot_status` to the user's clients.
    async fn publish_status(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let status = self.status(user_id).await?;
        self.bus
            .publish(user_id, UserEvent::BotStatus(status.clone()));
        Ok(status)
    }

    /// The running trading worker's command queue, if the bot runs.
    async fn commands(&self, user_id: i64) -> Option<mpsc::Sender<Command>> {
        let map = self.workers.lock().await;
        map.get(&user_id)
            .filter(|w| w.trading.as_ref().is_some_and(Worker::is_running))
            .and_then(|w| w.commands.clone())
    }

    /// A worker for one request while the bot is stopped: it reconciles, then acts.
    async fn standby_worker(&self, user_id: i64) -> Result<TradingWorker, EngineError> {
        let known = self.ctx.known_signals(user_id).await;
        let mut worker = TradingWorker::new(user_id, self.ctx.trading_deps(user_id), known).await?;
        worker.reconcile(chrono::Utc::now()).await;
        Ok(worker)
    }

    /// Closes one open trade at market, through the running worker or, with the bot
    /// stopped, directly.
    pub async fn close_trade(
        &self,
        user_id: i64,
        trade_id: i64,
    ) -> Result<signaldesk_store::Trade, EngineError> {
        if let Some(commands) = self.commands(user_id).await {
            let (reply, answer) = oneshot::channel();
            if commands
                .send(Command::Close { trade_id, reply })
                .await
                .is_ok()
            {
                return answer.await.map_err(|_| EngineError::WorkerGone)?;
            }
        }
        let _guard = self.standby.lock().await;
        self.standby_worker(user_id)
            .await?
            .close_trade(trade_id, chrono::Utc::now())
            .await
    }

    /// Closes every open trade of the user; answers how many.
    pub async fn close_all(&self, user_id: i64) -> Result<usize, EngineError> {
        if let Some(commands) = self.commands(user_id).await {
            let (reply, answer) = oneshot::channel();
            if commands.send(Command::CloseAll { reply }).await.is_ok() {
                return answer.await.map_err(|_| EngineError::WorkerGone)?;
            }
        }
        let _guard = self.standby.lock().await;
        self.standby_worker(user_id)
            .await?
            .close_all(chrono::Utc::now())
            .await
    }

    /// The user saved settings: the running worker uses them from its next decision.
    pub async fn settings_changed(&self, user_id: i64) {
        if let Some(commands) = self.commands(user_id).await {
            let _ = commands.send(Command::SettingsChanged).await;
        }
    }
}
