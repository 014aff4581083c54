//! Shared state handed to every handler.

use std::sync::Arc;

use signaldesk_engine::Supervisor;
use signaldesk_store::{SecretCipher, Store};

use crate::auth::rate_limit::LoginLimiter;
use crate::config::Config;
use crate::http::metrics::Metrics;
use crate::http::spa::WebAssets;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub login_limiter: Arc<LoginLimiter>,
    pub metrics: Arc<Metrics>,
    pub web: Arc<WebAssets>,
    /// Encrypts exchange keys at rest.
    pub cipher: Arc<SecretCipher>,
    pub supervisor: Arc<Supervisor>,
}

impl AppState {
    pub fn new(
        store: Store,
        config: Config,
        cipher: Arc<SecretCipher>,
        supervisor: Arc<Supervisor>,
    ) -> AppState {
        AppState {
            cipher,
            supervisor,
            login_limiter: Arc::new(LoginLimiter::new(config.login_failures_per_minute)),
            metrics: Arc::new(Metrics::default()),
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
