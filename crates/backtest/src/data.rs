//! The history a backtest reads: 1-minute candles of the simulated market, the same for the
//! same seed and period on every run and every machine, with its instruments; or Bybit's
//! stored candles with Bybit's instruments, as `candles fetch` stored them.

use std::collections::BTreeMap;
use std::sync::Arc;

use signaldesk_core::market::{Candle, Instrument};
use signaldesk_store::StoredInstrument;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::market::sim::{default_symbols, SimSymbol};

use crate::{BacktestError, Candles, History, StoredCandles};

const MINUTE_MS: i64 = 60_000;

/// Each symbol's 1-minute candles, oldest first.
pub type Minutes = BTreeMap<String, Vec<Candle>>;

/// The symbols backtests trade: the simulated market's universe.
pub fn universe() -> Vec<String> {
    default_symbols()
        .into_iter()
        .map(|s| s.instrument.symbol)
        .collect()
}

/// The symbols' instruments: the simulated market's specifications of them.
pub fn instruments_of(symbols: &[String]) -> Result<Vec<Instrument>, BacktestError> {
    symbols
        .iter()
        .map(|s| spec_of(s).map(|spec| spec.instrument))
        .collect()
}

/// The simulated market's specification of `symbol`.
pub(crate) fn spec_of(symbol: &str) -> Result<SimSymbol, BacktestError> {
    default_symbols()
        .into_iter()
        .find(|s| s.instrument.symbol == symbol)
        .ok_or_else(|| BacktestError::UnknownSymbol(symbol.to_string()))
}

/// The 1-minute candles of the simulated market (seed `seed`) for `symbols` from `from_ms`
/// to `to_ms` (both floored to the minute; `to_ms` excluded), oldest first, with the
/// symbols' instruments, all in memory (a run reads [`Candles::Simulated`] a day at a time
/// instead). An unknown symbol is [`BacktestError::UnknownSymbol`].
pub fn simulated_minutes(
    seed: u64,
    symbols: &[String],
    from_ms: i64,
    to_ms: i64,
) -> Result<(Vec<Instrument>, Minutes), BacktestError> {
    let instruments = instruments_of(symbols)?;
    let candles = Candles::Simulated {
        seed,
        symbols: symbols.to_vec(),
        from_ms,
        to_ms,
    }
    .load()?;
    let candles = Arc::try_unwrap(candles).unwrap_or_else(|shared| shared.as_ref().clone());
    Ok((instruments, candles))
}

/// `candles` (oldest first) with a flat candle at the close before for every minute missing
/// between them: a minute Bybit has no trade in is one where the price stood still.
pub fn fill_gaps(candles: Vec<Candle>) -> Vec<Candle> {
    let mut filled = Vec::with_capacity(candles.len());
    let mut gaps = GapFiller::default();
    for candle in candles {
        gaps.push(candle, &mut filled);
    }
    filled
}

/// [`fill_gaps`] a stretch at a time: remembers the last candle given, so the next stretch
/// goes on from its close.
#[derive(Debug, Default, Clone)]
pub(crate) struct GapFiller {
    last: Option<Candle>,
}

impl GapFiller {
    /// Appends `candle` to `out`, after a flat candle for each minute missing since the last
    /// one; a candle not later than the last is dropped.
    pub fn push(&mut self, candle: Candle, out: &mut Vec<Candle>) {
        if let Some(last) = &self.last {
            if last.open_time_ms >= candle.open_time_ms {
                return;
            }
            self.flat_until(candle.open_time_ms, out);
        }
        self.last = Some(candle.clone());
        out.push(candle);
    }

    /// Appends a flat candle for each minute after the last one and before `until_ms` (none
    /// before the first candle).
    pub fn flat_until(&mut self, until_ms: i64, out: &mut Vec<Candle>) {
        let Some(last) = self.last.as_mut() else {
            return;
        };
        while last.open_time_ms + MINUTE_MS < until_ms {
            let close = last.close;
            *last = Candle {
                open_time_ms: last.open_time_ms + MINUTE_MS,
                open: close,
                high: close,
                low: close,
                close,
                volume: rust_decimal::Decimal::ZERO,
            };
            out.push(last.clone());
        }
    }
}

/// How far from the period's ends stored candles may start and stop and still cover it.
const COVER_SLACK_MS: i64 = 60 * MINUTE_MS;

