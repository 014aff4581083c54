//! The engine's one handle: it owns the market, the venues, the rating hub, the event bus and
//! the [`Supervisor`] of the workers, and it is the server's only way in. Every task the
//! engine starts is tracked by one [`TaskTracker`] and ends with one root
//! [`CancellationToken`]; [`Engine::shutdown`] stops them in the order the books need.

use std::path::PathBuf;
use std::sync::Arc;

use signaldesk_core::settings::BotSettings;
use signaldesk_core::stats::LiveStatistics;
use signaldesk_store::{SecretCipher, SettingsRecord, Store};
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::PaperExchange;
use signaldesk_venue::{Position, Wallet};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::events::EventBus;
use crate::journal::BotJournal;
use crate::market::{start_market, MarketConfig};
use crate::metrics::Metrics;
use crate::ownership::{HeldLeases, Ownership};
use crate::paper::{PaperRuntime, PaperSettings};
use crate::signals::RatingHub;
use crate::status::VenueName;
use crate::supervisor::{Supervisor, SupervisorParts, COMMAND_POLL};
use crate::telegram::{Notifier, TelegramConfig};
use crate::venues::{BybitAccounts, BybitSettings, PaperVenue, Venues};
use crate::workers::WorkerContext;
use crate::{snapshots, EngineError};

/// Where the engine trades.
pub enum VenueChoice {
    /// The built-in paper exchange on the market, its accounts kept in the store.
    Paper(PaperSettings),
    /// Bybit V5 with each user's active key, decrypted with the cipher.
    Bybit(BybitSettings, Arc<SecretCipher>),
}

/// What [`Engine::start`] needs.
pub struct EngineOptions {
    pub market: MarketConfig,
    pub venue: VenueChoice,
    pub telegram: TelegramConfig,
    /// Where the simulated market keeps its anchor.
    pub data_dir: PathBuf,
    /// Where the engine's series go (the server's `/metrics`).
    pub metrics: Metrics,
    /// Whether this process runs every bot or only those whose lease it holds.
    pub ownership: Ownership,
}

/// What an engine is made of, however it was started.
struct Parts {
    store: Store,
    venues: Venues,
    market: Arc<dyn MarketData>,
    hub: Arc<RatingHub>,
    telegram: Notifier,
    metrics: Metrics,
    ownership: Ownership,
    held: Arc<HeldLeases>,
    paper: Option<Arc<PaperRuntime>>,
}

