//! Walk-forward sweeps (issue 32, docs/backtesting.md "Walk-forward"): the period cut into
//! consecutive test windows, each after a training window; on each training window every
//! cell of the sweep runs and the best by the chosen metric is picked, then traded on the
//! test window that follows. The out-of-sample (test) results are chained into one account
//! and reported beside the in-sample (training) ones, window by window.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::{Days, NaiveDate};
use chrono_tz::Tz;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use signaldesk_core::market::Candle;
use signaldesk_core::stats::local_dates_range;

use crate::feed::MINUTE_MS;
use crate::sweep::{at_most_max_cells, run_cells, shared, Axis};
use crate::{Backtest, BacktestError, Candles, Progress, Signals, Summary};

/// How a training window's cells are compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// The closed trades' pnl, USDT.
    #[default]
    TotalPnl,
    /// `total_pnl / max(max_drawdown_usdt, 1 USDT)`: pnl per USDT of the deepest fall of
    /// the balance (starting balance plus closed pnl) below its running peak.
    PnlOverDrawdown,
}

impl Metric {
    pub const NAMES: &'static str = "total_pnl or pnl_over_drawdown";

    pub fn name(self) -> &'static str {
        match self {
            Metric::TotalPnl => "total_pnl",
            Metric::PnlOverDrawdown => "pnl_over_drawdown",
        }
    }

    pub fn parse(name: &str) -> Result<Metric, String> {
        match name.trim() {
            "total_pnl" => Ok(Metric::TotalPnl),
            "pnl_over_drawdown" => Ok(Metric::PnlOverDrawdown),
            other => Err(format!(
                "Unknown metric \"{other}\": expected {}.",
                Metric::NAMES
            )),
        }
    }

    /// The run's score: higher is better.
    pub fn score(self, summary: &Summary) -> Decimal {
        match self {
            Metric::TotalPnl => summary.closed_pnl,
            Metric::PnlOverDrawdown => {
                summary.closed_pnl / summary.max_drawdown_usdt.max(Decimal::ONE)
            }
        }
    }
}

/// What a walk-forward asks: the days of each training and test window, and the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkForward {
    pub train_days: i64,
    pub test_days: i64,
    #[serde(default)]
    pub metric: Metric,
}

/// One training window and the test window right after it, dates included, in the user's
/// zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    pub train_from: NaiveDate,
    pub train_to: NaiveDate,
    pub test_from: NaiveDate,
    pub test_to: NaiveDate,
}

/// The windows of a period, and the days at its start no window uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Layout {
    pub windows: Vec<Window>,
    /// The first and last day left out (the period's days beyond a whole number of test
    /// windows), if any.
    pub unused: Option<(NaiveDate, NaiveDate)>,
}

impl WalkForward {
    /// What is wrong with it over `from..=to`: each window at least a day, the period long
    /// enough for one training window and one test window.
    pub fn problems(&self, from: NaiveDate, to: NaiveDate) -> Vec<String> {
        let mut problems = Vec::new();
        if self.train_days < 1 {
            problems.push("train_days must be at least 1 day.".to_string());
        }
        if self.test_days < 1 {
            problems.push("test_days must be at least 1 day.".to_string());
        }
        let days = (to - from).num_days() + 1;
        if problems.is_empty() && days < self.train_days + self.test_days {
            problems.push(format!(
                "The period ({days} days) is shorter than one training window and one test window ({} + {} days).",
                self.train_days, self.test_days
            ));
        }
        problems
    }

    /// The windows over `from..=to` (found valid by [`problems`](Self::problems)): test
    /// windows of `test_days` one after the other, the last ending on `to`, each after the
    /// `train_days` before it; as many as fit after the first training window. The days
    /// left over are at the start.
    pub fn layout(&self, from: NaiveDate, to: NaiveDate) -> Layout {
        let days = (to - from).num_days() + 1;
        let (train, test) = (self.train_days.max(1), self.test_days.max(1));
        let count = ((days - train) / test).max(0);
        let skipped = days - train - count * test;
        let day = |n: i64| from + Days::new(u64::try_from(n).unwrap_or(0));
        let windows = (0..count)
            .map(|k| {
                let start = skipped + k * test;
                Window {
                    train_from: day(start),
                    train_to: day(start + train - 1),
                    test_from: day(start + train),
                    test_to: day(start + train + test - 1),
                }
            })
            .collect();
        Layout {
            windows,
            unused: (skipped > 0).then(|| (from, day(skipped - 1))),
        }
    }
}

/// What one window came to.
#[derive(Debug, Clone, Serialize)]
pub struct WindowOutcome {
    pub window: Window,
    /// The cell picked on the training window; `None` when none of them could run.
    pub chosen: Option<Map<String, Value>>,
    /// The chosen cell's run on the training window and its score.
    pub in_sample: Option<Summary>,
    pub in_sample_score: Option<Decimal>,
    /// The chosen cell's run on the test window, starting from the balance the windows
    /// before left.
    pub out_of_sample: Option<Summary>,
    /// The out-of-sample result is far below the in-sample one ([`far_below`]).
    pub far_below: bool,
    /// Why no cell was picked.
    pub error: Option<String>,
}

/// A walk-forward's result.
#[derive(Debug, Clone, Serialize)]
pub struct WalkOutcome {
    pub windows: Vec<WindowOutcome>,
    /// The chained out-of-sample pnl after each closed trade of the test windows (at most
    /// 500 a window), `(close time ms, pnl since the first test window began)`.
    pub equity: Vec<(i64, f64)>,
    pub in_sample_pnl: Decimal,
    pub out_of_sample_pnl: Decimal,
    /// The same rule over all windows: the sums of the pnl over the sums of the days.
    pub far_below: bool,
}

