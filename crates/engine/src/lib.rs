//! Signal Desk's bot runtime: for each user, a signal worker and a trading worker, owned by
//! the [`Supervisor`], which starts and stops them, persists their run flags and resumes them
//! after a restart. The engine knows nothing of HTTP; the server calls it.

mod error;
pub mod journal;
pub mod market;
pub mod paper;
pub mod signals;
mod supervisor;
mod workers;

pub use error::EngineError;
pub use supervisor::{BotStatus, Supervisor, VenueName, WorkerState};
