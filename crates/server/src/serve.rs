//! Starting and stopping the server: binding, the first-start admin account, graceful
//! shutdown on SIGINT/SIGTERM.

use std::net::SocketAddr;

use anyhow::Context;
use std::sync::Arc;

use signaldesk_engine::ownership::{LeaseTiming, Ownership};
use signaldesk_engine::{Engine, EngineOptions};
use signaldesk_store::{Backend, LeaseHolder, Placement, SecretCipher, Store};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::app::{now_ms, AppState};
use crate::auth::{password, secrets};
use crate::config::Config;
use crate::http::metrics::Exporter;
use crate::relay::{self, Relay};
use crate::{audit_log, rate_limit, router};

/// A server running in the background (tests and `serve` both use it).
pub struct RunningServer {
    pub addr: SocketAddr,
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
    /// Drops stale rate-limit keys (`rate_limit::spawn_housekeeping`).
    housekeeping_task: JoinHandle<()>,
    /// Folds latencies into the `/metrics` buckets (`Exporter::spawn_upkeep`).
    metrics_task: JoinHandle<()>,
    /// Deletes audit rows past the retention (`audit_log::spawn_pruning`).
    audit_pruning_task: JoinHandle<()>,
    /// Live events to and from the other instances (PostgreSQL).
    relay: Option<Relay>,
}

impl RunningServer {
    /// Stops accepting connections, lets in-flight requests finish, stops the engine (the
    /// workers' run flags stay, so the next start resumes them; `Engine::shutdown`) and
    /// closes the database.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        (&mut self.task).await.context("server task")??;
        self.state.backtests.shutdown().await;
        self.state.engine.shutdown().await;
        self.relay.take();
        self.housekeeping_task.abort();
        self.metrics_task.abort();
        self.audit_pruning_task.abort();
        self.state.store.close().await;
        Ok(())
    }

    /// Waits until the server stops on its own (it does not, unless it fails).
    pub async fn join(self) -> anyhow::Result<()> {
        self.task.await.context("server task")??;
        Ok(())
    }
}

/// Binds `config.addr` (port 0 picks a free port) and serves in the background.
pub async fn start(config: Config, store: Store) -> anyhow::Result<RunningServer> {
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("cannot listen on {}", config.addr))?;
    let addr = listener.local_addr()?;
    let master_key = std::env::var("SIGNALDESK_MASTER_KEY").ok();
    let cipher = Arc::new(
        SecretCipher::load(master_key.as_deref(), &config.data_dir)
            .context("cannot load the master key")?,
    );
    if store.backend() == Backend::Postgres {
        // Several instances may share the database: they must share the master key too.
        store
            .check_master_key(&cipher)
            .await
            .context("cannot check the master key against the database")?;
    }
    let metrics = Arc::new(Exporter::new(&config.instance_id));
    place_undecided_keys(&store).await?;
    // SQLite serves one process; on PostgreSQL with `multi_instance` other instances share
    // the database, so each bot runs where its lease is held (docs/multi-instance.md).
    let holder = LeaseHolder::new(&config.instance_id);
    let shared = store.backend() == Backend::Postgres && config.multi_instance;
    let ownership = if shared {
        Ownership::Leased {
            holder: holder.clone(),
            timing: LeaseTiming::default(),
        }
    } else {
        Ownership::Sole
    };
    let options = EngineOptions {
        market: config.market.clone(),
        paper: config.paper.clone(),
        exchanges: config.exchanges(),
        cipher: cipher.clone(),
        telegram: config.telegram.clone(),
        smtp: config.smtp.clone(),
        data_dir: config.data_dir.clone(),
        metrics: metrics.metrics.clone(),
        ownership,
    };
    let engine = Engine::start(options, store.clone())
        .await
        .context("cannot start the engine")?;
    let relay = shared.then(|| {
        relay::start(
            store.clone(),
            engine.bus().clone(),
            holder.process.clone(),
            metrics.metrics.clone(),
        )
    });
    let state = AppState::new(store, config, cipher, engine, metrics);
    if !state.web.has_app() {
        tracing::warn!("the web app is not built: only the API is served (run `make web`)");
    }
    let housekeeping_task = rate_limit::spawn_housekeeping(&state.limits);
    let metrics_task = state.metrics.spawn_upkeep();
    let audit_pruning_task = audit_log::spawn_pruning(state.store.clone());
    let app = router::build(state.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await
    });
    Ok(RunningServer {
        addr,
        state,
        shutdown: Some(tx),
        task,
        housekeeping_task,
        metrics_task,
        audit_pruning_task,
        relay,
    })
}

/// `signaldesk serve`: runs until SIGINT or SIGTERM.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("cannot create data dir {}", config.data_dir.display()))?;
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    create_first_admin(&store, &config).await?;
    let server = start(config, store).await?;
    tracing::info!(addr = %server.addr, "Signal Desk is serving on http://{}", server.addr);
    shutdown_signal().await;
    tracing::info!("shutting down");
    server.stop().await
}

/// The first start after the upgrade to keys that name their exchange places the keys from
/// before (`Store::place_undecided_keys`) and says, once, what it did and how to choose where
/// the books could not tell (docs/accounts.md, "Upgrading").
pub(crate) async fn place_undecided_keys(store: &Store) -> anyhow::Result<()> {
    let placed = store
        .place_undecided_keys()
        .await
        .context("cannot place the API keys from before keys named their exchange")?;
    for key in &placed {
        let said = match key.placement {
            Placement::Paper => "is a paper key: its user's books were kept on the paper exchange".to_string(),
            Placement::Bybit => "is a Bybit key: its user's books hold Bybit executions".to_string(),
            Placement::Undecided => "could not be placed (its user's books show no trades, or trades on both): it is now an inactive Bybit key and the user's bot is stopped. To trade on Bybit, press Set Active on the API Keys page; to trade on paper, add a key with Exchange: Paper, or trade with no active key".to_string(),
        };
        println!(
            "Signal Desk upgrade: API key #{} of \"{}\" {said}.",
            key.key_id, key.username
        );
        tracing::warn!(key_id = key.key_id, user_id = key.user_id, placement = ?key.placement, "API key from before keys named their exchange placed");
    }
    Ok(())
}

/// On a first start with no users, creates `admin` with a random password shown once.
async fn create_first_admin(store: &Store, config: &Config) -> anyhow::Result<()> {
    if store.user_count().await? > 0 {
        return Ok(());
    }
    let pass = secrets::new_secret()[..20].to_string();
    let hash = password::hash(pass.clone())
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    store.create_user("admin", &hash, now_ms()).await?;
    // Printed, not logged: the password must not end up in log files.
    println!(
        "\n================================================================\n\
         Signal Desk first start: created user \"admin\".\n\
         \n    username: admin\n    password: {pass}\n\n\
         Log in at http://{} . This password is shown only once;\n\
         change it with `signaldesk user set-password --username admin`.\n\
         ================================================================\n",
        config.addr
    );
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}
