//! Shared state handed to every handler.

use std::sync::Arc;

use signaldesk_engine::Engine;
use signaldesk_store::{SecretCipher, Store};

use crate::backtest::jobs::BacktestJobs;
use crate::config::Config;
use crate::http::metrics::Exporter;
use crate::http::spa::WebAssets;
use crate::rate_limit::{limits_for, RateLimits};

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    /// Failed logins and webhook posts (`rate_limit`).
    /// Failed logins and webhook posts (`rate_limit`): shared through the database on
    /// PostgreSQL, in memory on SQLite.
    pub limits: Arc<dyn RateLimits>,
    /// This instance's `/metrics` series.
    pub metrics: Arc<Exporter>,
    pub web: Arc<WebAssets>,
    /// Encrypts exchange keys at rest.
    pub cipher: Arc<SecretCipher>,
    /// Backtests the API started, running in the background.
    pub backtests: Arc<BacktestJobs>,
    /// The bots, the market and the venues.
    pub engine: Arc<Engine>,
}

impl AppState {
    pub fn new(
        store: Store,
        config: Config,
        cipher: Arc<SecretCipher>,
        engine: Arc<Engine>,
        metrics: Arc<Exporter>,
    ) -> AppState {
        AppState {
            backtests: BacktestJobs::new(
                store.clone(),
                crate::backtest::market_of(&config),
                config.max_backtest_jobs,
            ),
            cipher,
            engine,
            limits: limits_for(&store, &config),
            metrics,
            web: Arc::new(WebAssets::new(config.static_dir.clone())),
            store,
            config: Arc::new(config),
        }
    }
}

/// Now, as Unix milliseconds in UTC (the only time the store keeps).
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
