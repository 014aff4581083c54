//! Repositories: one module per table family, each adding methods to [`crate::Store`].

pub mod alerts;
pub mod api_keys;
pub mod backtests;
pub mod bot_logs;
pub mod candles;
pub mod commands;
pub mod dashboard;
pub mod funding_rates;
pub mod import;
pub mod instruments;
pub mod leases;
pub mod master_key;
pub mod notification_channels;
pub mod paper;
pub mod rate_limits;
pub mod relay;
pub mod rollup;
pub mod running;
pub mod sessions;
pub mod settings;
pub mod signals;
pub mod stats;
pub mod telegram;
pub mod trades;
pub mod users;
pub mod webhooks;
