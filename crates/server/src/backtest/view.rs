//! A finished backtest as the API and `signaldesk backtest --json` show it: the /stats
//! figures, the balance, the trades and chains as `/api/trades/` and
//! `/api/martingale_chains/` show them, and the instruments the run traded with.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_backtest::sweep::{Axis, Cell};
use signaldesk_backtest::walk_forward::{Layout, WalkForward, WalkOutcome, WindowOutcome};
use signaldesk_backtest::{Backtest, Candles, Outcome, Summary};
use signaldesk_core::market::Instrument;
use signaldesk_core::settings::BotSettings;
use signaldesk_venue::paper::PaperConfig;
use utoipa::ToSchema;

use crate::wire::rfc3339;
use crate::wire::stats::{ChainView, EquityPointView, StatsView};
use crate::wire::trades::TradeView;

use super::no_trades::NoTradesView;

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
    /// Funding paid and received over the run (received positive), already in the pnl.
    pub funding: f64,
    pub volume: f64,
    /// Trades still open when the period ended.
    pub open_at_end: usize,
    pub starting_balance: f64,
    /// The paper wallet at the end (open trades' entry fees included).
    pub final_balance: f64,
    /// The deepest fall of the balance below its running peak, in USDT.
    pub max_drawdown_usdt: f64,
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
    /// The settings the run traded with (the saved ones with the overrides).
    pub settings: BotSettings,
    /// Where its prices came from, so a trade's chart shows the same ones.
    pub history: HistoryView,
    /// Why the run traded nothing (only when it did not).
    pub no_trades: Option<NoTradesView>,
    /// What each symbol traded by, as the run began: kept with the result, so a later change
    /// of Bybit's specifications does not change it.
    pub instruments: Vec<InstrumentView>,
}

/// A symbol's trading rules in a run: Bybit's, as `candles fetch` stored them (`data`
/// `bybit`), or the simulated market's.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct InstrumentView {
    pub symbol: String,
    /// Prices are whole numbers of it.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub tick_size: Decimal,
    /// Quantities are whole numbers of it.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub qty_step: Decimal,
    /// The smallest order quantity.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub min_qty: Decimal,
    /// The smallest order value, USDT.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub min_notional: Decimal,
    pub max_leverage: u32,
    /// The maintenance margin rate of its liquidation prices (0.005 = 0.5 %): Bybit's first
    /// risk tier, or the paper exchange's.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub maintenance_margin_rate: Decimal,
}

impl InstrumentView {
    pub fn of(instrument: &Instrument, paper: &PaperConfig) -> InstrumentView {
        InstrumentView {
            symbol: instrument.symbol.clone(),
            tick_size: instrument.tick_size,
            qty_step: instrument.qty_step,
            min_qty: instrument.min_qty,
            min_notional: instrument.min_notional,
            max_leverage: instrument.max_leverage,
            maintenance_margin_rate: paper.maintenance_margin_rate_of(&instrument.symbol),
        }
    }

    /// Every instrument `run` trades.
    pub fn all_of(run: &Backtest) -> Vec<InstrumentView> {
        run.instruments
            .iter()
            .map(|i| InstrumentView::of(i, &run.paper))
            .collect()
    }

