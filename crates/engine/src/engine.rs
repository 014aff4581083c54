//! The engine's one handle: it owns the markets, every user's account, the event bus and
//! the [`Supervisor`] of the workers, and it is the server's only way in. Every task the
//! engine starts is tracked by one [`TaskTracker`] and ends with one root
//! [`CancellationToken`]; [`Engine::shutdown`] stops them in the order the books need.

use std::path::PathBuf;
use std::sync::Arc;

use signaldesk_core::account::AccountVenue;
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::stats::LiveStatistics;
use signaldesk_store::{SecretCipher, SettingsRecord, Store};
use signaldesk_venue::paper::PaperExchange;
use signaldesk_venue::registry::ExchangeRegistry;
use signaldesk_venue::{Position, Wallet};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::accounts::{Accounts, ExchangeAccounts, LazyMarket, Market, PaperVenue, UserAccount};
use crate::background::Background;
use crate::events::EventBus;
use crate::journal::BotJournal;
use crate::market::MarketConfig;
use crate::metrics::Metrics;
use crate::notify::{AlertKind, Alerts, Notifications, Outbound, SmtpConfig};
use crate::ownership::{HeldLeases, Ownership};
use crate::paper::{PaperMarket, PaperRuntime, PaperSettings};
use crate::snapshots::{self, Recorder};
use crate::supervisor::{Supervisor, SupervisorParts, COMMAND_POLL};
use crate::telegram::{Notifier, TelegramConfig};
use crate::workers::WorkerContext;
use crate::EngineError;

/// What [`Engine::start`] needs.
pub struct EngineOptions {
    pub market: MarketConfig,
    /// `[paper]`: the paper exchange and the market it fills on.
    pub paper: PaperSettings,
    /// Where each exchange's keys trade (`[bybit]`).
    pub exchanges: ExchangeRegistry,
    /// Decrypts the users' exchange keys.
    pub cipher: Arc<SecretCipher>,
    pub telegram: TelegramConfig,
    /// `[smtp]`: the relay e-mail channels are sent through (empty host: none).
    pub smtp: SmtpConfig,
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
    accounts: Accounts,
    telegram: Notifier,
    /// Decrypts the notification channels' targets.
    cipher: Arc<SecretCipher>,
    smtp: SmtpConfig,
    /// Two signal intervals.
    feed_stale_after: std::time::Duration,
    metrics: Metrics,
    ownership: Ownership,
    held: Arc<HeldLeases>,
    paper: Option<Arc<PaperRuntime>>,
}

