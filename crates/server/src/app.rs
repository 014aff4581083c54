//! Shared state handed to every handler.

use std::sync::Arc;

use signaldesk_engine::Supervisor;
use signaldesk_store::{SecretCipher, Store};
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::PaperExchange;

use crate::config::Config;
use crate::http::metrics::Metrics;
use crate::http::spa::WebAssets;
use crate::rate_limit::WindowLimiter;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    /// Failed logins per (username, client address): nobody can lock a user out from
    /// another address.
    pub login_limiter: Arc<WindowLimiter>,
    /// Failed logins per client address, whatever the username (a few times the pair limit,
    /// so one address cannot spray many usernames quickly).
    pub login_address_limiter: Arc<WindowLimiter>,
    /// Webhook alerts per user, and unknown webhook secrets per client address.
    pub webhook_limiter: Arc<WindowLimiter>,
    pub metrics: Arc<Metrics>,
    pub web: Arc<WebAssets>,
    /// Encrypts exchange keys at rest.
    pub cipher: Arc<SecretCipher>,
    pub supervisor: Arc<Supervisor>,
    /// Prices and candles for signals and the venues.
    pub market: Arc<dyn MarketData>,
    /// The paper exchange, when it is the venue.
    pub paper: Option<Arc<PaperExchange>>,
}

impl AppState {
    pub fn new(store: Store, config: Config, runtime: Runtime) -> AppState {
        let Runtime {
            cipher,
            supervisor,
            market,
            paper,
        } = runtime;
        AppState {
            market,
            paper,
            cipher,
            supervisor,
            login_limiter: Arc::new(WindowLimiter::new(config.login_failures_per_minute)),
            login_address_limiter: Arc::new(WindowLimiter::new(
                config
                    .login_failures_per_minute
                    .saturating_mul(crate::rate_limit::ADDRESS_LOGIN_FACTOR),
            )),
            webhook_limiter: Arc::new(WindowLimiter::new(config.webhook_alerts_per_minute)),
            metrics: Arc::new(Metrics::default()),
            web: Arc::new(WebAssets::new(config.static_dir.clone())),
            store,
            config: Arc::new(config),
        }
    }
}

/// The long-lived parts the server is built around.
pub struct Runtime {
    pub cipher: Arc<SecretCipher>,
    pub supervisor: Arc<Supervisor>,
    pub market: Arc<dyn MarketData>,
    pub paper: Option<Arc<PaperExchange>>,
}

/// Now, as Unix milliseconds in UTC (the only time the store keeps).
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