pub struct Engine {
    store: Store,
    bus: Arc<EventBus>,
    hub: Arc<RatingHub>,
    venues: Venues,
    market: Arc<dyn MarketData>,
    supervisor: Supervisor,
    paper: Option<Arc<PaperRuntime>>,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Engine {
    /// Starts the market, the venue and the ratings, resumes the bots whose flags are on and
    /// records balances every 5 minutes.
    pub async fn start(options: EngineOptions, store: Store) -> Result<Arc<Engine>, EngineError> {
        let stop = CancellationToken::new();
        let tasks = TaskTracker::new();
        let market = start_market(&options.market, &options.data_dir).await?;
        tasks.spawn(until_cancelled(market.task, stop.clone()));
        let held = HeldLeases::new(&options.ownership);
        let (venues, paper) = match options.venue {
            VenueChoice::Paper(settings) => {
                let paper = PaperRuntime::start(
                    market.data.clone(),
                    &settings,
                    store.clone(),
                    held.clone(),
                )
                .await?;
                let venue = PaperVenue::new(paper.exchange.clone(), held.clone(), store.clone());
                (Venues::Paper(venue), Some(Arc::new(paper)))
            }
            VenueChoice::Bybit(settings, cipher) => (
                Venues::Bybit(BybitAccounts::new(store.clone(), cipher, settings)),
                None,
            ),
        };
        let (hub, hub_task) = RatingHub::start(
            market.data.clone(),
            options.market.universe(),
            options.market.interval_minutes,
        )
        .await?;
        tasks.spawn(until_cancelled(hub_task, stop.clone()));
        let leased = matches!(options.ownership, Ownership::Leased { .. });
        let engine = Engine::with_parts(
            Parts {
                store,
                venues,
                market: market.data,
                hub,
                telegram: Notifier::start(options.telegram),
                metrics: options.metrics,
                ownership: options.ownership,
                held,
                paper,
            },
            stop,
            tasks,
        );
        let resumed = engine.supervisor.resume().await;
        if let Err(e) = resumed {
            engine.shutdown().await;
            return Err(e);
        }
        if leased {
            engine.tasks.spawn(maintain_leases(engine.clone()));
            engine.tasks.spawn(take_requests(engine.clone()));
        }
        engine.tasks.spawn(snapshots::run(
            engine.store.clone(),
            engine.venues.clone(),
            engine.stop.clone(),
        ));
        Ok(engine)
    }

    /// An engine over parts made elsewhere (tests): no market task, no snapshots, nothing
    /// resumed until asked.
    pub fn assemble(
        store: Store,
        venues: Venues,
        market: Arc<dyn MarketData>,
        hub: Arc<RatingHub>,
        telegram: Notifier,
        metrics: Metrics,
    ) -> Arc<Engine> {
        Engine::with_parts(
            Parts {
                store,
                venues,
                market,
                hub,
                telegram,
                metrics,
                ownership: Ownership::Sole,
                held: HeldLeases::sole(),
                paper: None,
            },
            CancellationToken::new(),
            TaskTracker::new(),
        )
    }

    fn with_parts(parts: Parts, stop: CancellationToken, tasks: TaskTracker) -> Arc<Engine> {
        let Parts {
            store,
            venues,
            market,
            hub,
            telegram,
            metrics,
            ownership,
            held,
            paper,
        } = parts;
        let bus = EventBus::new();
        let journal = BotJournal::new(store.clone(), bus.clone());
        let ctx = WorkerContext {
            store: store.clone(),
            journal,
            hub: hub.clone(),
            bus: bus.clone(),
            venues: venues.clone(),
            market: market.clone(),
            telegram,
            held: held.clone(),
        };
        Arc::new(Engine {
            supervisor: Supervisor::new(SupervisorParts {
                ctx,
                ownership,
                held,
                paper: paper.clone(),
                stop: stop.clone(),
                tasks: tasks.clone(),
                metrics,
            }),
            store,
            bus,
            hub,
            venues,
            market,
            paper,
            stop,
            tasks,
        })
    }

    /// Starts and stops each user's workers.
    pub fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    pub fn bus(&self) -> &Arc<EventBus> {
        &self.bus
    }

    pub fn hub(&self) -> &Arc<RatingHub> {
        &self.hub
    }

    pub fn journal(&self) -> &BotJournal {
        self.supervisor.journal()
    }

    pub fn market(&self) -> &Arc<dyn MarketData> {
        &self.market
    }

    pub fn venue_name(&self) -> VenueName {
        self.venues.name()
    }

    /// The paper exchange, when it is the venue.
    pub fn paper_exchange(&self) -> Option<Arc<PaperExchange>> {
        match &self.venues {
            Venues::Paper(paper) => Some(paper.exchange.clone()),
            Venues::Bybit(_) => None,
        }
    }

    /// The user's wallet on the venue.
    pub async fn wallet(&self, user_id: i64) -> Result<Wallet, EngineError> {
        Ok(self.venues.account(user_id).wallet().await?)
    }

    /// The user's open positions on the venue.
    pub async fn positions(&self, user_id: i64) -> Result<Vec<Position>, EngineError> {
        Ok(self.venues.account(user_id).positions().await?)
    }

    /// The live statistics of all the user's closed trades.
    pub async fn statistics(&self, user_id: i64) -> Result<LiveStatistics, EngineError> {
        self.statistics_since(user_id, i64::MIN).await
    }

    /// The live statistics of the user's trades closed since `from_ms`.
    pub async fn statistics_since(
        &self,
        user_id: i64,
        from_ms: i64,
    ) -> Result<LiveStatistics, EngineError> {
        let venue = self.venues.account(user_id);
        crate::live::statistics(&self.store, venue.as_ref(), user_id, from_ms).await
    }

    /// Records every user's balance at `now`; answers how many accounts were recorded.
    pub async fn record_balance_snapshots(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<usize, EngineError> {
        snapshots::record(&self.store, &self.venues, now).await
    }

    /// Saves the user's settings record `id`; a running bot uses them from its next decision.
    pub async fn update_settings(
        &self,
        user_id: i64,
        id: i64,
        settings: &BotSettings,
        now_ms: i64,
    ) -> Result<SettingsRecord, EngineError> {
        let record = self
            .store
            .update_settings(user_id, id, settings, now_ms)
            .await?;
        self.supervisor.settings_changed(user_id).await;
        Ok(record)
    }

    /// On Bybit a key must work before it trades: one cheap authenticated call with the
    /// user's key `key_id` (the active key when `None`); the paper exchange takes any pair,
    /// and a missing key is left to the caller's own rule.
    pub async fn check_api_key(
        &self,
        user_id: i64,
        key_id: Option<i64>,
    ) -> Result<(), EngineError> {
        match &self.venues {
            Venues::Paper(_) => Ok(()),
            Venues::Bybit(accounts) => accounts.check_key_of(user_id, key_id).await,
        }
    }

    /// Stops every task without touching the run flags, so the next start resumes them. The
    /// paper exchange stops following the market first, so the workers book everything it
    /// did before they stop and the books equal the accounts at rest; then its last changes
    /// are written, and only then are the leases let go, so the next owner reads them.
    pub async fn shutdown(&self) {
        if let Some(paper) = &self.paper {
            paper.halt_feed();
        }
        self.supervisor.shutdown().await;
        if let Some(paper) = &self.paper {
            paper.stop().await;
        }
        self.supervisor.release_all().await;
        self.stop.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }
}

/// The ownership loop: a round every `POLL_EVERY` until the engine stops.
async fn maintain_leases(engine: Arc<Engine>) {
    let mut rounds = tokio::time::interval(engine.supervisor.poll_every());
    rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = engine.stop.cancelled() => return,
            _ = rounds.tick() => engine.supervisor.maintain().await,
        }
    }
}

/// Carries out what other instances ask of the bots this one runs, until the engine stops.
async fn take_requests(engine: Arc<Engine>) {
    let mut rounds = tokio::time::interval(COMMAND_POLL);
    rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = engine.stop.cancelled() => return,
            _ = rounds.tick() => engine.supervisor.run_commands().await,
        }
    }
}

/// Runs until `task` ends or `stop` is cancelled, which aborts it: the market and the hub
/// are loops with nothing to flush.
async fn until_cancelled(mut task: JoinHandle<()>, stop: CancellationToken) {
    tokio::select! {
        _ = &mut task => {}
        _ = stop.cancelled() => {
            task.abort();
            let _ = task.await;
        }
    }
}
