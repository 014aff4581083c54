//! What a trader asks for (dates, symbols, signal source, history, settings changes),
//! checked, then turned into a run on the simulated market or stored Bybit history: the same
//! rules for the command line and the API.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use signaldesk_core::market::Instrument;
use signaldesk_core::settings::{bound, BotSettings};
use signaldesk_core::stats::local_dates_range;
use signaldesk_core::validation::FieldErrors;
use signaldesk_store::Store;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::paper::PaperConfig;

use crate::data::{check_stored, instruments_of, stored_history, universe};
use crate::sweep::{Axis, MAX_CELLS};
use crate::walk_forward::{Layout, WalkForward};
use crate::{Backtest, BacktestError, Candles, ScriptedSignal, Signals};

/// Candles of the signal interval read before the period to warm the ratings up: as many as
/// the live rating hub starts from.
pub const WARMUP_CANDLES: i64 = 300;
/// The longest period one run covers.
pub const MAX_DAYS: i64 = 366;
/// The most symbols times days one sweep covers: its history is held in memory for all its
/// runs (about 127 kB a symbol-day, 1,440 candles of 88 bytes).
pub const MAX_SWEEP_SYMBOL_DAYS: i64 = 2_400;

/// Where a run's prices come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Data {
    /// The simulated market's history (any period, offline).
    #[default]
    Simulated,
    /// Bybit's 1-minute candles stored by `signaldesk candles fetch`.
    Bybit,
}

/// Where a run's signals come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The rating engine over the history's candles.
    #[default]
    Ratings,
    /// The user's own TradingView alerts, as the webhook stored them in the period.
    Alerts,
}

#[derive(Debug, Clone)]
pub struct Request {
    /// First and last day, both included, in the user's zone.
    pub date_from: NaiveDate,
    pub date_to: NaiveDate,
    /// Empty: every symbol of the market.
    pub symbols: Vec<String>,
    pub source: Source,
    pub data: Data,
    /// Settings fields to use instead of the saved ones, checked as a settings update is.
    pub overrides: Map<String, Value>,
    /// One or two settings and their values: a sweep, one run per combination.
    pub sweep: Vec<Axis>,
    /// With a sweep: pick its best cell on each training window, trade it on the next test
    /// window ([`crate::walk_forward`]).
    pub walk_forward: Option<WalkForward>,
}

/// The simulated market a run reads (the deployment's seed, its signal interval) and the
/// paper exchange it trades on.
#[derive(Debug, Clone)]
pub struct Market {
    pub seed: u64,
    pub interval_minutes: u32,
    pub paper: PaperConfig,
}

/// A request found valid: what [`Checked::load`] needs to build the run.
#[derive(Debug, Clone)]
pub struct Checked {
    pub settings: BotSettings,
    pub symbols: Vec<String>,
    pub source: Source,
    pub data: Data,
    /// The period, `[from_ms, to_ms)`.
    pub from_ms: i64,
    pub to_ms: i64,
    /// Empty for a single run.
    pub sweep: Vec<Axis>,
    /// A walk-forward of the sweep and its windows.
    pub walk_forward: Option<(WalkForward, Layout)>,
}

