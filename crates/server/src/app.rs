//! Shared state handed to every handler.

use std::sync::Arc;

use signaldesk_engine::Supervisor;
use signaldesk_store::{SecretCipher, Store};
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::PaperExchange;

use crate::config::Config;
use crate::http::metrics::Metrics;
use crate::http::spa::WebAssets;
use crate::rate_limit::Limits;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    /// Failed logins and webhook posts (`rate_limit`).
    pub limits: Arc<Limits>,
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
            limits: Arc::new(Limits::new(&config)),
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