/// Checks that stored history can run `symbols` over `[from_ms, to_ms)`: each one's stored
/// candles cover the period (within an hour at each end) and, for those whose do, its
/// Bybit instrument is stored. Otherwise [`BacktestError::Invalid`] under `data`, naming
/// the symbols and the command that fetches them.
pub async fn check_stored(
    store: &signaldesk_store::Store,
    symbols: &[String],
    from_ms: i64,
    to_ms: i64,
) -> Result<(), BacktestError> {
    let mut uncovered = Vec::new();
    let mut covered = Vec::new();
    for symbol in symbols {
        let covers = store
            .candle_bounds(symbol, from_ms, to_ms)
            .await?
            .is_some_and(|(first, last)| {
                first < from_ms + COVER_SLACK_MS && last >= to_ms - COVER_SLACK_MS
            });
        if covers {
            covered.push(symbol.clone());
        } else {
            uncovered.push(symbol.clone());
        }
    }
    let (_, unspecified) = read_instruments(store, &covered).await?;
    let mut problems = Vec::new();
    if !uncovered.is_empty() {
        problems.push(format!(
            "The stored Bybit candles do not cover the period for {}: fetch them with `signaldesk candles fetch --symbols {} --from … --to …`.",
            uncovered.join(", "),
            uncovered.join(",")
        ));
    }
    if !unspecified.is_empty() {
        problems.push(format!(
            "No Bybit instrument (tick size, quantity step, minimums, risk limit) is stored for {}: run `signaldesk candles fetch --symbols {} --from … --to …` again, which stores each symbol's instrument with its candles.",
            unspecified.join(", "),
            unspecified.join(",")
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    let mut fields = signaldesk_core::validation::FieldErrors::new();
    fields.insert("data".into(), problems);
    Err(BacktestError::Invalid(fields))
}

/// The stored instruments of `symbols` that have one (with risk limit tiers), and the
/// symbols that have none.
async fn read_instruments(
    store: &signaldesk_store::Store,
    symbols: &[String],
) -> Result<(Vec<StoredInstrument>, Vec<String>), BacktestError> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for symbol in symbols {
        match store.instrument(symbol).await? {
            Some(stored) if stored.maintenance_margin_rate().is_some() => found.push(stored),
            _ => missing.push(symbol.clone()),
        }
    }
    Ok((found, missing))
}

/// The stored (Bybit) 1-minute candles of `symbols` in `[from_ms, to_ms)`, read a day at a
/// time as the run goes, with the symbols' stored Bybit instruments and funding rates and,
/// for the paper exchange, each one's first risk tier's maintenance margin rate; the period
/// `[covers_from, to_ms)` must be covered ([`check_stored`]).
pub async fn stored_history(
    store: &signaldesk_store::Store,
    symbols: &[String],
    from_ms: i64,
    covers_from: i64,
    to_ms: i64,
) -> Result<History, BacktestError> {
    check_stored(store, symbols, covers_from, to_ms).await?;
    let (found, missing) = read_instruments(store, symbols).await?;
    if let Some(symbol) = missing.first() {
        return Err(BacktestError::UnknownSymbol(symbol.clone()));
    }
    let candles = StoredCandles::open(store, symbols, from_ms, to_ms).await?;
    let mut rates = BTreeMap::new();
    for symbol in symbols {
        let stored = store.funding_rates_between(symbol, from_ms, to_ms).await?;
        rates.insert(symbol.clone(), stored.into_iter().collect());
    }
    Ok(History {
        funding: FundingRates::Table(Arc::new(rates)),
        maintenance_margin_rates: found
            .iter()
            .filter_map(|s| Some((s.instrument.symbol.clone(), s.maintenance_margin_rate()?)))
            .collect(),
        instruments: found.into_iter().map(|s| s.instrument).collect(),
        candles: Candles::Stored(candles),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn at(minute: i64, close: rust_decimal::Decimal) -> Candle {
        Candle {
            open_time_ms: minute * MINUTE_MS,
            open: close,
            high: close,
            low: close,
            close,
            volume: dec!(1),
        }
    }

    #[test]
    fn a_missing_minute_is_flat_at_the_close_before() {
        let filled = fill_gaps(vec![at(0, dec!(10)), at(3, dec!(12)), at(4, dec!(13))]);
        let times: Vec<i64> = filled.iter().map(|c| c.open_time_ms / MINUTE_MS).collect();
        assert_eq!(times, [0, 1, 2, 3, 4]);
        assert_eq!(
            (filled[1].close, filled[2].high, filled[2].volume),
            (dec!(10), dec!(10), dec!(0))
        );
        assert_eq!(filled[3].close, dec!(12));
    }
}
