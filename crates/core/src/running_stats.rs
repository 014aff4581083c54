//! All-time live statistics kept up to date one close at a time, so the `statistics` message
//! and `GET /api/statistics/?period=all` cost the same after ten trades or a million.
//!
//! The live figures ([`crate::stats::live_statistics`]) are counts and sums, which add up, and
//! the drawdown of an equity curve that *ends at today's equity*: its levels are
//! `c + S_k`, where `S_k` is the sum of the first `k` pnls (`S_0 = 0`) and `c = equity - S_n`.
//! `c` moves whenever the wallet moves without a close (an opening fee, a deposit), so the
//! drawdown cannot be kept as one number. What does not move is the shape of the pnl path:
//! it splits into runs, each starting at a new high `M` of `S` and going down to a lowest
//! `S` before the next high, a fall of depth `D = M - min S`. The curve's drawdown is the
//! largest `D * 100 / (c + M)` over the runs whose top `c + M` is above zero. Seen from the
//! point `(-c, 0)`, that is the steepest line to a point `(M, D)`, and for `-c` left of every
//! point it touches the upper convex hull of the points: only the hull's corners are kept
//! (usually a handful), the rest can never be the largest. The first run (top at `S = 0`)
//! and the run still going are kept apart, and a `c` that puts a kept point at or left of
//! `-c` (a curve that starts at or below zero) answers None: the caller then walks the
//! trades, as before.

use std::fmt::Write;
use std::str::FromStr;

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use crate::stats::LiveStatistics;

/// One finished run of the pnl path: its high `peak` (> 0) and its `depth` below it (> 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fall {
    pub peak: Decimal,
    pub depth: Decimal,
}

/// Everything the all-time live statistics need, whatever the number of trades.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunningStatistics {
    pub trades: u64,
    /// Trades with pnl > 0.
    pub wins: u64,
    /// Sum of every pnl: `S_n`.
    pub pnl: Decimal,
    /// The highest `S` so far (0 before any gain): the top of the run still going.
    pub peak: Decimal,
    /// The lowest `S` since `peak` was reached.
    pub trough: Decimal,
    /// Depth of the first run (the one whose top is the curve's start, `S = 0`) once it ended.
    pub first_depth: Decimal,
    /// Finished runs after the first that can still be the deepest fall: the upper convex
    /// hull of their (peak, depth), by peak.
    pub falls: Vec<Fall>,
}

/// `(top - bottom) * 100 / top` for `top > 0`: the fall the reference computes point by point.
fn fall_pct(top: Decimal, depth: Decimal) -> Option<Decimal> {
    (top > Decimal::ZERO).then(|| depth * Decimal::ONE_HUNDRED / top)
}

/// Whether `b` is on or under the line from `a` to `c` (peaks increasing): then no line from
/// a point left of all three is steeper to `b` than to `a` or `c`. False when unsure (a
/// product too large for a decimal), which only keeps a point too many.
fn under_chord(a: Fall, b: Fall, c: Fall) -> bool {
    let left = (b.peak - a.peak).checked_mul(c.depth - a.depth);
    let right = (b.depth - a.depth).checked_mul(c.peak - a.peak);
    matches!((left, right), (Some(l), Some(r)) if l >= r)
}

impl RunningStatistics {
    /// The figures of `pnls`, in close order.
    pub fn of(pnls: &[Decimal]) -> RunningStatistics {
        let mut running = RunningStatistics::default();
        for &pnl in pnls {
            running.push(pnl);
        }
        running
    }

    /// Adds the next close (the latest in close order).
    pub fn push(&mut self, pnl: Decimal) {
        self.trades += 1;
        self.wins += u64::from(pnl > Decimal::ZERO);
        self.pnl += pnl;
        if self.pnl > self.peak {
            self.finish_run();
            self.peak = self.pnl;
            self.trough = self.pnl;
        } else if self.pnl < self.trough {
            self.trough = self.pnl;
        }
    }

    fn finish_run(&mut self) {
        let depth = self.peak - self.trough;
        if self.peak.is_zero() {
            self.first_depth = depth;
            return;
        }
        if depth <= Decimal::ZERO {
            return;
        }
        let point = Fall {
            peak: self.peak,
            depth,
        };
        while let [.., a, b] = self.falls[..] {
            if !under_chord(a, b, point) {
                break;
            }
            self.falls.pop();
        }
        self.falls.push(point);
    }

    /// The live statistics of these closes on a curve that ends at `equity`; None when that
    /// curve starts too low for the kept runs to decide (see the module's text).
    pub fn live(&self, equity: Decimal) -> Option<LiveStatistics> {
        let c = equity - self.pnl;
        if let Some(first) = self.falls.first() {
            if c + first.peak <= Decimal::ZERO {
                return None;
            }
        }
        let (first_depth, current) = if self.peak.is_zero() {
            (self.peak - self.trough, None)
        } else {
            (self.first_depth, Some((self.peak, self.peak - self.trough)))
        };
        let mut worst = Decimal::ZERO;
        let runs = self
            .falls
            .iter()
            .map(|f| (f.peak, f.depth))
            .chain(current)
            .chain([(Decimal::ZERO, first_depth)]);
        for (peak, depth) in runs {
            if let Some(fall) = fall_pct(c + peak, depth) {
                worst = worst.max(fall);
            }
        }
        let as_f64 = |d: Decimal| d.to_f64().unwrap_or(0.0);
        let n = self.trades;
        Some(LiveStatistics {
            total_trades: n,
            winning_trades: self.wins,
            losing_trades: n - self.wins,
            win_rate: if n == 0 {
                0.0
            } else {
                self.wins as f64 * 100.0 / n as f64
            },
            total_profit: as_f64(self.pnl),
            average_profit: if n == 0 {
                0.0
            } else {
                as_f64(self.pnl / Decimal::from(n))
            },
            max_drawdown: as_f64(worst),
        })
    }