pub struct Engine {
    store: Store,
    /// The Telegram command poller (`telegram::polling`), when it runs: stopped first.
    commands: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    commands_stop: CancellationToken,
    bus: Arc<EventBus>,
    accounts: Accounts,
    supervisor: Supervisor,
    notices: Notifications,
    alerts: Alerts,
    paper: Option<Arc<PaperRuntime>>,
    /// Whose balances this process records.
    snapshots: Recorder,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Engine {
    /// Starts the paper market and exchange (and Bybit's market when paper trades on it),
    /// resumes the bots whose flags are on and records balances every 5 minutes. Bybit's
    /// market starts when the first Bybit account needs it.
    pub async fn start(options: EngineOptions, store: Store) -> Result<Arc<Engine>, EngineError> {
        options.market.refuse_retired()?;
        if let Ownership::Leased { holder, timing } = &options.ownership {
            crate::registration::register(&store, holder, timing).await?;
        }
        let background = Background::new();
        let held = HeldLeases::new(&options.ownership);
        let (paper_market, bybit_market) = match options.paper.market {
            PaperMarket::Simulated => (
                Market::start_simulated(&options.market, &options.data_dir, &background).await?,
                LazyMarket::lazy(options.market.clone(), background.clone()),
            ),
            PaperMarket::Bybit => {
                let market = Market::start_bybit(&options.market, &background).await?;
                (
                    market.clone(),
                    LazyMarket::started(market, options.market.clone()),
                )
            }
        };
        let paper =
            PaperRuntime::start(paper_market, &options.paper, store.clone(), held.clone()).await?;
        let accounts = Accounts::new(
            store.clone(),
            PaperVenue::new(&paper, held.clone(), store.clone()),
            ExchangeAccounts::new(
                store.clone(),
                options.cipher.clone(),
                options.exchanges,
                bybit_market,
            ),
        );
        let leased = matches!(options.ownership, Ownership::Leased { .. });
        // One process of a deployment reads the bot's commands: it holds the poller lease.
        // Without leases the database serves this process alone.
        let poller = match &options.ownership {
            Ownership::Leased { holder, .. } => holder.clone(),
            Ownership::Sole => signaldesk_store::LeaseHolder::new("sole"),
        };
        let commands = options.telegram.clone();
        let feed_stale_after =
            std::time::Duration::from_secs(u64::from(options.market.interval_minutes) * 120);
        let engine = Engine::with_parts(
            Parts {
                store,
                accounts,
                telegram: Notifier::start(options.telegram),
                cipher: options.cipher.clone(),
                smtp: options.smtp,
                feed_stale_after,
                metrics: options.metrics,
                ownership: options.ownership,
                held,
                paper: Some(Arc::new(paper)),
            },
            background,
        );
        let resumed = engine.supervisor.resume().await;
        if let Err(e) = resumed {
            engine.shutdown().await;
            return Err(e);
        }
        if commands.is_enabled() && commands.commands {
            let task = engine.tasks.spawn(crate::telegram::polling::run(
                engine.clone(),
                commands,
                poller,
                engine.commands_stop.clone(),
            ));
            *engine.lock_commands() = Some(task);
        }
        if leased {
            engine.tasks.spawn(maintain_leases(engine.clone()));
            engine.tasks.spawn(take_requests(engine.clone()));
        }
        engine.tasks.spawn(watch_database(engine.clone()));
        engine.tasks.spawn(snapshots::run(
            engine.store.clone(),
            engine.accounts.clone(),
            engine.snapshots.clone(),
            engine.stop.clone(),
        ));
        Ok(engine)
    }

    /// An engine over parts made elsewhere (tests): no market task, no snapshots, nothing
    /// resumed until asked.
    pub fn assemble(
        store: Store,
        accounts: Accounts,
        telegram: Notifier,
        metrics: Metrics,
    ) -> Arc<Engine> {
        Engine::with_parts(
            Parts {
                store,
                accounts,
                telegram,
                cipher: Arc::new(SecretCipher::random()),
                smtp: SmtpConfig::default(),
                feed_stale_after: crate::trading::DEFAULT_FEED_STALE_AFTER,
                metrics,
                ownership: Ownership::Sole,
                held: HeldLeases::sole(),
                paper: None,
            },
            Background::new(),
        )
    }

    fn with_parts(parts: Parts, background: Background) -> Arc<Engine> {
        let Background { tasks, stop } = background;
        let Parts {
            store,
            accounts,
            telegram,
            cipher,
            smtp,
            feed_stale_after,
            metrics,
            ownership,
            held,
            paper,
        } = parts;
        let bus = EventBus::new();
        let journal = BotJournal::new(store.clone(), bus.clone());
        let notices = Notifications::start(
            store.clone(),
            cipher,
            telegram,
            Outbound::new(&smtp, Some(store.clone())),
        );
        let alerts = Alerts::start(store.clone(), bus.clone(), notices.clone());
        let ctx = WorkerContext {
            store: store.clone(),
            journal,
            bus: bus.clone(),
            accounts: accounts.clone(),
            notices: notices.clone(),
            alerts: alerts.clone(),
            feed_stale_after,
            held: held.clone(),
        };
        let snapshots = Recorder {
            ownership: ownership.clone(),
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
            commands: std::sync::Mutex::new(None),
            commands_stop: stop.child_token(),
            bus,
            accounts,
            notices,
            alerts,
            paper,
            snapshots,
            stop,
            tasks,
        })
    }

    fn lock_commands(&self) -> std::sync::MutexGuard<'_, Option<tokio::task::JoinHandle<()>>> {
        self.commands.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Publishes notices to the users' channels (and tests a channel).
    pub fn notifications(&self) -> &Notifications {
        &self.notices
    }

    /// Raises and clears alerts.
    pub fn alerts(&self) -> &Alerts {
        &self.alerts
    }

    /// Starts and stops each user's workers.
    pub fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    pub fn bus(&self) -> &Arc<EventBus> {
        &self.bus
    }

    pub fn journal(&self) -> &BotJournal {
        self.supervisor.journal()
    }

    /// Every user's account.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// The user's account and its market, by their active key now.
    pub async fn account(&self, user_id: i64) -> Result<UserAccount, EngineError> {
        self.accounts.of_user(user_id).await
    }

    /// Where the user's bot trades now.
    pub async fn venue_of(&self, user_id: i64) -> Result<AccountVenue, EngineError> {
        self.accounts.venue_of(user_id).await
    }

    /// The market of the user's account (a webhook's symbols, signals).
    pub async fn market_of(&self, user_id: i64) -> Result<Arc<Market>, EngineError> {
        self.accounts.market_of(user_id).await
    }

    /// The paper exchange every paper account is on.
    pub fn paper_exchange(&self) -> Arc<PaperExchange> {
        self.accounts.paper().exchange().clone()
    }

