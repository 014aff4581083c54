//! The supervisor: one signal task and one trading task per user, run on this instance
//! while it holds the user's bot (`ownership`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use signaldesk_core::account::AccountVenue;
use signaldesk_store::StoredSignal;
use signaldesk_store::{RunFlags, SettingsRecord, Store};
use tokio::sync::{broadcast, mpsc, oneshot, Mutex};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::events::UserEvent;
use crate::journal::BotJournal;
use crate::metrics::{LeaseRenewal, Metrics};
use crate::notify::AlertKind;
use crate::ownership::{HeldLeases, Ownership};
use crate::paper::PaperRuntime;
use crate::remote::Remote;
use crate::signal_worker::{Alert, ALERT_QUEUE};
use crate::status::{not_trading, BotStatus, RunsOn, TradingConditions, WorkerState};
use crate::trading::{Command, SyncReport, TradingWorker};
use crate::workers::{run, WorkerContext, WorkerJob, WorkerKind};
use crate::EngineError;

mod forwarding;

pub use forwarding::COMMAND_POLL;

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
    /// Whether the trading worker's books wait for a reconciliation.
    sync: SyncReport,
}

impl Default for UserWorkers {
    fn default() -> Self {
        UserWorkers {
            signals: None,
            alerts: None,
            trading: None,
            commands: None,
            feed: broadcast::channel(SIGNAL_FEED).0,
            sync: SyncReport::default(),
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

/// This instance's hold on one user's bot (leased ownership only).
struct Tenure {
    token: i64,
    /// When the last renewal that succeeded was sent, on this process's monotonic clock.
    renewed_at: Instant,
    /// Parent of the user's worker tokens: cancelled the moment the tenure ends.
    stop: CancellationToken,
}

/// What the supervisor needs besides the workers' context.
pub(crate) struct SupervisorParts {
    pub ctx: WorkerContext,
    pub ownership: Ownership,
    pub held: Arc<HeldLeases>,
    pub paper: Option<Arc<PaperRuntime>>,
    pub stop: CancellationToken,
    pub tasks: TaskTracker,
    pub metrics: Metrics,
}

/// Starts, stops and resumes each user's workers: lifecycles only. Control calls for all
/// users are serialised by one lock: they are rare, and it keeps flag writes and task changes
/// in step. With leases, a user's workers run only under a tenure of this instance's; the
/// tenures are kept apart from that lock, so ending one never waits for a control call.
pub struct Supervisor {
    ctx: WorkerContext,
    workers: Mutex<HashMap<i64, UserWorkers>>,
    tenures: std::sync::Mutex<HashMap<i64, Tenure>>,
    ownership: Ownership,
    held: Arc<HeldLeases>,
    paper: Option<Arc<PaperRuntime>>,
    /// One standby (bot stopped) close at a time, so two cannot race on one position.
    standby: Mutex<()>,
    /// The engine's root token and tracker: every worker runs on them.
    stop: CancellationToken,
    tasks: TaskTracker,
    metrics: Metrics,
}

impl Supervisor {
    pub(crate) fn new(parts: SupervisorParts) -> Supervisor {
        Supervisor {
            ctx: parts.ctx,
            workers: Mutex::new(HashMap::new()),
            tenures: std::sync::Mutex::new(HashMap::new()),
            ownership: parts.ownership,
            held: parts.held,
            paper: parts.paper,
            standby: Mutex::new(()),
            stop: parts.stop,
            tasks: parts.tasks,
            metrics: parts.metrics,
        }
    }

    pub fn journal(&self) -> &BotJournal {
        &self.ctx.journal
    }

    /// How often the ownership loop runs [`maintain`](Self::maintain).
    pub fn poll_every(&self) -> std::time::Duration {
        match &self.ownership {
            Ownership::Sole => crate::ownership::POLL_EVERY,
            Ownership::Leased { timing, .. } => timing.poll_every,
        }
    }

    fn store(&self) -> &Store {
        &self.ctx.store
    }

    fn tenures(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Tenure>> {
        self.tenures.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The token the user's workers run under: the tenure's, or the root when sole.
    fn parent_token(&self, user_id: i64) -> Option<CancellationToken> {
        match self.ownership {
            Ownership::Sole => Some(self.stop.clone()),
            Ownership::Leased { .. } => self.tenures().get(&user_id).map(|t| t.stop.clone()),
        }
    }

    /// Makes this instance the one running the user's bot, unless another instance does:
    /// true when this one does (always, when sole). A new tenure takes in the user's paper
    /// account from the store first.
    async fn claim(&self, user_id: i64) -> Result<bool, EngineError> {
        let Ownership::Leased { holder, timing } = &self.ownership else {
            return Ok(true);
        };
        if self.tenures().contains_key(&user_id) {
            return Ok(true);
        }
        let began = Instant::now();
        let Some(lease) = self
            .store()
            .acquire_lease(user_id, holder, timing.ttl_ms())
            .await?
        else {
            return Ok(false);
        };
        // Held before the paper account comes in, so its writes are fenced by this tenure.
        self.held.insert(user_id, lease.token);
        if let Some(paper) = &self.paper {
            if let Err(e) = paper.adopt(user_id, lease.token).await {
                self.held.remove(user_id);
                let _ = self
                    .store()
                    .release_lease(user_id, holder, lease.token)
                    .await;
                return Err(e);
            }
        }
        self.tenures().insert(
            user_id,
            Tenure {
                token: lease.token,
                renewed_at: began,
                stop: self.stop.child_token(),
            },
        );
        tracing::info!(
            user_id,
            token = lease.token,
            "this instance runs the bot now"
        );
        self.ctx.alerts.clear(user_id, AlertKind::LeaseLost);
        Ok(true)
    }

    /// The tenure ended without this instance letting go (run out, taken over, or the
    /// database out of reach for too long): the user's workers stop at once and the user's
    /// paper account is forgotten here.
    fn lose(&self, user_id: i64, why: &str) {
        let Some(tenure) = self.tenures().remove(&user_id) else {
            return;
        };
        if why != "released" && why != "shutting down" {
            self.ctx.alerts.raise(
                user_id,
                AlertKind::LeaseLost,
                format!("This instance stopped running the bot: {why}."),
            );
        }
        tenure.stop.cancel();
        self.held.remove(user_id);
        if let Some(paper) = &self.paper {
            paper.retire(user_id, tenure.token);
        }
        self.metrics.bot_owned(user_id, false);
        tracing::warn!(
            user_id,
            token = tenure.token,
            why,
            "this instance stopped running the bot"
        );
    }

    /// Lets go of the user's bot when none of their workers runs here any more, after their
    /// paper account's last changes are written (otherwise the tenure stays, to try again).
    async fn release_if_idle(&self, map: &HashMap<i64, UserWorkers>, user_id: i64) {
        let Ownership::Leased { holder, .. } = &self.ownership else {
            return;
        };
        let busy = map.get(&user_id).is_some_and(|w| {
            w.signals.as_ref().is_some_and(Worker::is_running)
                || w.trading.as_ref().is_some_and(Worker::is_running)
        });
        let Some(token) = self.tenures().get(&user_id).map(|t| t.token) else {
            return;
        };
        if busy {
            return;
        }
        if let Some(paper) = &self.paper {
            if !paper.hand_back(user_id).await {
                return;
            }
        }
        if let Err(e) = self.store().release_lease(user_id, holder, token).await {
            tracing::warn!(user_id, error = %e, "could not release a lease; it will run out");
        }
        self.lose(user_id, "released");
    }

    async fn flush(&self) -> bool {
        match &self.paper {
            Some(paper) => paper.flush().await,
            None => true,
        }
    }

    /// One round of the ownership loop (leased only): renews every tenure held here, ends
    /// those that could not be renewed in time, then takes the bots whose flags are on and
    /// that nobody runs, and lets go of those whose flags are off.
    pub async fn maintain(&self) {
        let Ownership::Leased { holder, timing } = &self.ownership else {
            return;
        };
        let began = Instant::now();
        let renewal = tokio::time::timeout(timing.poll_every, async {
            // Unregistered (another process holds this instance id), the renewal below
            // renews nothing and every tenure here ends.
            crate::registration::renew(self.store(), holder, timing).await;
            self.store().renew_leases(holder, timing.ttl_ms()).await
        })
        .await;
        match renewal {
            Ok(Ok(renewed)) => {
                let mut lost = Vec::new();
                for (user_id, tenure) in self.tenures().iter_mut() {
                    if renewed.contains(&(*user_id, tenure.token)) {
                        tenure.renewed_at = began;
                        self.metrics.lease_renewal(LeaseRenewal::Ok);
                    } else {
                        lost.push(*user_id);
                    }
                }
                for user_id in lost {
                    self.metrics.lease_renewal(LeaseRenewal::Lost);
                    self.lose(user_id, "the lease ran out or another instance took it");
                }
            }
            Ok(Err(_)) | Err(_) => {
                let overdue: Vec<i64> = self
                    .tenures()
                    .iter()
                    .filter(|(_, t)| t.renewed_at.elapsed() >= timing.act_for())
                    .map(|(u, _)| *u)
                    .collect();
                for user_id in overdue {
                    self.lose(user_id, "the lease could not be renewed in time");
                }
                return;
            }
        }
        if let Err(e) = self.take_up_flags().await {
            tracing::warn!(error = %e, "could not read which bots should run");
        }
    }

    /// Runs here what the run flags ask for and this instance may run; stops what they no
    /// longer ask for.
    async fn take_up_flags(&self) -> Result<usize, EngineError> {
        let mut started = 0;
        let records = self.store().active_bots().await?;
        // Bots other instances run are not asked for, one failed acquire each, every round.
        let taken = match &self.ownership {
            Ownership::Sole => Default::default(),
            Ownership::Leased { holder, .. } => self.store().leases_held_elsewhere(holder).await?,
        };
        let mut map = self.workers.lock().await;
        let wanted: std::collections::HashSet<i64> = records.iter().map(|r| r.user_id).collect();
        let idle: Vec<i64> = map
            .keys()
            .copied()
            .filter(|u| !wanted.contains(u))
            .collect();
        for user_id in idle {
            Self::stop_worker(&mut map, WorkerKind::Signals, user_id).await;
            Self::stop_worker(&mut map, WorkerKind::Trading, user_id).await;
            self.mark_owned(&map, user_id);
            self.release_if_idle(&map, user_id).await;
        }
        for record in records {
            let user_id = record.user_id;
            if taken.contains(&user_id) {
                // Another instance runs the bot: it is not lost any more.
                self.ctx.alerts.clear(user_id, AlertKind::LeaseLost);
                continue;
            }
            if !self.claim(user_id).await? {
                continue;
            }
            if record.is_signals_fetching_active {
                started += usize::from(
                    self.ensure_running(&mut map, WorkerKind::Signals, user_id)
                        .await,
                );
            } else {
                Self::stop_worker(&mut map, WorkerKind::Signals, user_id).await;
            }
            if !record.is_bot_running {
                Self::stop_worker(&mut map, WorkerKind::Trading, user_id).await;
            } else {
                started += usize::from(
                    self.ensure_running(&mut map, WorkerKind::Trading, user_id)
                        .await,
                );
            }
            self.mark_owned(&map, user_id);
            self.release_if_idle(&map, user_id).await;
        }
        Ok(started)
    }

    async fn record(&self, user_id: i64) -> Result<SettingsRecord, EngineError> {
        Ok(self
            .store()
            .settings_or_default(user_id, chrono::Utc::now().timestamp_millis())
            .await?)
    }

    /// Starts the worker unless it runs; true when it was started. Nothing starts for a
    /// user this instance holds no tenure of.
    async fn ensure_running(
        &self,
        map: &mut HashMap<i64, UserWorkers>,
        kind: WorkerKind,
        user_id: i64,
    ) -> bool {
        let Some(parent) = self.parent_token(user_id) else {
            return false;
        };
        let workers = map.entry(user_id).or_default();
        if workers.slot(kind).as_ref().is_some_and(Worker::is_running) {
            return false;
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
                    sync: workers.sync.clone(),
                }
            }
        };
        let stop = parent.child_token();
        *workers.slot(kind) =
            Some(Worker::spawn(job, user_id, self.ctx.clone(), stop, &self.tasks).await);
        true
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

    /// Hands a webhook alert to the user's signal worker, here or on the instance running the
    /// bot. Fails when signal fetching is not running, or when the worker already has a full
    /// queue of alerts.
    pub async fn submit_alert(&self, user_id: i64, alert: Alert) -> Result<(), EngineError> {
        match self.submit_alert_here(user_id, alert.clone()).await {
            Err(EngineError::SignalsInactive) if !self.held.holds(user_id) => {
                if !self.record(user_id).await?.is_signals_fetching_active {
                    return Err(EngineError::SignalsInactive);
                }
                match self.tell_owner(user_id, &Remote::Alert(alert)).await {
                    Err(EngineError::RunsElsewhere) => Err(EngineError::SignalsInactive),
                    other => other,
                }
            }
            other => other,
        }
    }

    async fn submit_alert_here(&self, user_id: i64, alert: Alert) -> Result<(), EngineError> {
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
        self.store()
            .set_run_flags(
                user_id,
                RunFlags {
                    signals_active: Some(true),
                    ..RunFlags::default()
                },
            )
            .await?;
        // Another instance running the bot starts the worker on its next round.
        if self.claim(user_id).await? {
            self.ensure_running(&mut map, WorkerKind::Signals, user_id)
                .await;
        }
        self.mark_owned(&map, user_id);
        drop(map);
        self.publish_status(user_id).await
    }

    pub async fn stop_signals(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let record = self.record(user_id).await?;
        let mut map = self.workers.lock().await;
        self.store()
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
        self.release_if_idle(&map, user_id).await;
        drop(map);
        if record.is_bot_running {
            self.journal()
                .warning(user_id, "Signals stopped while the bot runs: no new entries until signals start again; open positions are still managed")
                .await;
        }
        self.publish_status(user_id).await
    }

    /// Starts signal fetching first when it is off, then the trading worker.
    pub async fn start_trading(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let record = self.record(user_id).await?;
        let mut map = self.workers.lock().await;
        let now = chrono::Utc::now().timestamp_millis();
        let started_at = match record.bot_started_at {
            Some(at) if record.is_bot_running => at,
            _ => now,
        };
        self.store()
            .set_run_flags(
                user_id,
                RunFlags {
                    signals_active: Some(true),
                    bot_running: Some(true),
                    started_at: Some(started_at),
                },
            )
            .await?;
        if self.claim(user_id).await? {
            self.ensure_running(&mut map, WorkerKind::Signals, user_id)
                .await;
            self.ensure_running(&mut map, WorkerKind::Trading, user_id)
                .await;
        }
        self.mark_owned(&map, user_id);
        drop(map);
        self.publish_status(user_id).await
    }

    pub async fn stop_trading(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        self.record(user_id).await?;
        let mut map = self.workers.lock().await;
        self.store()
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
        self.release_if_idle(&map, user_id).await;
        drop(map);
        self.publish_status(user_id).await
    }

    /// After a restart: starts the workers whose flags are on (with leases, those of the
    /// bots no other instance runs). Returns how many started.
    pub async fn resume(&self) -> Result<usize, EngineError> {
        let started = self.take_up_flags().await?;
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

    /// Lets go of every bot this instance runs, once the workers have stopped and the paper
    /// accounts are written, so other instances take them over at once.
    pub async fn release_all(&self) {
        let Ownership::Leased { holder, .. } = &self.ownership else {
            return;
        };
        let written = self.flush().await;
        let held: Vec<(i64, i64)> = self.tenures().iter().map(|(u, t)| (*u, t.token)).collect();
        for (user_id, token) in held {
            if written {
                if let Err(e) = self.store().release_lease(user_id, holder, token).await {
                    tracing::warn!(user_id, error = %e, "could not release a lease; it will run out");
                }
            }
            self.lose(user_id, "shutting down");
        }
        if let Err(e) = self.store().deregister_instance(holder).await {
            tracing::warn!(error = %e, "could not end this process's registration; it will run out");
        }
    }

    /// The users with a worker running in this process.
    pub async fn users_here(&self) -> Vec<i64> {
        let map = self.workers.lock().await;
        map.iter()
            .filter(|(_, w)| {
                w.signals.as_ref().is_some_and(Worker::is_running)
                    || w.trading.as_ref().is_some_and(Worker::is_running)
            })
            .map(|(u, _)| *u)
            .collect()
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

    /// Why this instance's trading worker of the user waits for a reconciliation, if it does.
    async fn out_of_sync(&self, user_id: i64) -> Option<String> {
        let map = self.workers.lock().await;
        map.get(&user_id)
            .filter(|w| w.trading.as_ref().is_some_and(Worker::is_running))
            .and_then(|w| w.sync.out_of_sync())
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
        let runs_on = self.runs_on(user_id).await?;
        let elsewhere = runs_on.as_ref().filter(|r| !r.here).map(|r| {
            if r.answering {
                WorkerState::Running
            } else if r.renewed_ms_ago >= self.act_for_ms() {
                // Its workers have stopped themselves by now (`maintain`).
                WorkerState::Stopped
            } else {
                WorkerState::Unknown
            }
        });
        let open_trades = self.store().count_open_trades(user_id).await?;
        let active_chains = self.store().open_chains(user_id).await?.len() as i64;
        let signal_worker =
            elsewhere.unwrap_or(self.worker_state(user_id, WorkerKind::Signals).await);
        let trading_worker =
            elsewhere.unwrap_or(self.worker_state(user_id, WorkerKind::Trading).await);
        let circuit_breaker = if record.is_bot_running {
            self.store()
                .open_alert(user_id, AlertKind::CircuitBreaker.as_str())
                .await?
                .map(|alert| alert.detail)
        } else {
            None
        };
        let not_trading = not_trading(&TradingConditions {
            is_bot_running: record.is_bot_running,
            is_signals_fetching_active: record.is_signals_fetching_active,
            trading_worker,
            settings: &record.settings,
            open_trades,
            active_chains,
            circuit_breaker,
            out_of_sync: self.out_of_sync(user_id).await,
            now: chrono::Utc::now(),
        });
        Ok(BotStatus {
            is_bot_running: record.is_bot_running,
            is_signals_fetching_active: record.is_signals_fetching_active,
            bot_mode: record.settings.bot_mode.as_str().to_string(),
            open_trades,
            active_chains,
            venue: self.ctx.accounts.venue_of(user_id).await?,
            started_at: record
                .bot_started_at
                .filter(|_| record.is_bot_running)
                .and_then(chrono::DateTime::from_timestamp_millis)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            signal_worker,
            trading_worker,
            runs_on,
            not_trading,
        })
    }

    fn act_for_ms(&self) -> i64 {
        match &self.ownership {
            Ownership::Sole => i64::MAX,
            Ownership::Leased { timing, .. } => {
                i64::try_from(timing.act_for().as_millis()).unwrap_or(i64::MAX)
            }
        }
    }

    /// The instance holding the user's lease now, read from the lease: how long ago it
    /// renewed tells a live owner from one that is gone and whose lease is running out.
    async fn runs_on(&self, user_id: i64) -> Result<Option<RunsOn>, EngineError> {
        let Ownership::Leased { holder, timing } = &self.ownership else {
            return Ok(None);
        };
        let Some(lease) = self.store().lease_state(user_id).await? else {
            return Ok(None);
        };
        if lease.expires_in_ms < 0 {
            return Ok(None);
        }
        let renewed_ms_ago = (timing.ttl_ms() - lease.expires_in_ms).max(0);
        let poll_ms = i64::try_from(timing.poll_every.as_millis()).unwrap_or(i64::MAX);
        let answering = renewed_ms_ago <= 2 * poll_ms;
        Ok(Some(RunsOn {
            here: lease.owner == holder.process,
            instance: lease.instance,
            answering,
            renewed_ms_ago,
            taken_over_within_ms: (!answering).then_some(lease.expires_in_ms + poll_ms),
        }))
    }

    /// The status, also sent live as `bot_status` to the user's clients.
    async fn publish_status(&self, user_id: i64) -> Result<BotStatus, EngineError> {
        let status = self.status(user_id).await?;
        self.ctx
            .bus
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
        let mut worker = self.ctx.trading_worker(user_id).await?;
        worker.reconcile(worker.now()).await;
        Ok(worker)
    }

    /// Closes one open trade at market, through the running worker, the instance running the
    /// bot, or, with the bot stopped, directly.
    pub async fn close_trade(
        &self,
        user_id: i64,
        trade_id: i64,
    ) -> Result<signaldesk_store::Trade, EngineError> {
        match self.close_trade_here(user_id, trade_id).await {
            Err(EngineError::RunsElsewhere) => {
                self.ask_owner(user_id, &Remote::Close { trade_id }).await?;
                self.store()
                    .trade(user_id, trade_id)
                    .await?
                    .ok_or(EngineError::TradeNotOpen)
            }
            other => other,
        }
    }

    async fn close_trade_here(
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
        self.claim_for_standby(user_id).await?;
        let mut worker = self.standby_worker(user_id).await?;
        let now = worker.now();
        let closed = worker.close_trade(trade_id, now).await;
        self.end_standby(user_id).await;
        closed
    }

    /// Closes every open trade of the user, here or on the instance running the bot; answers
    /// how many.
    pub async fn close_all(&self, user_id: i64) -> Result<usize, EngineError> {
        match self.close_all_here(user_id).await {
            Err(EngineError::RunsElsewhere) => {
                let closed = self.ask_owner(user_id, &Remote::CloseAll).await?;
                Ok(closed.as_u64().unwrap_or(0) as usize)
            }
            other => other,
        }
    }

    async fn close_all_here(&self, user_id: i64) -> Result<usize, EngineError> {
        if let Some(commands) = self.commands(user_id).await {
            let (reply, answer) = oneshot::channel();
            if commands.send(Command::CloseAll { reply }).await.is_ok() {
                return answer.await.map_err(|_| EngineError::WorkerGone)?;
            }
        }
        let _guard = self.standby.lock().await;
        self.claim_for_standby(user_id).await?;
        let mut worker = self.standby_worker(user_id).await?;
        let now = worker.now();
        let closed = worker.close_all(now).await;
        self.end_standby(user_id).await;
        closed
    }

    /// A close with the bot stopped here: this instance takes the bot for the close, unless
    /// another instance runs it.
    async fn claim_for_standby(&self, user_id: i64) -> Result<(), EngineError> {
        if self.claim(user_id).await? {
            Ok(())
        } else {
            Err(EngineError::RunsElsewhere)
        }
    }

    async fn end_standby(&self, user_id: i64) {
        let map = self.workers.lock().await;
        self.release_if_idle(&map, user_id).await;
    }

    /// The user saved settings: the running worker, here or on the instance running the bot,
    /// uses them from its next decision.
    pub async fn settings_changed(&self, user_id: i64) {
        if self.settings_changed_here(user_id).await || self.held.holds(user_id) {
            return;
        }
        if let Err(e) = self.tell_owner(user_id, &Remote::SettingsChanged).await {
            tracing::debug!(user_id, "no instance to tell of new settings: {e}");
        }
    }

    /// Tells the worker running here; false when none does.
    async fn settings_changed_here(&self, user_id: i64) -> bool {
        match self.commands(user_id).await {
            Some(commands) => commands.send(Command::SettingsChanged).await.is_ok(),
            None => false,
        }
    }

    /// The user's active key changed while their bot is stopped (a running bot refuses the
    /// change), from an account on `before`: a kept connection of the old key goes, and when
    /// the market changes with it a signal worker running here starts again on the new
    /// account's market, so the user's signals are always that market's.
    pub async fn account_changed(
        &self,
        user_id: i64,
        before: AccountVenue,
    ) -> Result<BotStatus, EngineError> {
        self.ctx.accounts.key_changed(user_id);
        let after = self.ctx.accounts.venue_of(user_id).await?;
        let mut map = self.workers.lock().await;
        let signals_here = map
            .get(&user_id)
            .and_then(|w| w.signals.as_ref())
            .is_some_and(Worker::is_running);
        if signals_here && before.exchange() != after.exchange() {
            Self::stop_worker(&mut map, WorkerKind::Signals, user_id).await;
            self.ensure_running(&mut map, WorkerKind::Signals, user_id)
                .await;
        }
        drop(map);
        self.publish_status(user_id).await
    }
}
