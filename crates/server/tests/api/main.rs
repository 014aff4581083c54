//! Integration tests against the real server on a free port, on a real SQLite file (and on
//! PostgreSQL too where a test says so and `TEST_DATABASE_URL` is set).

mod accounts;
mod api_keys;
mod audit_log;
mod auth;
mod auth_sessions;
mod auth_two_factor;
mod backtest_cli;
mod backtests;
mod bot;
mod bybit;
mod candles_import;
mod cli;
mod crash;
mod dashboard;
mod degraded;
mod failover;
mod helpers;
mod history;
mod instances;
mod live;
mod logs;
mod notification_channels;
mod parity;
mod platform;
mod ratings_cli;
mod robustness;
mod settings;
mod signals;
mod stats;
mod telegram;
mod trades;
mod upgrade;
mod webhook;
mod wif;
mod ws;
