//! Backtests from the server's side (docs/backtesting.md): the command line, the jobs that
//! run them in the background for the API, and how a result is shown.

pub mod cli;
pub mod fetch_cli;
pub mod jobs;
pub mod parity_cli;
pub mod view;

use signaldesk_backtest::Market;
use signaldesk_venue::paper::PaperConfig;

use crate::config::Config;

/// The deployment's simulated market and paper exchange, which backtests run on.
pub fn market_of(config: &Config) -> Market {
    Market {
        seed: config.market.seed,
        interval_minutes: config.market.interval_minutes,
        paper: PaperConfig {
            starting_balance: config.paper.starting_balance,
            slippage_bps: config.paper.slippage_bps,
            ..PaperConfig::default()
        },
    }
}