impl Request {
    /// Checks the request on top of the `saved` settings, naming every wrong field
    /// ([`BacktestError::Invalid`]); reads no data. `today` is the user's date: history
    /// ends there.
    pub fn check(&self, saved: &BotSettings, today: NaiveDate) -> Result<Checked, BacktestError> {
        let mut errors = FieldErrors::new();
        let settings = match saved.apply(&self.overrides) {
            Ok(settings) => Some(settings),
            Err(fields) => {
                for (field, messages) in fields {
                    errors.insert(format!("overrides.{field}"), messages);
                }
                None
            }
        };
        let days = (self.date_to - self.date_from).num_days() + 1;
        if days < 1 {
            errors.insert(
                "date_to".into(),
                vec!["The period must end on or after date_from.".into()],
            );
        } else if days > MAX_DAYS {
            errors.insert(
                "date_to".into(),
                vec![format!("The period is longer than {MAX_DAYS} days.")],
            );
        } else if self.date_to > today {
            errors.insert(
                "date_to".into(),
                vec![format!("There is no history after today ({today}).")],
            );
        }
        let universe = universe();
        let symbols = if self.symbols.is_empty() {
            universe
        } else {
            let mut chosen = Vec::new();
            for symbol in &self.symbols {
                let symbol = symbol.trim().to_uppercase();
                // Stored history trades whatever was fetched (checked against the store with
                // the candles); the simulated market, its own universe.
                let problem = match self.data {
                    Data::Simulated if !universe.contains(&symbol) => {
                        Some(format!("Unknown symbol {symbol}."))
                    }
                    Data::Bybit if !is_symbol_name(&symbol) => {
                        Some(format!("Not a symbol: {symbol:?}."))
                    }
                    _ => None,
                };
                if let Some(problem) = problem {
                    errors.entry("symbols".into()).or_default().push(problem);
                } else if !chosen.contains(&symbol) {
                    chosen.push(symbol);
                }
            }
            chosen
        };
        if let Some(settings) = &settings {
            let problems = sweep_problems(&self.sweep, settings, symbols.len(), days);
            if !problems.is_empty() {
                errors.insert("sweep".into(), problems);
            }
        }
        if let Some(plan) = &self.walk_forward {
            let mut problems = plan.problems(self.date_from, self.date_to);
            if self.sweep.is_empty() {
                problems
                    .push("A walk-forward picks among a sweep's cells: give a sweep.".to_string());
            }
            if !problems.is_empty() {
                errors.insert("walk_forward".into(), problems);
            }
        }
        let Some(settings) = settings.filter(|_| errors.is_empty()) else {
            return Err(BacktestError::Invalid(errors));
        };
        let (from_ms, to_ms) = local_dates_range(self.date_from, self.date_to, settings.timezone());
        Ok(Checked {
            settings,
            symbols,
            source: self.source,
            data: self.data,
            from_ms,
            to_ms,
            sweep: self.sweep.clone(),
            walk_forward: self
                .walk_forward
                .map(|plan| (plan, plan.layout(self.date_from, self.date_to))),
        })
    }
}