    /// The kept runs as text, `peak:depth` joined by `;` (how the store keeps them).
    pub fn falls_text(&self) -> String {
        let mut out = String::new();
        for (i, f) in self.falls.iter().enumerate() {
            if i > 0 {
                out.push(';');
            }
            let _ = write!(out, "{}:{}", f.peak, f.depth);
        }
        out
    }

    /// Reads [`RunningStatistics::falls_text`] back; None when it is not such a text.
    pub fn parse_falls(text: &str) -> Option<Vec<Fall>> {
        if text.is_empty() {
            return Some(Vec::new());
        }
        text.split(';')
            .map(|pair| {
                let (peak, depth) = pair.split_once(':')?;
                Some(Fall {
                    peak: Decimal::from_str(peak).ok()?,
                    depth: Decimal::from_str(depth).ok()?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::live_statistics;
    use rust_decimal_macros::dec;

    /// The reference: every trade walked, the curve ending at `equity` (engine::live).
    fn full_scan(pnls: &[Decimal], equity: Decimal) -> LiveStatistics {
        let total: Decimal = pnls.iter().sum();
        let mut level = equity - total;
        let mut curve = vec![level];
        for p in pnls {
            level += p;
            curve.push(level);
        }
        live_statistics(pnls, &curve)
    }

    /// A small deterministic generator (xorshift), so failures replay.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> i64 {
            (self.next() % n) as i64
        }
    }

    #[test]
    fn no_trades_is_all_zero_at_any_equity() {
        let running = RunningStatistics::default();
        assert_eq!(running.live(dec!(100)), Some(LiveStatistics::default()));
        assert_eq!(running.live(dec!(0)), Some(LiveStatistics::default()));
    }

    #[test]
    fn equals_the_full_scan_on_random_histories_at_any_equity() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut decided = 0;
        for case in 0..3000 {
            let len = rng.below(if case % 10 == 0 { 2000 } else { 60 }) as usize;
            // Some histories drift up (many runs), some down, some have pnls of one sign.
            let drift = rng.below(7) - 3;
            let scale = [1, 100, 10_000][rng.below(3) as usize];
            let pnls: Vec<Decimal> = (0..len)
                .map(|_| Decimal::new((rng.below(2001) - 1000 + drift * 100) * scale, 4))
                .collect();
            let running = RunningStatistics::of(&pnls);
            assert!(running.falls.len() <= len);
            let total: Decimal = pnls.iter().sum();
            // The start of the curve from far below zero to far above the moves.
            for start in [
                dec!(-50),
                dec!(0),
                dec!(0.0001),
                dec!(3),
                dec!(77.7),
                dec!(1000),
                Decimal::new(rng.below(1_000_000), 2),
            ] {
                let equity = start * Decimal::from(scale) + total;
                let expected = full_scan(&pnls, equity);
                match running.live(equity) {
                    Some(fast) => {
                        decided += 1;
                        assert_eq!(fast, expected, "case {case}, start {start}: {pnls:?}");
                    }
                    None => assert!(start <= Decimal::ZERO, "case {case}: undecided at {start}"),
                }
            }
        }
        assert!(decided > 15_000, "{decided}");
    }

    #[test]
    fn adding_closes_one_by_one_equals_building_from_all_of_them() {
        let pnls: Vec<Decimal> = (0..500)
            .map(|i| Decimal::new((i * 7919 % 401) - 190, 2))
            .collect();
        let mut running = RunningStatistics::default();
        for (i, p) in pnls.iter().enumerate() {
            running.push(*p);
            assert_eq!(running, RunningStatistics::of(&pnls[..=i]));
        }
    }

    #[test]
    fn only_the_hull_of_the_falls_is_kept() {
        // Highs 10, 20, 30 with falls 5, 1, 9: the fall under 20 is under the chord.
        let pnls = [
            dec!(10),
            dec!(-5),
            dec!(15),
            dec!(-1),
            dec!(11),
            dec!(-9),
            dec!(20),
        ];
        let running = RunningStatistics::of(&pnls);
        assert_eq!(
            running.falls,
            vec![
                Fall {
                    peak: dec!(10),
                    depth: dec!(5)
                },
                Fall {
                    peak: dec!(30),
                    depth: dec!(9)
                }
            ]
        );
        let text = running.falls_text();
        assert_eq!(text, "10:5;30:9");
        assert_eq!(RunningStatistics::parse_falls(&text), Some(running.falls));
        assert_eq!(RunningStatistics::parse_falls(""), Some(Vec::new()));
        assert_eq!(RunningStatistics::parse_falls("1:x"), None);
    }
}