/// Whether `oos_pnl` over `test_days` is far below `is_pnl` over `train_days`: the training
/// made money and the test earned less than half as much a day (a loss included).
pub fn far_below(is_pnl: Decimal, train_days: i64, oos_pnl: Decimal, test_days: i64) -> bool {
    // oos / test < is / train / 2, multiplied out: no division, no rounding.
    is_pnl > Decimal::ZERO
        && oos_pnl * Decimal::TWO * Decimal::from(train_days.max(1))
            < is_pnl * Decimal::from(test_days.max(1))
}

/// Runs the walk-forward of `base` (the whole period's run, warm-up included) over
/// `layout`'s windows, dates in `tz`, with `axes`' cells on `threads` threads. The
/// candles are read and the signals computed once for all windows; `progress` hears the
/// share of runs done.
pub fn walk_forward(
    base: &Backtest,
    axes: &[Axis],
    plan: &WalkForward,
    layout: &Layout,
    tz: Tz,
    threads: usize,
    progress: &Progress,
) -> Result<WalkOutcome, BacktestError> {
    let combos = at_most_max_cells(axes)?;
    let shared = shared(base)?;
    let runs = layout.windows.len() * (combos.len() + 1);
    let done = AtomicUsize::new(0);
    let tick = || {
        let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress.set(finished as f64 / runs.max(1) as f64);
    };
    let mut balance = shared.paper.starting_balance;
    let mut equity = Vec::new();
    let mut windows = Vec::with_capacity(layout.windows.len());
    for window in &layout.windows {
        let (train_from, train_to) = local_dates_range(window.train_from, window.train_to, tz);
        let training = on_window(&shared, train_from, train_to)?;
        let cells = run_cells(&training, &combos, threads, progress, &tick)?;
        drop(training);
        let best = cells
            .into_iter()
            .filter_map(|cell| {
                let summary = cell.outcome.ok()?;
                Some((plan.metric.score(&summary), cell.values, summary))
            })
            // The first of equal scores stays: ties go to the earlier cell in sweep order.
            .fold(None, |best: Option<(Decimal, _, _)>, next| match best {
                Some(b) if b.0 >= next.0 => Some(b),
                _ => Some(next),
            });
        let Some((score, values, in_sample)) = best else {
            windows.push(WindowOutcome {
                window: *window,
                chosen: None,
                in_sample: None,
                in_sample_score: None,
                out_of_sample: None,
                far_below: false,
                error: Some("No cell could run on the training window.".into()),
            });
            tick();
            continue;
        };
        let (test_from, test_to) = local_dates_range(window.test_from, window.test_to, tz);
        let mut testing = on_window(&shared, test_from, test_to)?;
        testing.settings = shared
            .settings
            .apply(&values)
            .map_err(BacktestError::Invalid)?;
        testing.paper.starting_balance = balance;
        if progress.is_cancelled() {
            return Err(BacktestError::Cancelled);
        }
        let out = testing.run_on_a_core(&Progress::default())?.summary;
        tick();
        let before = (balance - shared.paper.starting_balance)
            .to_f64()
            .unwrap_or(0.0);
        equity.extend(
            out.stats
                .equity
                .iter()
                .map(|point| (point.at_ms, before + point.pnl)),
        );
        balance += out.closed_pnl;
        windows.push(WindowOutcome {
            window: *window,
            far_below: far_below(
                in_sample.closed_pnl,
                plan.train_days,
                out.closed_pnl,
                plan.test_days,
            ),
            chosen: Some(values),
            in_sample: Some(in_sample),
            in_sample_score: Some(score),
            out_of_sample: Some(out),
            error: None,
        });
    }
    let pnl_of = |pick: fn(&WindowOutcome) -> Option<&Summary>| -> Decimal {
        windows.iter().filter_map(pick).map(|s| s.closed_pnl).sum()
    };
    let in_sample_pnl = pnl_of(|w| w.in_sample.as_ref());
    let out_of_sample_pnl = pnl_of(|w| w.out_of_sample.as_ref());
    let n = layout.windows.len() as i64;
    Ok(WalkOutcome {
        far_below: far_below(
            in_sample_pnl,
            n * plan.train_days,
            out_of_sample_pnl,
            n * plan.test_days,
        ),
        windows,
        equity,
        in_sample_pnl,
        out_of_sample_pnl,
    })
}

/// `shared` (candles loaded, signals scripted) trading only over `[from_ms, to_ms)`: the
/// candles from the minute before (whose close is the first price) to the end, the signals
/// taken in that time.
fn on_window(shared: &Backtest, from_ms: i64, to_ms: i64) -> Result<Backtest, BacktestError> {
    let (Candles::Loaded(all), Signals::Scripted(signals)) = (&shared.candles, &shared.signals)
    else {
        return Err(BacktestError::Data(
            "a walk-forward's history is not loaded".into(),
        ));
    };
    let first_ms = from_ms - MINUTE_MS;
    let candles: BTreeMap<String, Vec<Candle>> = all
        .iter()
        .map(|(symbol, list)| {
            // Oldest first, one a minute.
            let a = list.partition_point(|c| c.open_time_ms < first_ms);
            let b = list.partition_point(|c| c.open_time_ms < to_ms);
            (symbol.clone(), list[a..b.max(a)].to_vec())
        })
        .filter(|(_, kept)| !kept.is_empty())
        .collect();
    if candles.is_empty() {
        return Err(BacktestError::EmptyPeriod);
    }
    let signals = signals
        .iter()
        .filter(|s| s.at_ms > first_ms && s.at_ms < to_ms)
        .cloned()
        .collect();
    Ok(Backtest {
        candles: Candles::Loaded(Arc::new(candles)),
        signals: Signals::Scripted(Arc::new(signals)),
        from_ms,
        ..shared.clone()
    })
}
