//! Signal Desk's venues: where the bot's orders go and where its prices come from.
//!
//! [`Venue`] is the one trait the trading worker is written against; [`paper::PaperExchange`]
//! implements it in memory (shared by all users, each with their own wallet) and
//! [`bybit::private::BybitVenue`] implements it against Bybit V5 (demo or mainnet). [`market::MarketData`] is the one
//! trait for instruments, candles and live prices: [`market::sim::SimulatedMarket`] (seeded,
//! offline, the default), [`market::manual::ManualMarket`] (moved by hand, for tests) and
//! [`bybit::BybitMarketData`] (Bybit V5 public REST and websocket). Money, prices and
//! quantities are `rust_decimal::Decimal` throughout. The paper exchange's rules are in
//! `docs/paper-exchange.md`.

pub mod bybit;
mod error;
mod key_check;
pub mod market;
pub mod paper;
mod quiet;
pub mod registry;
mod venue;

pub use error::VenueError;
pub use key_check::{KeyRefusal, KeyRefused};
pub use quiet::QuietBand;
pub use venue::{
    CloseReason, Fill, FundingPayment, OrderRequest, Position, PositionClose, Stops, Trailing,
    Venue, VenueEvent, Wallet,
};
