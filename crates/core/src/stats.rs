//! Statistics over closed trades. Pure functions of plain values, so every figure the
//! dashboard shows can be checked by hand.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::Serialize;

/// The live statistics card and the `statistics` websocket message (spec section 3).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LiveStatistics {
    pub total_trades: u64,
    /// Trades closed with pnl > 0.
    pub winning_trades: u64,
    /// Trades closed with pnl <= 0.
    pub losing_trades: u64,
    /// Percent of trades that won, 0 when there are none.
    pub win_rate: f64,
    pub total_profit: f64,
    pub average_profit: f64,
    /// Largest peak-to-trough fall of the equity curve, in percent of the peak.
    pub max_drawdown: f64,
}

/// Win/loss counts and profit of `pnls` (one per closed trade), and the drawdown of
/// `equity_curve` (account equity over time, oldest first).
pub fn live_statistics(pnls: &[Decimal], equity_curve: &[Decimal]) -> LiveStatistics {
    let total_trades = pnls.len() as u64;
    let winning_trades = pnls.iter().filter(|p| **p > Decimal::ZERO).count() as u64;
    let total: Decimal = pnls.iter().sum();
    let as_f64 = |d: Decimal| d.to_f64().unwrap_or(0.0);
    LiveStatistics {
        total_trades,
        winning_trades,
        losing_trades: total_trades - winning_trades,
        win_rate: if total_trades == 0 {
            0.0
        } else {
            winning_trades as f64 * 100.0 / total_trades as f64
        },
        total_profit: as_f64(total),
        average_profit: if total_trades == 0 {
            0.0
        } else {
            as_f64(total / Decimal::from(total_trades))
        },
        max_drawdown: as_f64(max_drawdown_pct(equity_curve)),
    }
}

/// The largest fall from a running peak to a later trough, in percent of that peak; zero
/// for a curve that never falls (or never rises above zero).
pub fn max_drawdown_pct(equity_curve: &[Decimal]) -> Decimal {
    let mut peak: Option<Decimal> = None;
    let mut worst = Decimal::ZERO;
    for &equity in equity_curve {
        let top = match peak {
            Some(p) if p >= equity => p,
            _ => {
                peak = Some(equity);
                equity
            }
        };
        if top > Decimal::ZERO {
            let fall = (top - equity) * Decimal::ONE_HUNDRED / top;
            worst = worst.max(fall);
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn no_trades_is_all_zero() {
        assert_eq!(live_statistics(&[], &[]), LiveStatistics::default());
    }

    #[test]
    fn zero_pnl_counts_as_a_loss() {
        let s = live_statistics(&[dec!(10), dec!(0), dec!(-4), dec!(2)], &[]);
        assert_eq!(s.total_trades, 4);
        assert_eq!(s.winning_trades, 2);
        assert_eq!(s.losing_trades, 2);
        assert_eq!(s.win_rate, 50.0);
        assert_eq!(s.total_profit, 8.0);
        assert_eq!(s.average_profit, 2.0);
    }

    #[test]
    fn drawdown_is_the_deepest_fall_from_a_running_peak() {
        // Peak 120, trough 90: 25 %; the later fall from 150 to 135 is only 10 %.
        let curve = [
            dec!(100),
            dec!(120),
            dec!(90),
            dec!(110),
            dec!(150),
            dec!(135),
        ];
        assert_eq!(max_drawdown_pct(&curve), dec!(25));
        assert_eq!(max_drawdown_pct(&[dec!(1), dec!(2), dec!(3)]), dec!(0));
        assert_eq!(max_drawdown_pct(&[]), dec!(0));
    }
}
