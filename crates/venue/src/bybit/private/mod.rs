//! The Bybit V5 private side: a signed REST client with per-endpoint rate budgets
//! ([`rest`], [`limits`], [`sign`]), the private websocket ([`stream`], its pushes read by
//! [`push`]) and
//! [`BybitVenue`], which puts them behind the [`Venue`](crate::Venue) trait. A demo-trading
//! key talks to Bybit's demo environment, a real key to mainnet; `docs/bybit.md` says what
//! a key needs and what the bot does on the account.

pub mod errors;
pub mod key_rules;
pub mod limits;
pub mod models;
pub mod push;
pub mod rest;
pub mod sign;
pub mod stream;
mod venue;

use std::time::Duration;

pub use sign::Credentials;
pub use venue::{market_order_price_limit, BybitVenue};

/// Which Bybit a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    /// Demo trading: real market, pretend money (api-demo.bybit.com).
    Demo,
    Mainnet,
}

impl Environment {
    pub fn from_is_demo(is_demo: bool) -> Self {
        if is_demo {
            Environment::Demo
        } else {
            Environment::Mainnet
        }
    }

    pub fn rest_url(self) -> &'static str {
        match self {
            Environment::Demo => "https://api-demo.bybit.com",
            Environment::Mainnet => "https://api.bybit.com",
        }
    }

    pub fn private_ws_url(self) -> &'static str {
        match self {
            Environment::Demo => "wss://stream-demo.bybit.com/v5/private",
            Environment::Mainnet => "wss://stream.bybit.com/v5/private",
        }
    }

    /// How messages name it.
    pub fn describe(self) -> &'static str {
        match self {
            Environment::Demo => "demo trading",
            Environment::Mainnet => "mainnet",
        }
    }
}

/// Everything a [`BybitVenue`] needs. [`BybitConfig::new`] fills the documented URLs and
/// timings; tests point the URLs at a local fake and shorten the timings.
#[derive(Debug, Clone)]
pub struct BybitConfig {
    pub environment: Environment,
    pub credentials: Credentials,
    pub rest_url: String,
    pub private_ws_url: String,
    /// `X-BAPI-RECV-WINDOW`.
    pub recv_window_ms: u64,
    /// Timeout of one REST request.
    pub request_timeout: Duration,
    /// Attempts of a call that met a rate limit or a transient failure.
    pub attempts: u32,
    /// First back-off after a rate limit or failure; doubles up to `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// Private websocket ping interval (Bybit: every 20 s).
    pub ping_interval: Duration,
    pub reconnect_min: Duration,
    pub reconnect_max: Duration,
    /// How often the stream also resyncs through REST while connected, to catch a push
    /// that never came.
    pub resync_interval: Duration,
    /// How long an order may take to report its fill before the submit gives up waiting.
    pub fill_wait: Duration,
    /// How long nothing is sent to Bybit after it answered HTTP 403 (the IP address is
    /// banned; Bybit asks for at least 10 minutes).
    pub ip_ban_wait: Duration,
    /// How far from the last price a market order may fill, as a fraction; `None`: Bybit's
    /// documented price limit ([`market_order_price_limit`]).
    pub market_price_limit: Option<rust_decimal::Decimal>,
}

impl BybitConfig {
    pub fn new(environment: Environment, credentials: Credentials) -> Self {
        Self {
            environment,
            credentials,
            rest_url: environment.rest_url().into(),
            private_ws_url: environment.private_ws_url().into(),
            recv_window_ms: 5000,
            request_timeout: Duration::from_secs(10),
            attempts: 4,
            backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(5),
            ping_interval: Duration::from_secs(20),
            reconnect_min: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(30),
            resync_interval: Duration::from_secs(60),
            fill_wait: Duration::from_secs(5),
            ip_ban_wait: crate::bybit::http::ip_ban::DEFAULT_WAIT,
            market_price_limit: None,
        }
    }
}