    /// The instrument it describes.
    pub fn instrument(&self) -> Instrument {
        Instrument {
            symbol: self.symbol.clone(),
            tick_size: self.tick_size,
            qty_step: self.qty_step,
            min_qty: self.min_qty,
            min_notional: self.min_notional,
            max_leverage: self.max_leverage,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct HistoryView {
    /// `simulated` or `bybit`.
    pub data: String,
    /// The simulated market's seed.
    pub seed: Option<u64>,
    /// The first minute read (warm-up included) and the end, Unix ms.
    pub from_ms: i64,
    pub to_ms: i64,
}

impl HistoryView {
    pub fn of(candles: &Candles) -> HistoryView {
        match candles {
            Candles::Simulated {
                seed,
                from_ms,
                to_ms,
                ..
            } => HistoryView {
                data: "simulated".into(),
                seed: Some(*seed),
                from_ms: *from_ms,
                to_ms: *to_ms,
            },
            Candles::Loaded(_) | Candles::Stored(_) => {
                let (from_ms, minutes) = candles.timeline().unwrap_or_default();
                HistoryView {
                    data: "bybit".into(),
                    seed: None,
                    from_ms,
                    to_ms: from_ms + minutes as i64 * 60_000,
                }
            }
        }
    }
}

fn num(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

impl From<Summary> for SummaryView {
    fn from(s: Summary) -> Self {
        SummaryView {
            stats: s.stats.into(),
            max_drawdown_pct: num(s.max_drawdown_pct),
            fees: num(s.fees),
            funding: num(s.funding),
            volume: num(s.volume),
            open_at_end: s.open_at_end,
            starting_balance: num(s.starting_balance),
            final_balance: num(s.final_balance),
            max_drawdown_usdt: num(s.max_drawdown_usdt),
        }
    }
}

impl BacktestResult {
    /// The view of `run`'s `outcome`, keeping at most `max_trades` of its newest trades.
    pub fn of(run: &Backtest, outcome: Outcome, max_trades: usize) -> BacktestResult {
        let trades_total = outcome.trades.len();
        let skip = trades_total.saturating_sub(max_trades);
        let history = HistoryView::of(&run.candles);
        let no_trades = NoTradesView::of(&outcome, &run.signals, &history);
        BacktestResult {
            summary: outcome.summary.into(),
            trades_total,
            trades: outcome
                .trades
                .into_iter()
                .skip(skip)
                .map(TradeView::from)
                .collect(),
            chains: outcome.chains.into_iter().map(ChainView::from).collect(),
            settings: run.settings.clone(),
            history,
            no_trades,
            instruments: InstrumentView::all_of(run),
        }
    }
}

/// A finished sweep: its axes and one cell per combination.
#[derive(Serialize, ToSchema)]
pub struct SweepResult {
    pub sweep: SweepView,
    /// The settings every cell started from (each cell changes only its swept fields); none in a result stored before results kept them.
    pub settings: Option<BotSettings>,
    /// Where its prices came from; none in a result stored before results kept it.
    pub history: Option<HistoryView>,
    /// What each symbol traded by in every cell, as the sweep began.
    pub instruments: Vec<InstrumentView>,
}

#[derive(Serialize, ToSchema)]
pub struct SweepView {
    pub axes: Vec<SweepAxisView>,
    /// One per combination, the last axis's values changing fastest.
    pub cells: Vec<SweepCellView>,
}

#[derive(Serialize, ToSchema)]
pub struct SweepAxisView {
    pub field: String,
    pub values: Vec<serde_json::Value>,
}

#[derive(Serialize, ToSchema)]
pub struct SweepCellView {
    /// The cell's value of each axis, in the axes' order.
    pub values: Vec<serde_json::Value>,
    /// Why this combination could not run.
    pub error: Option<String>,
    /// The run's figures (the same as a single run's `summary`).
    pub summary: Option<SummaryView>,
}

impl SweepResult {
    /// The view of `run`'s sweep along `axes`.
    pub fn of(run: &Backtest, axes: &[Axis], cells: Vec<Cell>) -> SweepResult {
        SweepResult {
            instruments: InstrumentView::all_of(run),
            settings: Some(run.settings.clone()),
            history: Some(HistoryView::of(&run.candles)),
            sweep: SweepView {
                axes: axes
                    .iter()
                    .map(|a| SweepAxisView {
                        field: a.field.clone(),
                        values: a.values.clone(),
                    })
                    .collect(),
                cells: cells
                    .into_iter()
                    .map(|cell| {
                        let values = values_of(axes, &cell.values);
                        let (summary, error) = match cell.outcome {
                            Ok(summary) => (Some(summary.into()), None),
                            Err(why) => (None, Some(why)),
                        };
                        SweepCellView {
                            values,
                            error,
                            summary,
                        }
                    })
                    .collect(),
            },
        }
    }
}

/// What `result` holds: a run's result, a sweep's cells, or a walk-forward's windows.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(untagged)]
pub enum BacktestOutcomeView {
    Run(Box<BacktestResult>),
    Sweep(SweepResult),
    WalkForward(WalkForwardResult),
}

/// A cell's value of each axis, in the axes' order.
fn values_of(
    axes: &[Axis],
    values: &serde_json::Map<String, serde_json::Value>,
) -> Vec<serde_json::Value> {
    axes.iter()
        .map(|a| values.get(&a.field).cloned().unwrap_or_default())
        .collect()
}

/// A finished walk-forward: its windows, the chained out-of-sample curve and totals.
#[derive(Serialize, ToSchema)]
pub struct WalkForwardResult {
    pub walk_forward: WalkForwardView,
    /// The settings every run started from (each changes only the swept fields); none in a result stored before results kept them.
    pub settings: Option<BotSettings>,
    /// Where its prices came from; none in a result stored before results kept it.
    pub history: Option<HistoryView>,
    /// What each symbol traded by in every run, as the walk-forward began.
    pub instruments: Vec<InstrumentView>,
}

#[derive(Serialize, ToSchema)]
pub struct WalkForwardView {
    pub train_days: i64,
    pub test_days: i64,
    /// `total_pnl` or `pnl_over_drawdown`: how each training window's cells were compared.
    pub metric: String,
    /// The swept settings, as in a sweep.
    pub axes: Vec<SweepAxisView>,
    /// The days at the start of the period no window uses (first and last, both included).
    #[schema(format = Date)]
    pub unused_from: Option<String>,
    #[schema(format = Date)]
    pub unused_to: Option<String>,
    /// Oldest first.
    pub windows: Vec<WalkWindowView>,
    /// The chosen cells' pnl over every training window, and over every test window.
    pub in_sample_pnl: f64,
    pub out_of_sample_pnl: f64,
    /// The out-of-sample pnl a day is below half the in-sample pnl a day (all windows
    /// together), the in-sample one positive.
    pub far_below: bool,
    /// The out-of-sample pnl since the first test window began, after each of its closed
    /// trades, the test windows chained (each starting from the balance the one before
    /// left).
    pub equity: Vec<EquityPointView>,
}

#[derive(Serialize, ToSchema)]
pub struct WalkWindowView {
    #[schema(format = Date)]
    pub train_from: String,
    #[schema(format = Date)]
    pub train_to: String,
    #[schema(format = Date)]
    pub test_from: String,
    #[schema(format = Date)]
    pub test_to: String,
    /// The chosen cell's value of each axis, in the axes' order; null when no cell ran.
    pub chosen: Option<Vec<serde_json::Value>>,
    /// The chosen cell on the training window.
    pub in_sample: Option<WalkFiguresView>,
    /// The chosen cell on the test window.
    pub out_of_sample: Option<WalkFiguresView>,
    /// The out-of-sample pnl a day is below half the in-sample pnl a day, the in-sample
    /// one positive.
    pub far_below: bool,
    /// Why no cell was chosen.
    pub error: Option<String>,
}

/// A window's run in figures.
#[derive(Serialize, ToSchema)]
pub struct WalkFiguresView {
    pub total_pnl: f64,
    /// `total_pnl` over the window's days.
    pub pnl_per_day: f64,
    /// The metric's value (on a test window, for comparison only).
    pub score: f64,
    pub total_trades: u64,
    pub win_rate: f64,
    pub max_drawdown_usdt: f64,
    pub max_drawdown_pct: f64,
    pub open_at_end: usize,
    pub starting_balance: f64,
    pub final_balance: f64,
}

impl WalkFiguresView {
    fn of(summary: &Summary, plan: &WalkForward, days: i64) -> WalkFiguresView {
        WalkFiguresView {
            total_pnl: num(summary.closed_pnl),
            pnl_per_day: num(summary.closed_pnl / Decimal::from(days.max(1))),
            score: num(plan.metric.score(summary)),
            total_trades: summary.stats.total_trades,
            win_rate: summary.stats.win_rate,
            max_drawdown_usdt: num(summary.max_drawdown_usdt),
            max_drawdown_pct: num(summary.max_drawdown_pct),
            open_at_end: summary.open_at_end,
            starting_balance: num(summary.starting_balance),
            final_balance: num(summary.final_balance),
        }
    }
}

impl WalkForwardResult {
    /// The view of `run`'s walk-forward along `axes`.
    pub fn of(
        run: &Backtest,
        axes: &[Axis],
        plan: &WalkForward,
        layout: &Layout,
        outcome: WalkOutcome,
    ) -> WalkForwardResult {
        let window = |w: WindowOutcome| WalkWindowView {
            train_from: w.window.train_from.to_string(),
            train_to: w.window.train_to.to_string(),
            test_from: w.window.test_from.to_string(),
            test_to: w.window.test_to.to_string(),
            chosen: w.chosen.as_ref().map(|values| values_of(axes, values)),
            in_sample: w
                .in_sample
                .as_ref()
                .map(|s| WalkFiguresView::of(s, plan, plan.train_days)),
            out_of_sample: w
                .out_of_sample
                .as_ref()
                .map(|s| WalkFiguresView::of(s, plan, plan.test_days)),
            far_below: w.far_below,
            error: w.error,
        };
        WalkForwardResult {
            instruments: InstrumentView::all_of(run),
            settings: Some(run.settings.clone()),
            history: Some(HistoryView::of(&run.candles)),
            walk_forward: WalkForwardView {
                train_days: plan.train_days,
                test_days: plan.test_days,
                metric: plan.metric.name().to_string(),
                axes: axes
                    .iter()
                    .map(|a| SweepAxisView {
                        field: a.field.clone(),
                        values: a.values.clone(),
                    })
                    .collect(),
                unused_from: layout.unused.map(|(from, _)| from.to_string()),
                unused_to: layout.unused.map(|(_, to)| to.to_string()),
                windows: outcome.windows.into_iter().map(window).collect(),
                in_sample_pnl: num(outcome.in_sample_pnl),
                out_of_sample_pnl: num(outcome.out_of_sample_pnl),
                far_below: outcome.far_below,
                equity: outcome
                    .equity
                    .into_iter()
                    .map(|(at_ms, pnl)| EquityPointView {
                        time: rfc3339(at_ms),
                        pnl,
                    })
                    .collect(),
            },
        }
    }
}
