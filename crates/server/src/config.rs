//! Settings layered as DESIGN.md section 4 says: defaults, then a TOML file, then
//! `SIGNALDESK_*` environment variables, then command-line flags.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::providers::{Env, Format, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};
use signaldesk_engine::market::MarketConfig;
use signaldesk_engine::notify::SmtpConfig;
use signaldesk_engine::paper::PaperSettings;
use signaldesk_engine::telegram::TelegramConfig;
use signaldesk_venue::bybit::BybitSettings;
use signaldesk_venue::registry::ExchangeRegistry;

/// What `--venue`, `SIGNALDESK_VENUE` or `venue =` are answered with.
pub const VENUE_IS_GONE: &str = "--venue (SIGNALDESK_VENUE, venue =) is gone: each user's active \
     API key chooses where their bot trades (a Bybit key on Bybit demo or mainnet, a paper key \
     or none on their paper account), all in one server; [paper] market = \"simulated\" or \
     \"bybit\" chooses the paper accounts' prices (docs/accounts.md)";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Address the HTTP server listens on.
    pub addr: SocketAddr,
    /// `sqlite://PATH` (created if missing) or `postgres://…`.
    pub database_url: String,
    /// Gone ([`VENUE_IS_GONE`]): given, the configuration is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    /// Holds the master key file and, by default, the SQLite database.
    pub data_dir: PathBuf,
    /// Serve the web app from this folder instead of the copy embedded in the binary.
    pub static_dir: Option<PathBuf>,
    /// The `instance` label of every `/metrics` series (default `<hostname>-<pid>`).
    #[serde(deserialize_with = "text")]
    pub instance_id: String,
    /// PostgreSQL only (on by default): several instances may share the database, so each bot
    /// runs where its lease is held and live events are relayed (docs/multi-instance.md).
    /// Off: this instance runs every bot, as on SQLite, and must be the database's only one.
    pub multi_instance: bool,
    /// Backtests run at once by this process (the others wait their turn); each takes a
    /// core while it runs.
    pub max_backtest_jobs: usize,
    /// Whether `/api/auth/register/` creates accounts (off by default).
    pub allow_registration: bool,
    /// Sessions and tokens end after this long without use.
    pub session_idle_secs: u64,
    /// Failed logins allowed per username and per client address in a minute.
    pub login_failures_per_minute: u32,
    /// Mark cookies `Secure` (set when the server is reached over HTTPS).
    pub secure_cookies: bool,
    /// Largest accepted request body, in bytes.
    pub max_body_bytes: usize,
    /// TradingView alerts accepted per user in a minute (and unknown webhook URLs per client
    /// address); beyond that, 429.
    pub webhook_alerts_per_minute: u32,
    /// A TradingView alert whose `time` is older than this, or this far ahead of the server's
    /// clock, is refused (docs/alerts.md, "TradingView alerts").
    pub webhook_max_lag_secs: u64,
    /// The same alert body on a user's webhook within this many seconds of the one acted on is
    /// answered as a duplicate and does nothing more.
    pub webhook_duplicate_window_secs: u64,
    /// Reverse proxies whose `X-Forwarded-For` is believed: when the peer is one of them, the
    /// client address (for the login and webhook limits) is the last address of that header
    /// that is not itself a trusted proxy. Empty (the default): the peer address is the client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// `[market]`: the simulated market and where Bybit's public market is.
    pub market: MarketConfig,
    /// `[paper]`: the paper exchange's wallet, fills and market.
    pub paper: PaperSettings,
    /// `[telegram]`: the bot token deal and summary messages are sent with (empty: none).
    pub telegram: TelegramConfig,
    /// `[smtp]`: the relay e-mail notification channels are sent through (empty host: none).
    pub smtp: SmtpConfig,
    /// `[bybit]`: the REST and private websocket addresses of demo and mainnet keys.
    pub bybit: BybitSettings,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8000)),
            database_url: "sqlite://data/signaldesk.db".into(),
            venue: None,
            data_dir: PathBuf::from("data"),
            static_dir: None,
            instance_id: default_instance_id(),
            multi_instance: true,
            max_backtest_jobs: 1,
            allow_registration: false,
            session_idle_secs: 30 * 24 * 3600,
            login_failures_per_minute: 5,
            secure_cookies: false,
            max_body_bytes: 64 * 1024,
            webhook_alerts_per_minute: 60,
            webhook_max_lag_secs: 300,
            webhook_duplicate_window_secs: 10,
            trusted_proxies: Vec::new(),
            market: MarketConfig::default(),
            paper: PaperSettings::default(),
            telegram: TelegramConfig::default(),
            smtp: SmtpConfig::default(),
            bybit: BybitSettings::default(),
        }
    }
}

/// Values given on the command line; `None` leaves the lower layers in force.
#[derive(Debug, Default, Serialize)]
pub struct Overrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addr: Option<SocketAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
}

/// A string setting that may look like a number: the environment layer reads
/// `SIGNALDESK_INSTANCE_ID=7` as the integer 7.
fn text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Text(String),
        Unsigned(u64),
        Signed(i64),
    }
    Ok(match Given::deserialize(deserializer)? {
        Given::Text(text) => text,
        Given::Unsigned(n) => n.to_string(),
        Given::Signed(n) => n.to_string(),
    })
}

