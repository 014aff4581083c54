//! The `signaldesk` program: the axum HTTP and websocket server, its command line, its
//! configuration, authentication, the live websocket feed and the embedded web app. Handlers stay thin: they check
//! input, call the store or the engine, and shape JSON; every route is listed in `router.rs`.

pub mod api;
pub mod app;
pub mod audit;
pub mod audit_log;
pub mod auth;
pub mod backtest;
pub mod cli;
pub mod config;
pub mod error;
pub mod history;
pub mod http;
pub mod openapi;
pub mod rate_limit;
pub mod relay;
pub mod router;
pub mod serve;
pub mod wire;
pub mod ws;

pub use app::AppState;
pub use config::Config;
pub use serve::{start, RunningServer};
