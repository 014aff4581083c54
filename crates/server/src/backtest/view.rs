//! A finished backtest as the API and `signaldesk backtest --json` show it: the /stats
//! figures, the balance, and the trades and chains as `/api/trades/` and
//! `/api/martingale_chains/` show them.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_backtest::Outcome;
use utoipa::ToSchema;

use crate::api::stats::{ChainView, StatsView};
use crate::api::trades::TradeView;

/// The most trades a stored result keeps (the newest); the figures count them all.
pub const MAX_TRADES_KEPT: usize = 5_000;

#[derive(Serialize, ToSchema)]
pub struct SummaryView {
    /// The /stats answer over the run's closed trades (equity curve included).
    pub stats: StatsView,
    /// The deepest fall of the balance (starting balance plus closed pnl) below its running
    /// peak, in percent.
    pub max_drawdown_pct: f64,
    pub fees: f64,
    pub volume: f64,
    /// Trades still open when the period ended.
    pub open_at_end: usize,
    pub starting_balance: f64,
    /// The paper wallet at the end (open trades' entry fees included).
    pub final_balance: f64,
}

#[derive(Serialize, ToSchema)]
pub struct BacktestResult {
    pub summary: SummaryView,
    /// Every trade of the run, including those not listed below.
    pub trades_total: usize,
    /// The trades, oldest first (at most the newest 5,000).
    pub trades: Vec<TradeView>,
    /// The martingale chains, with their trades.
    pub chains: Vec<ChainView>,
}

fn num(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

impl BacktestResult {
    /// The view of `outcome`, keeping at most `max_trades` of its newest trades.
    pub fn of(outcome: Outcome, max_trades: usize) -> BacktestResult {
        let s = outcome.summary;
        let trades_total = outcome.trades.len();
        let skip = trades_total.saturating_sub(max_trades);
        BacktestResult {
            summary: SummaryView {
                stats: s.stats.into(),
                max_drawdown_pct: num(s.max_drawdown_pct),
                fees: num(s.fees),
                volume: num(s.volume),
                open_at_end: s.open_at_end,
                starting_balance: num(s.starting_balance),
                final_balance: num(s.final_balance),
            },
            trades_total,
            trades: outcome
                .trades
                .into_iter()
                .skip(skip)
                .map(TradeView::from)
                .collect(),
            chains: outcome.chains.into_iter().map(ChainView::from).collect(),
        }
    }
}
