//! Bybit V5 REST: the client, its errors and the documented response shapes.

pub mod client;
pub mod error;
pub mod ip_ban;
pub mod models;

pub use client::BybitHttpClient;
pub use error::BybitHttpError;
