//! Signal Desk's bot runtime. The [`Engine`] is the one handle: it owns the markets and every
//! user's account ([`accounts`]: paper and Bybit side by side, each user's chosen by their
//! active key), the [`EventBus`] (everything a user should see live) and the
//! [`Supervisor`], which starts and stops each user's signal and trading workers, persists
//! their run flags and resumes them after a restart. The engine knows nothing of HTTP; the
//! server calls it.

pub mod accounts;
pub mod audit;
pub mod audit_log;
mod background;
pub mod control;
mod engine;
mod error;
pub mod events;
mod fence;
pub mod journal;
pub mod live;
pub mod market;
pub mod market_anchor;
pub mod metrics;
pub mod notify;
mod outbound_http;
pub mod ownership;
pub mod paper;
pub mod registration;
mod remote;
pub mod signal_worker;
pub mod signals;
mod snapshots;
mod status;
mod supervisor;
pub mod telegram;
pub mod trading;
mod workers;

pub use accounts::{Accounts, ExchangeAccounts, LazyMarket, Market, PaperVenue, UserAccount};
pub use engine::{Engine, EngineOptions};
pub use error::EngineError;
pub use events::{EventBus, Subscription, UserEvent};
pub use notify::{AlertKind, Alerts, Notice, Notifications};
pub use status::{BotStatus, NotTrading, NotTradingReason, RunsOn, WorkerState};
pub use supervisor::Supervisor;
