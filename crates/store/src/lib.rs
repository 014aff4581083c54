//! Signal Desk's persistence: one API over SQLite (the default, one file) and PostgreSQL.
//!
//! Queries are written once with `$n` placeholders, which both sqlx drivers accept, and run
//! through sqlx's `Any` driver. Each backend owns its migrations (`migrations/<backend>`).
//! Portable column types only: integers (flags are 0/1), text (decimals are stored as their
//! exact string form) and timestamps as Unix milliseconds in UTC.

pub mod crypto;
mod db;
mod error;
mod health;
mod pool;
pub mod repo;
#[cfg(feature = "test-support")]
pub mod test_support;

pub use crypto::SecretCipher;
pub use db::{Backend, Store};
pub use error::StoreError;
pub use health::StoreHealth;
pub use repo::alerts::AlertRecord;
pub use repo::api_keys::{ApiCredentials, ApiKeyRecord, PlacedKey, Placement};
pub use repo::audit_log::{AuditAction, AuditEntry, AUDIT_RETENTION_MS};
pub use repo::backtests::BacktestRecord;
pub use repo::bot_logs::{LogEntry, LogLevel};
pub use repo::commands::BotCommand;
pub use repo::instances::{ProcessPlace, Registered};
pub use repo::instruments::StoredInstrument;
pub use repo::leases::{FenceEntry, Lease, LeaseHolder, LeaseState};
pub use repo::notification_channels::{ChannelRecord, ChannelSpec};
pub use repo::sessions::{Session, SessionInfo, SessionOrigin};
pub use repo::settings::{RunFlags, SettingsRecord};
pub use repo::signals::StoredSignal;
pub use repo::telegram::PollerTenure;
pub use repo::trade_search::{TradeCursor, TradeSearch, TradeSortKey};
pub use repo::trades::{Chain, ChainStatus, Trade, TradeQuery, TradeStatus, IMPORTED_ORDER_PREFIX};
pub use repo::two_factor::TotpRecord;
pub use repo::users::User;
pub use repo::webhooks::{AlertTaken, PendingWebhookAlert, WebhookAlert};
