//! Backtesting (issue 19, docs/backtesting.md): the live bot's own trading worker, paper
//! exchange and rating engine driven over history on a clock that runs as fast as the
//! machine allows. Nothing here decides a trade: entries, stops, take profits, trailing
//! stops, liquidations, martingale chains and forbidden windows are the engine's and the
//! paper exchange's code, fed 1-minute price paths and the signal interval's ratings.

pub mod books;
pub mod chart;
pub mod data;
mod feed;
pub mod fetch;
pub mod fetch_instruments;
pub mod import;
pub mod parity;
pub mod path;
pub mod replay;
pub mod request;
mod run;
pub mod stored;
mod summary;
pub mod sweep;
pub mod threads;
pub mod walk_forward;

pub use feed::Candles;
pub use request::{Checked, Data, History, Market, Request, Source};
pub use run::{Backtest, Outcome, Progress, ScratchBooks, ScriptedSignal, Signals};
pub use stored::StoredCandles;
pub use summary::Summary;
pub use threads::{keep_to_one_core, yield_to_the_live_bots};

/// Why a backtest could not run.
#[derive(Debug, thiserror::Error)]
pub enum BacktestError {
    /// What was asked for is wrong: the message of each field.
    #[error("invalid backtest: {}", describe(.0))]
    Invalid(signaldesk_core::validation::FieldErrors),
    #[error("the backtest was cancelled")]
    Cancelled,
    #[error("the period is empty: it must end after it starts")]
    EmptyPeriod,
    #[error("unknown symbol {0}")]
    UnknownSymbol(String),
    #[error("no candles for {0} in the period")]
    NoCandles(String),
    /// `candles fetch` of a symbol Bybit does not trade as a USDT perpetual.
    #[error("Bybit does not trade {symbol} as a USDT perpetual: {why}")]
    NotOnBybit { symbol: String, why: String },
    #[error("market data: {0}")]
    Data(String),
    #[error("the scratch books: {0}")]
    Store(#[from] signaldesk_store::StoreError),
    #[error("the scratch books: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Engine(#[from] signaldesk_engine::EngineError),
    #[error(transparent)]
    Venue(#[from] signaldesk_venue::VenueError),
}

pub(crate) fn describe(fields: &signaldesk_core::validation::FieldErrors) -> String {
    fields
        .iter()
        .map(|(field, messages)| format!("{field}: {}", messages.join(" ")))
        .collect::<Vec<_>>()
        .join("; ")
}
