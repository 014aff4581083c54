use signaldesk_store::StoreError;
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
}
