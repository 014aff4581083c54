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
    /// A webhook alert arrived while the user's signal fetching is off.
    #[error("Signal fetching is not active: start signals to receive alerts")]
    SignalsInactive,
    /// A close was asked for a trade that is not open.
    #[error("This trade is not open")]
    TradeNotOpen,
    /// The venue executed the order but the books could not record it yet: the trading
    /// worker books it once the store takes writes again.
    #[error("The order was executed on the exchange but could not be recorded yet: it will be booked when the database is back")]
    NotBooked,
    /// The trading worker stopped while answering.
    #[error("The trading worker stopped: try again")]
    WorkerGone,
    /// Another instance runs the user's bot: this one may not act for it.
    #[error("The bot runs on another instance of the server: try again in a moment")]
    RunsElsewhere,
    /// The signal worker has too many alerts waiting.
    #[error("Too many alerts at once: try again in a moment")]
    Busy,
    /// Bybit refused the user's API key at the check before trading.
    #[error("Bybit refused the API key: {0}")]
    KeyRefused(VenueError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("venue: {0}")]
    Venue(#[from] VenueError),
    #[error("{0}")]
    Config(String),
}