    /// The user's wallet on their account.
    pub async fn wallet(&self, user_id: i64) -> Result<Wallet, EngineError> {
        Ok(self.accounts.account_of(user_id).await?.1.wallet().await?)
    }

    /// The user's open positions on their account.
    pub async fn positions(&self, user_id: i64) -> Result<Vec<Position>, EngineError> {
        Ok(self
            .accounts
            .account_of(user_id)
            .await?
            .1
            .positions()
            .await?)
    }

    /// The highest smallest-tier maintenance margin rate among the symbols the user's bot may
    /// trade (their Symbols setting, else every symbol their market rates), as their account's
    /// venue states it: the liquidation distance of the risk preview rests on it, so it is
    /// the closest one. Symbols whose rate cannot be read are passed over; none read is an
    /// error.
    pub async fn maintenance_margin_rate(
        &self,
        user_id: i64,
        symbols: &[String],
    ) -> Result<rust_decimal::Decimal, EngineError> {
        let account = self.account(user_id).await?;
        let symbols = match symbols.is_empty() {
            true => account.market.hub.universe().to_vec(),
            false => symbols.to_vec(),
        };
        let rates = futures::future::join_all(
            symbols
                .iter()
                .map(|s| account.account.maintenance_margin_rate(s)),
        )
        .await;
        let mut last_error = None;
        let mut highest = None;
        for rate in rates {
            match rate {
                Ok(rate) => highest = highest.max(Some(rate)),
                Err(e) => last_error = Some(e),
            }
        }
        match (highest, last_error) {
            (Some(rate), _) => Ok(rate),
            (None, Some(e)) => Err(e.into()),
            (None, None) => Err(EngineError::Config("no symbol to trade".into())),
        }
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
        let (on, account) = self.accounts.account_of(user_id).await?;
        crate::live::statistics(&self.store, on, account.as_ref(), user_id, from_ms).await
    }

    /// Records the balances this process records (every user's, with one process on the
    /// database) at `now`; answers how many accounts were recorded.
    pub async fn record_balance_snapshots(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<usize, EngineError> {
        snapshots::record(&self.store, &self.accounts, &self.snapshots, now).await
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

    /// A Bybit key must work, and must not be able to move funds, before it trades: one cheap
    /// authenticated call with the user's key `key_id` (the active key when `None`), which
    /// answers the key's permissions as reported (kept on its row); a paper key, or none,
    /// passes with none.
    pub async fn check_api_key(
        &self,
        user_id: i64,
        key_id: Option<i64>,
    ) -> Result<Option<KeyPermissions>, EngineError> {
        self.accounts.check_key(user_id, key_id).await
    }

    /// Stops every task without touching the run flags, so the next start resumes them. The
    /// paper exchange stops following the market first, so the workers book everything it
    /// did before they stop and the books equal the accounts at rest; then its last changes
    /// are written, and only then are the leases let go, so the next owner reads them.
    pub async fn shutdown(&self) {
        // No command may start or stop a bot while the workers stop.
        self.commands_stop.cancel();
        let poller = self.lock_commands().take();
        if let Some(poller) = poller {
            if let Err(e) = poller.await {
                tracing::error!(error = %e, "the telegram command poller failed while stopping");
            }
        }
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

/// How long the database may be out of reach before the alert.
const DATABASE_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Raises the database alert for every user whose bot runs here once the database has been
/// unreachable for [`DATABASE_GRACE`], and clears it when it is back.
async fn watch_database(engine: Arc<Engine>) {
    let mut rounds = tokio::time::interval(std::time::Duration::from_secs(2));
    let mut down_since: Option<(std::time::Instant, chrono::DateTime<chrono::Utc>)> = None;
    let mut alerted: Vec<i64> = Vec::new();
    loop {
        tokio::select! {
            _ = engine.stop.cancelled() => return,
            _ = rounds.tick() => {}
        }
        if engine.store.health().is_up() {
            down_since = None;
            for user_id in alerted.drain(..) {
                engine.alerts.clear(user_id, AlertKind::DatabaseUnreachable);
            }
            continue;
        }
        let (since, since_utc) =
            *down_since.get_or_insert_with(|| (std::time::Instant::now(), chrono::Utc::now()));
        if since.elapsed() < DATABASE_GRACE {
            continue;
        }
        for user_id in engine.supervisor.users_here().await {
            if !alerted.contains(&user_id) {
                alerted.push(user_id);
            }
            engine.alerts.raise(
                user_id,
                AlertKind::DatabaseUnreachable,
                format!(
                    "The database has been unreachable since {}.",
                    since_utc.format("%Y-%m-%d %H:%M:%S UTC")
                ),
            );
        }
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
