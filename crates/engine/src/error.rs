use signaldesk_core::account::Exchange;
use signaldesk_core::key_permissions::{describe, Permission};
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
    /// The exchange refused the user's API key at the check before trading.
    #[error("{} refused the API key: {reason}", exchange.label())]
    KeyRefused {
        exchange: Exchange,
        reason: VenueError,
    },
    /// The user's API key can withdraw or transfer funds (the exchange's rule:
    /// docs/security.md, "Keys that cannot withdraw"): it is not used until these go.
    #[error(
        "This API key can withdraw or transfer funds. Remove {} from this key on {}, then try again.",
        describe(permissions),
        exchange.label()
    )]
    KeyMovesFunds {
        exchange: Exchange,
        permissions: Vec<Permission>,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("venue: {0}")]
    Venue(#[from] VenueError),
    #[error("{0}")]
    Config(String),
    /// Another instance ran the request and refused it for a reason that has no variant
    /// here (`code` is that instance's [`EngineError::code`]).
    #[error("{message}")]
    Remote { code: String, message: String },
    /// A request sent to the instance running the bot was taken but not answered in time:
    /// whether it was carried out is not known yet.
    #[error(
        "The instance running the bot did not answer in time: check the trades before trying again"
    )]
    NoAnswer,
}

impl EngineError {
    /// A stable name of the kind of error, for the answers instances send each other.
    pub fn code(&self) -> &str {
        match self {
            EngineError::NoActiveKey => "no_active_key",
            EngineError::NoSettings => "no_settings",
            EngineError::SignalsInactive => "signals_inactive",
            EngineError::TradeNotOpen => "trade_not_open",
            EngineError::NotBooked => "not_booked",
            EngineError::WorkerGone => "worker_gone",
            EngineError::RunsElsewhere => "runs_elsewhere",
            EngineError::Busy => "busy",
            EngineError::KeyRefused { .. } => "key_refused",
            EngineError::KeyMovesFunds { .. } => "key_moves_funds",
            EngineError::Store(StoreError::Unavailable(_)) => "store_unavailable",
            EngineError::Store(_) => "store",
            EngineError::Venue(_) => "venue",
            EngineError::Config(_) => "config",
            EngineError::Remote { code, .. } => code,
            EngineError::NoAnswer => "no_answer",
        }
    }

    /// The error another instance answered with: its own variant where it has no payload,
    /// [`EngineError::Remote`] otherwise.
    pub fn from_code(code: &str, message: &str) -> EngineError {
        match code {
            "no_active_key" => EngineError::NoActiveKey,
            "no_settings" => EngineError::NoSettings,
            "signals_inactive" => EngineError::SignalsInactive,
            "trade_not_open" => EngineError::TradeNotOpen,
            "not_booked" => EngineError::NotBooked,
            "worker_gone" => EngineError::WorkerGone,
            "runs_elsewhere" => EngineError::RunsElsewhere,
            "busy" => EngineError::Busy,
            "no_answer" => EngineError::NoAnswer,
            code => EngineError::Remote {
                code: code.to_string(),
                message: message.to_string(),
            },
        }
    }
}