/// `<hostname>-<pid>`: tells apart instances on several hosts and on one host.
fn default_instance_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "signaldesk".to_string());
    format!("{host}-{}", std::process::id())
}

impl Config {
    /// Where each exchange's keys trade.
    pub fn exchanges(&self) -> ExchangeRegistry {
        ExchangeRegistry {
            bybit: self.bybit.clone(),
        }
    }

    /// Loads the layers. `file` is the TOML file named by `--config` or `SIGNALDESK_CONFIG`.
    pub fn load(file: Option<&Path>, overrides: &Overrides) -> Result<Config, Box<figment::Error>> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        figment
            // `SIGNALDESK_MARKET__SPEED=60` sets `market.speed`.
            .merge(
                Env::prefixed("SIGNALDESK_")
                    .ignore(&["config", "master_key"])
                    .split("__"),
            )
            .merge(Serialized::defaults(overrides))
            .extract::<Config>()
            .map_err(Box::new)
            .and_then(|config| config.refuse_retired().map(|()| config))
    }

    /// Refuses settings that no longer exist, saying what replaced them.
    fn refuse_retired(&self) -> Result<(), Box<figment::Error>> {
        if self.venue.is_some() {
            return Err(Box::new(figment::Error::from(VENUE_IS_GONE.to_string())));
        }
        self.market
            .refuse_retired()
            .map_err(|e| Box::new(figment::Error::from(e.to_string())))
    }
}

#[cfg(test)]
// figment's Jail closures return figment's own (large) error type.
#[allow(clippy::result_large_err)]
mod tests {
    use super::*;

    #[test]
    fn layers_apply_in_order() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "sd.toml",
                "addr = \"127.0.0.1:9000\"\nallow_registration = true\nwebhook_duplicate_window_secs = 5\n\
                 [paper]\nmarket = \"bybit\"",
            )?;
            jail.set_env("SIGNALDESK_PAPER__MARKET", "simulated");
            jail.set_env("SIGNALDESK_DATABASE_URL", "sqlite://env.db");
            jail.set_env("SIGNALDESK_MARKET__SPEED", "60");
            jail.set_env("SIGNALDESK_WEBHOOK_MAX_LAG_SECS", "120");
            let overrides = Overrides {
                database_url: Some("sqlite://flag.db".into()),
                ..Default::default()
            };
            let config = Config::load(Some(Path::new("sd.toml")), &overrides).map_err(|e| *e)?;
            assert_eq!(config.addr.port(), 9000, "file beats default");
            assert!(config.allow_registration);
            assert_eq!(
                config.paper.market,
                signaldesk_engine::paper::PaperMarket::Simulated,
                "env beats file"
            );
            assert_eq!(config.database_url, "sqlite://flag.db", "flag beats env");
            assert_eq!(config.session_idle_secs, 30 * 24 * 3600, "default kept");
            assert_eq!(config.market.speed, 60.0, "nested env");
            assert_eq!(config.webhook_max_lag_secs, 120);
            assert_eq!(config.webhook_duplicate_window_secs, 5, "from the file");
            assert!(
                config
                    .instance_id
                    .ends_with(&format!("-{}", std::process::id())),
                "default instance id: {}",
                config.instance_id
            );
            Ok(())
        });
    }

    #[test]
    fn instance_id_from_file_env_or_flag() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("sd.toml", "instance_id = \"from-file\"")?;
            let file = Some(Path::new("sd.toml"));
            let config = Config::load(file, &Overrides::default()).map_err(|e| *e)?;
            assert_eq!(config.instance_id, "from-file");
            // A number is taken as text, not refused.
            jail.set_env("SIGNALDESK_INSTANCE_ID", "7");
            let config = Config::load(file, &Overrides::default()).map_err(|e| *e)?;
            assert_eq!(config.instance_id, "7");
            let overrides = Overrides {
                instance_id: Some("from-flag".into()),
                ..Default::default()
            };
            let config = Config::load(file, &overrides).map_err(|e| *e)?;
            assert_eq!(config.instance_id, "from-flag");
            Ok(())
        });
    }

    #[test]
    fn a_bad_value_is_an_error_not_a_default() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("SIGNALDESK_PAPER__MARKET", "moon");
            assert!(Config::load(None, &Overrides::default()).is_err());
            Ok(())
        });
    }

    #[test]
    fn the_retired_venue_settings_are_refused_with_what_replaced_them() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("SIGNALDESK_VENUE", "bybit");
            let error = Config::load(None, &Overrides::default()).unwrap_err();
            assert!(error.to_string().contains("active API key"), "{error}");
            jail.clear_env();
            jail.create_file("sd.toml", "[market]\nsource = \"bybit\"")?;
            let error =
                Config::load(Some(Path::new("sd.toml")), &Overrides::default()).unwrap_err();
            assert!(error.to_string().contains("[paper] market"), "{error}");
            Ok(())
        });
    }
}
