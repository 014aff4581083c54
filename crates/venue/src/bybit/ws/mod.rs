//! Bybit V5 public websocket: the documented message shapes and a connection that keeps
//! itself alive (ping every 20 s, reconnect with back-off, resubscribe).

pub mod client;
pub mod messages;

pub use client::{spawn_public_stream, WsConfig, MAINNET_PUBLIC_LINEAR_URL};
pub use messages::PublicMessage;
