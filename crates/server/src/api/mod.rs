//! The `/api/` resources other than auth: one module per resource, handlers named by verb.

pub mod alerts;
pub mod api_keys;
pub mod audit_log;
pub mod backtest_chart;
pub mod backtests;
pub mod balance;
pub mod bot;
pub mod dashboard;
pub mod live_statistics;
pub mod logs;
pub mod notification_channels;
pub mod parity;
pub mod settings;
pub mod signals;
pub mod stats;
pub mod trade_chart;
pub mod trade_search;
pub mod trades;
pub mod trades_export;
pub mod webhook;