/// Whether `name` can be a Bybit symbol: 1 to 30 ASCII capitals and digits (`WIFUSDT`,
/// `1000PEPEUSDT`).
pub fn is_symbol_name(name: &str) -> bool {
    (1..=30).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// What is wrong with a sweep on top of `settings` over `symbols` symbols and `days` days:
/// at most two settings, each a bounded settings field once, with values the settings
/// accept; at most [`MAX_CELLS`] runs; a history small enough to hold in memory.
fn sweep_problems(axes: &[Axis], settings: &BotSettings, symbols: usize, days: i64) -> Vec<String> {
    if axes.is_empty() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    if axes.len() > 2 {
        problems.push("A sweep varies one or two settings.".to_string());
    }
    for (i, axis) in axes.iter().enumerate() {
        if bound(&axis.field).is_none() {
            problems.push(format!("Unknown setting {}.", axis.field));
            continue;
        }
        if axes[..i].iter().any(|a| a.field == axis.field) {
            problems.push(format!("{} is swept twice.", axis.field));
        }
        if axis.values.is_empty() {
            problems.push(format!("{} needs at least one value.", axis.field));
        }
        for value in &axis.values {
            let change = Map::from_iter([(axis.field.clone(), value.clone())]);
            if let Err(fields) = settings.apply(&change) {
                let why: Vec<String> = fields.into_values().flatten().collect();
                problems.push(format!("{} = {value}: {}", axis.field, why.join(" ")));
            }
        }
    }
    let cells: usize = axes.iter().map(|a| a.values.len()).product();
    if cells > MAX_CELLS {
        problems.push(format!(
            "At most {MAX_CELLS} runs in one sweep ({cells} asked)."
        ));
    }
    let symbol_days = symbols as i64 * days.max(0);
    if symbol_days > MAX_SWEEP_SYMBOL_DAYS {
        problems.push(format!(
            "A sweep holds its history in memory: at most {MAX_SWEEP_SYMBOL_DAYS} symbol-days (e.g. 20 symbols over 120 days), {symbol_days} asked."
        ));
    }
    problems
}

/// A run's 1-minute history and what it trades.
#[derive(Debug, Clone)]
pub struct History {
    pub instruments: Vec<Instrument>,
    /// The maintenance margin rates that are the venue's own, by symbol (Bybit's first risk
    /// tier); the paper exchange's rate for any other.
    pub maintenance_margin_rates: BTreeMap<String, Decimal>,
    pub candles: Candles,
    /// The funding rates positions pay at each settlement.
    pub funding: FundingRates,
}

impl Checked {
    /// The run: the 1-minute history of the period and its warm-up, and the signals (the
    /// ratings, or `user_id`'s alerts read from `store`).
    pub async fn load(
        self,
        market: &Market,
        store: &Store,
        user_id: i64,
    ) -> Result<Backtest, BacktestError> {
        let alerts = self.alerts(store, user_id).await?;
        let stored = self.stored(market, store).await?;
        self.build(market, stored, alerts).await
    }

    fn warmup_from(&self, market: &Market) -> i64 {
        self.from_ms - WARMUP_CANDLES * i64::from(market.interval_minutes.max(1)) * 60_000
    }

    /// With [`Data::Bybit`], whether the stored candles cover the period and the symbols'
    /// instruments are stored (cheap: a few reads per symbol); [`BacktestError::Invalid`]
    /// naming `data` otherwise.
    pub async fn check_stored(&self, store: &Store) -> Result<(), BacktestError> {
        if self.data != Data::Bybit {
            return Ok(());
        }
        check_stored(store, &self.symbols, self.from_ms, self.to_ms).await
    }

    /// With [`Data::Bybit`], the stored candles, read as the run goes, and the stored
    /// instruments (the period must be covered and every instrument stored:
    /// [`BacktestError::Invalid`] otherwise); `None` for the simulated market. Call
    /// it on the runtime whose store this is: the run's reads go through it.
    pub async fn stored(
        &self,
        market: &Market,
        store: &Store,
    ) -> Result<Option<History>, BacktestError> {
        if self.data != Data::Bybit {
            return Ok(None);
        }
        let history = stored_history(
            store,
            &self.symbols,
            self.warmup_from(market),
            self.from_ms,
            self.to_ms,
        )
        .await?;
        Ok(Some(history))
    }

    /// With [`Source::Alerts`], the user's alerts of the period from the store; `None` with
    /// ratings.
    pub async fn alerts(
        &self,
        store: &Store,
        user_id: i64,
    ) -> Result<Option<Vec<ScriptedSignal>>, BacktestError> {
        if self.source != Source::Alerts {
            return Ok(None);
        }
        let stored = store
            .signals_between(user_id, "webhook", self.from_ms, self.to_ms)
            .await?;
        Ok(Some(
            stored
                .into_iter()
                .filter(|s| self.symbols.contains(&s.symbol))
                .map(|s| ScriptedSignal {
                    at_ms: s.created_at,
                    candle_ms: s.created_at,
                    symbol: s.symbol,
                    rating: s.rating,
                    stored: None,
                })
                .collect(),
        ))
    }

    /// The run on `stored` history (the simulated market's when `None`, generated as the run
    /// goes), with `alerts` as its signals when given and the ratings otherwise.
    pub async fn build(
        self,
        market: &Market,
        stored: Option<History>,
        alerts: Option<Vec<ScriptedSignal>>,
    ) -> Result<Backtest, BacktestError> {
        let history = match stored {
            Some(history) => history,
            None => History {
                instruments: instruments_of(&self.symbols)?,
                maintenance_margin_rates: BTreeMap::new(),
                candles: Candles::Simulated {
                    seed: market.seed,
                    symbols: self.symbols.clone(),
                    from_ms: self.warmup_from(market),
                    to_ms: self.to_ms,
                },
                funding: FundingRates::Simulated { seed: market.seed },
            },
        };
        let signals = match alerts {
            Some(list) => Signals::Scripted(Arc::new(list)),
            None => Signals::Ratings {
                interval_minutes: market.interval_minutes,
            },
        };
        let mut paper = market.paper.clone();
        paper
            .maintenance_margin_rates
            .extend(history.maintenance_margin_rates);
        Ok(Backtest {
            settings: self.settings,
            instruments: history.instruments,
            candles: history.candles,
            funding: history.funding,
            from_ms: self.from_ms,
            signals,
            paper,
            walk_every_candle: false,
        })
    }
}
