//! What a trader asks for (dates, symbols, settings changes), checked and turned into a run
//! on the simulated market: the same rules for the command line and the API.

use chrono::NaiveDate;
use serde_json::{Map, Value};
use signaldesk_core::settings::BotSettings;
use signaldesk_core::stats::local_dates_range;
use signaldesk_core::validation::FieldErrors;
use signaldesk_venue::market::sim::default_symbols;
use signaldesk_venue::paper::PaperConfig;

use crate::data::simulated_minutes;
use crate::{Backtest, BacktestError, Signals};

/// Candles of the signal interval read before the period to warm the ratings up: as many as
/// the live rating hub starts from.
pub const WARMUP_CANDLES: i64 = 300;
/// The longest period one run covers.
pub const MAX_DAYS: i64 = 366;

#[derive(Debug, Clone)]
pub struct Request {
    /// First and last day, both included, in the user's zone.
    pub date_from: NaiveDate,
    pub date_to: NaiveDate,
    /// Empty: every symbol of the market.
    pub symbols: Vec<String>,
    /// Settings fields to use instead of the saved ones, checked as a settings update is.
    pub overrides: Map<String, Value>,
}

/// The simulated market a run reads (the deployment's seed, its signal interval) and the
/// paper exchange it trades on.
#[derive(Debug, Clone)]
pub struct Market {
    pub seed: u64,
    pub interval_minutes: u32,
    pub paper: PaperConfig,
}

impl Request {
    /// The run this asks for on top of the `saved` settings; every field that is wrong is
    /// named ([`BacktestError::Invalid`]).
    pub async fn prepare(
        &self,
        saved: &BotSettings,
        market: &Market,
    ) -> Result<Backtest, BacktestError> {
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
        }
        let universe: Vec<String> = default_symbols()
            .into_iter()
            .map(|s| s.instrument.symbol)
            .collect();
        let symbols = if self.symbols.is_empty() {
            universe.clone()
        } else {
            let mut chosen = Vec::new();
            for symbol in &self.symbols {
                let symbol = symbol.trim().to_uppercase();
                if !universe.contains(&symbol) {
                    errors
                        .entry("symbols".into())
                        .or_default()
                        .push(format!("Unknown symbol {symbol}."));
                } else if !chosen.contains(&symbol) {
                    chosen.push(symbol);
                }
            }
            chosen
        };
        let Some(settings) = settings.filter(|_| errors.is_empty()) else {
            return Err(BacktestError::Invalid(errors));
        };
        let (from_ms, to_ms) = local_dates_range(self.date_from, self.date_to, settings.timezone());
        let warmup_ms = WARMUP_CANDLES * i64::from(market.interval_minutes.max(1)) * 60_000;
        let (instruments, minutes) =
            simulated_minutes(market.seed, &symbols, from_ms - warmup_ms, to_ms).await?;
        Ok(Backtest {
            settings,
            instruments,
            minutes,
            from_ms,
            signals: Signals::Ratings {
                interval_minutes: market.interval_minutes,
            },
            paper: market.paper.clone(),
        })
    }
}
