use signaldesk_store::StoreError;
use signaldesk_venue::VenueError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum EngineError {
    /// Trading needs the user's active exchange key.
    #[error("No active API key")]
    NoActiveKey,
    #[error("No settings found")]
    NoSettings,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("venue: {0}")]
    Venue(#[from] VenueError),
    #[error("{0}")]
    Config(String),
}
