//! Signal Desk's bot runtime: for each user, a signal worker and a trading worker, owned by
//! the [`Supervisor`], which starts and stops them, persists their run flags and resumes them
//! after a restart. Everything a user should see live goes out on the [`EventBus`]. The
//! engine knows nothing of HTTP; the server calls it.

pub mod audit;
mod error;
pub mod events;
pub mod journal;
pub mod live;
pub mod market;
mod market_anchor;
pub mod paper;
pub mod signal_worker;
pub mod signals;
mod snapshots;
mod supervisor;
pub mod telegram;
pub mod trading;
mod venues;
mod workers;

pub use error::EngineError;
pub use events::{EventBus, Subscription, UserEvent};
pub use supervisor::{BotStatus, Supervisor, VenueName, WorkerState};
pub use venues::{BybitAccounts, BybitSettings, Venues};
