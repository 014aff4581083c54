//! Backtests from the server's side (docs/backtesting.md): the command line, the jobs that
//! run them in the background for the API, and how a result is shown.

pub mod cli;
pub mod fetch_cli;
pub mod import_cli;
pub mod jobs;
pub mod no_trades;
pub mod parity_cli;
pub mod view;

use signaldesk_backtest::parity::AccountMarket;
use signaldesk_backtest::{BacktestError, Market};
use signaldesk_core::account::AccountVenue;
use signaldesk_engine::market::simulated_config;
use signaldesk_engine::market_anchor;
use signaldesk_engine::paper::PaperMarket;
use signaldesk_venue::market::sim::SimAnchor;
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

/// The market an account on `venue` trades on, as parity replays it, and that market's time
/// at wall time `wall_ms`: a paper account on the simulated market replays the path recorded
/// in the data dir (a fresh one of the configured market when none is recorded yet, where
/// nothing has traded), on the market's clock; any other account, Bybit's stored candles on
/// the wall clock.
pub fn account_market(
    config: &Config,
    venue: AccountVenue,
    wall_ms: i64,
) -> Result<(AccountMarket, i64), BacktestError> {
    let market = market_of(config);
    if venue != AccountVenue::Paper || config.paper.market != PaperMarket::Simulated {
        return Ok((AccountMarket::Bybit(market), wall_ms));
    }
    let anchor = match market_anchor::load(&market_anchor::path_in(&config.data_dir)) {
        Some(recorded) => recorded,
        None => {
            let sim =
                simulated_config(&config.market).map_err(|e| BacktestError::Data(e.to_string()))?;
            SimAnchor::fresh(&sim, wall_ms)
        }
    };
    let now_ms = anchor.clock.market_at(wall_ms);
    Ok((
        AccountMarket::Simulated {
            anchor,
            paper: market.paper,
        },
        now_ms,
    ))
}
