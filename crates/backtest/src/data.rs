//! The history a backtest reads: 1-minute candles of the simulated market, the same for the
//! same seed and period on every run and every machine.

use std::collections::BTreeMap;

use signaldesk_core::market::{Candle, Instrument};
use signaldesk_venue::market::sim::{default_symbols, SimConfig, SimulatedMarket};
use signaldesk_venue::market::MarketData;

use crate::BacktestError;

const MINUTE_MS: i64 = 60_000;

/// The 1-minute candles of the simulated market (seed `seed`) for `symbols` from `from_ms`
/// to `to_ms` (both floored to the minute; `to_ms` excluded), oldest first, with the
/// symbols' instruments. An unknown symbol is [`BacktestError::UnknownSymbol`].
pub async fn simulated_minutes(
    seed: u64,
    symbols: &[String],
    from_ms: i64,
    to_ms: i64,
) -> Result<(Vec<Instrument>, BTreeMap<String, Vec<Candle>>), BacktestError> {
    let from = from_ms.div_euclid(MINUTE_MS) * MINUTE_MS;
    let to = to_ms.div_euclid(MINUTE_MS) * MINUTE_MS;
    if to <= from {
        return Err(BacktestError::EmptyPeriod);
    }
    let universe = default_symbols();
    let mut chosen = Vec::with_capacity(symbols.len());
    for symbol in symbols {
        match universe.iter().find(|s| &s.instrument.symbol == symbol) {
            Some(spec) => chosen.push(spec.clone()),
            None => return Err(BacktestError::UnknownSymbol(symbol.clone())),
        }
    }
    let minutes = usize::try_from((to - from) / MINUTE_MS).unwrap_or(usize::MAX);
    let market = SimulatedMarket::new(SimConfig {
        seed,
        symbols: chosen.clone(),
        interval_minutes: 1,
        history_candles: minutes,
        start_ms: Some(to),
        ..SimConfig::default()
    });
    let mut candles = BTreeMap::new();
    for spec in &chosen {
        let symbol = &spec.instrument.symbol;
        let history = market
            .history(symbol, 1, minutes)
            .await
            .map_err(|e| BacktestError::Data(e.to_string()))?;
        candles.insert(symbol.clone(), history);
    }
    Ok((chosen.into_iter().map(|s| s.instrument).collect(), candles))
}
