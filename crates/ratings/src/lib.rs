//! Technical ratings for Signal Desk: the 26 indicator votes of TradingView's
//! "Technical Ratings" (15 moving averages, 11 oscillators), computed locally
//! and incrementally from closed candles, averaged per group into the
//! `ma`, `osc` and `total` ratings and a STRONG_BUY ... STRONG_SELL
//! recommendation. The signal worker keeps one [`RatingEngine`] per symbol
//! and feeds it each closed candle; [`report_for`] and [`parse_candles_csv`]
//! serve one-off ratings such as `signaldesk ratings --candles FILE.csv`, and
//! [`report_batch`] rates many symbols' histories at once (a cold start;
//! [`extend_batch`] gives their engines, to follow them on).
//! Those cold paths ([`RatingEngine::try_extend`]) give bit for bit what
//! feeding the candles one by one gives, for a fraction of the work.
//! [`EveryBar`] ([`every_bar_for`], [`every_bar_batch`],
//! [`every_bar_batch_with`]) rates every bar of a history at once, by
//! column: on each bar, bit for bit what [`RatingEngine::report`] gives
//! after that bar's candle.
//!
//! Pure computation in `f64`: no I/O, no clock, no global state. Indicator
//! values follow TA-Lib where TA-Lib has the indicator; the vote rules,
//! warm-up and thresholds are listed in `docs/ratings.md`.
//!
//! ```
//! use signaldesk_ratings::{Candle, RatingEngine, Recommendation};
//!
//! let mut engine = RatingEngine::new();
//! for i in 0..300 {
//!     let close = 100.0 + i as f64 * 0.5;
//!     let candle = Candle {
//!         time: 1_700_000_000_000 + i * 60_000,
//!         open: close - 0.2,
//!         high: close + 0.3,
//!         low: close - 0.4,
//!         close,
//!         volume: 10.0,
//!     };
//!     engine.update(&candle);
//! }
//! // A steady climb: the moving averages lag below the price.
//! let rating = engine.rating();
//! assert!(rating.ma > 0.5);
//! assert!(matches!(
//!     rating.recommendation,
//!     Recommendation::Buy | Recommendation::StrongBuy
//! ));
//! ```

mod candle;
mod csv;
mod engine;
mod every_bar;
mod indicators;
mod kernel;
mod lane;
mod rating;
mod recursions;
mod votes;
mod window;

pub use candle::{Candle, CandleError};
pub use csv::{parse_candles_csv, CsvError, CSV_HEADER};
pub use engine::{extend_batch, report_batch, report_for, RatingEngine, ReportError};
pub use every_bar::{every_bar_batch, every_bar_batch_with, every_bar_for, EveryBar};
pub use kernel::Kernel;
pub use rating::{
    Group, Indicator, IndicatorReading, Indicators, Rating, RatingReport, Recommendation,
};
