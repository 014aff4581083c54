//! What a run comes to: the /stats figures over its closed trades, computed by the same
//! functions the live statistics use, and the account at the end.

use chrono_tz::Tz;
use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_core::stats::{
    equity_curve, max_drawdown_pct, period_stats, ClosedTally, PeriodStats,
};
use signaldesk_store::{Trade, TradeStatus};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The /stats answer over the run's closed trades, the equity curve included.
    pub stats: PeriodStats,
    /// Percent below the highest the account's equity (starting balance plus closed pnl)
    /// reached, at its deepest.
    pub max_drawdown_pct: Decimal,
    /// The same deepest fall in USDT.
    pub max_drawdown_usdt: Decimal,
    /// The closed trades' pnl, summed exactly (`stats.total_pnl` is its `f64`).
    pub closed_pnl: Decimal,
    pub fees: Decimal,
    /// Funding paid and received (received positive), already in the trades' pnl.
    pub funding: Decimal,
    pub volume: Decimal,
    pub open_at_end: usize,
    pub starting_balance: Decimal,
    pub final_balance: Decimal,
}

impl Summary {
    pub fn of(
        trades: &[Trade],
        tz: Tz,
        starting_balance: Decimal,
        final_balance: Decimal,
    ) -> Summary {
        let mut closed: Vec<&Trade> = trades
            .iter()
            .filter(|t| t.status == TradeStatus::Closed)
            .collect();
        closed.sort_by_key(|t| (t.closed_at.unwrap_or(0), t.id));
        let tallies: Vec<ClosedTally> = closed
            .iter()
            .map(|t| ClosedTally::trade(t.closed_at.unwrap_or(0), t.pnl))
            .collect();
        let mut stats = period_stats(&tallies, tz);
        stats.equity = equity_curve(&tallies);
        let mut equity = Vec::with_capacity(closed.len() + 1);
        let mut level = starting_balance;
        equity.push(level);
        for trade in &closed {
            level += trade.pnl;
            equity.push(level);
        }
        Summary {
            stats,
            max_drawdown_pct: max_drawdown_pct(&equity),
            max_drawdown_usdt: max_drawdown_usdt(&equity),
            closed_pnl: level - starting_balance,
            fees: trades.iter().map(|t| t.fees).sum(),
            funding: trades.iter().map(|t| t.funding).sum(),
            volume: trades.iter().map(|t| t.volume).sum(),
            open_at_end: trades
                .iter()
                .filter(|t| t.status == TradeStatus::Open)
                .count(),
            starting_balance,
            final_balance,
        }
    }
}

/// The deepest fall of `equity` below its running peak, in its own unit.
fn max_drawdown_usdt(equity: &[Decimal]) -> Decimal {
    let mut peak: Option<Decimal> = None;
    let mut worst = Decimal::ZERO;
    for &level in equity {
        let top = *peak.get_or_insert(level);
        if level > top {
            peak = Some(level);
        }
        worst = worst.max(top - level);
    }
    worst
}

#[cfg(test)]
mod tests {
    use rust_decimal_macros::dec;

    #[test]
    fn the_drawdown_in_usdt_is_the_deepest_fall_below_the_running_peak() {
        let equity = [
            dec!(100),
            dec!(110),
            dec!(95),
            dec!(120),
            dec!(108),
            dec!(125),
        ];
        assert_eq!(super::max_drawdown_usdt(&equity), dec!(15));
        assert_eq!(super::max_drawdown_usdt(&[dec!(100), dec!(101)]), dec!(0));
        assert_eq!(super::max_drawdown_usdt(&[]), dec!(0));
    }
}
