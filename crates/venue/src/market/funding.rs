//! Funding rates of USDT perpetuals: the settlement times, the simulated market's own rate
//! series, and [`FundingRates`], where a hand-driven market (a backtest's) gets its rates.
//!
//! The simulated series is a pure function of (seed, symbol, settlement time), so the live
//! paper exchange on the simulated market and a backtest over the same history charge the
//! same rates. It is an AR(1) around [`MEAN_RATE`] written out as its moving average over
//! the last [`MEMORY`] settlements: `rate(n) = mean + sum_k PHI^k x shock(n - k)`, each shock
//! a seeded normal (now and then a much larger one), then rounded to 8 decimals (Bybit
//! quotes rates so, e.g. `"0.00006745"`) and clamped to the caps.

use std::collections::BTreeMap;
use std::sync::Arc;

use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;

use super::sim::rng::Rng;

/// Funding settles every 8 hours: 00:00, 08:00 and 16:00 UTC.
pub const FUNDING_INTERVAL_MS: i64 = 8 * 3_600_000;

/// The base rate per 8 hours (0.01%). Bybit's tickers example:
/// `"fundingRate": "0.0001"` (docs/v5/market/tickers.mdx).
pub const MEAN_RATE: Decimal = Decimal::from_parts(1, 0, 0, false, 4);

/// The simulated rates' caps. Bybit's instruments-info documents `upperFundingRate`
/// "Upper limit of funding date" and `lowerFundingRate` "Lower limit of funding date", with
/// BTCUSDT's example `"upperFundingRate": "0.00375", "lowerFundingRate": "-0.00375"`
/// (docs/v5/market/instrument.mdx).
pub const UPPER_RATE: Decimal = Decimal::from_parts(375, 0, 0, false, 5);
pub const LOWER_RATE: Decimal = Decimal::from_parts(375, 0, 0, true, 5);

/// How much of the previous deviation from the mean a rate keeps.
const PHI: f64 = 0.8;
/// Shocks older than this many settlements are forgotten (`0.8^48` is below 1e-4).
const MEMORY: i64 = 48;
/// A usual shock's size.
const SHOCK: f64 = 0.00004;
/// One settlement in this many brings a large shock (a crowded side: rates of 0.1% and more).
const SPIKE_ONE_IN: u64 = 40;
const SPIKE: f64 = 0.0008;

/// The first settlement time after `after_ms` (never `after_ms` itself).
pub fn next_settlement(after_ms: i64) -> i64 {
    (after_ms.div_euclid(FUNDING_INTERVAL_MS) + 1) * FUNDING_INTERVAL_MS
}

/// The settlement times in `(from_ms, to_ms]`, oldest first.
pub fn settlements_between(from_ms: i64, to_ms: i64) -> impl Iterator<Item = i64> {
    std::iter::successors(Some(next_settlement(from_ms)), |t| {
        Some(t + FUNDING_INTERVAL_MS)
    })
    .take_while(move |t| *t <= to_ms)
}

/// The seeded shock of settlement number `n` of `symbol`.
fn shock(seed: u64, symbol: &str, n: i64) -> f64 {
    let mut rng = Rng::for_stream(
        seed ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        symbol,
    );
    let size = if rng.next_u64().is_multiple_of(SPIKE_ONE_IN) {
        SPIKE
    } else {
        SHOCK
    };
    size * rng.normal()
}

/// The simulated market's (seed `seed`) funding rate of `symbol` at the settlement at or
/// before `at_ms`.
pub fn simulated_rate(seed: u64, symbol: &str, at_ms: i64) -> Decimal {
    let n = at_ms.div_euclid(FUNDING_INTERVAL_MS);
    let mut deviation = 0.0;
    let mut weight = 1.0;
    for k in 0..MEMORY {
        deviation += weight * shock(seed, symbol, n - k);
        weight *= PHI;
    }
    let rate = Decimal::from_f64(deviation).unwrap_or_default().round_dp(8) + MEAN_RATE;
    rate.clamp(LOWER_RATE, UPPER_RATE)
}

/// Where a market moved by hand finds its funding rates.
#[derive(Debug, Clone, Default)]
pub enum FundingRates {
    /// None: nothing is settled.
    #[default]
    None,
    /// The simulated market's series of this seed.
    Simulated { seed: u64 },
    /// Given rates (Bybit's stored history), by symbol and settlement time.
    Table(Arc<BTreeMap<String, BTreeMap<i64, Decimal>>>),
}

impl FundingRates {
    /// The rate of `symbol` settled at `at_ms`, if known.
    pub fn rate(&self, symbol: &str, at_ms: i64) -> Option<Decimal> {
        match self {
            FundingRates::None => None,
            FundingRates::Simulated { seed } => Some(simulated_rate(*seed, symbol, at_ms)),
            FundingRates::Table(table) => table.get(symbol)?.get(&at_ms).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settlements_are_at_0_8_and_16_utc() {
        let day = 1_764_115_200_000; // 2025-11-26 00:00 UTC
        let hour = 3_600_000;
        assert_eq!(next_settlement(day - 1), day);
        assert_eq!(next_settlement(day), day + 8 * hour);
        let all: Vec<i64> = settlements_between(day - 1, day + 24 * hour).collect();
        assert_eq!(
            all,
            vec![day, day + 8 * hour, day + 16 * hour, day + 24 * hour]
        );
        assert_eq!(settlements_between(day, day + 8 * hour - 1).count(), 0);
    }

    #[test]
    fn the_simulated_series_is_deterministic_mean_reverting_and_capped() {
        let start = 1_700_000_000_000 / FUNDING_INTERVAL_MS * FUNDING_INTERVAL_MS;
        let series = |seed, symbol| -> Vec<f64> {
            (0..3_000)
                .map(|i| {
                    let r = simulated_rate(seed, symbol, start + i * FUNDING_INTERVAL_MS);
                    assert!(
                        (LOWER_RATE..=UPPER_RATE).contains(&r),
                        "{r} beyond the caps"
                    );
                    assert_eq!(r, r.round_dp(8));
                    f64::try_from(r).unwrap()
                })
                .collect()
        };
        let btc = series(42, "BTCUSDT");
        assert_eq!(btc, series(42, "BTCUSDT"));
        assert_ne!(btc, series(42, "ETHUSDT"));
        assert_ne!(btc, series(7, "BTCUSDT"));
        // Any time within a period has that period's rate.
        assert_eq!(
            simulated_rate(42, "BTCUSDT", start + 5 * 3_600_000),
            simulated_rate(42, "BTCUSDT", start)
        );
        let mean = btc.iter().sum::<f64>() / btc.len() as f64;
        assert!((mean - 0.0001).abs() < 0.00003, "mean {mean}");
        // Mean-reverting: a deviation lingers for a few settlements, then fades out.
        let dev: Vec<f64> = btc.iter().map(|r| r - mean).collect();
        let corr = |lag: usize| {
            let num: f64 = dev.iter().zip(&dev[lag..]).map(|(a, b)| a * b).sum();
            num / dev.iter().map(|a| a * a).sum::<f64>()
        };
        assert!(corr(1) > 0.5, "lag 1: {}", corr(1));
        assert!(corr(21).abs() < 0.15, "lag 21: {}", corr(21));
        // Mostly near the mean, now and then far from it.
        let near = dev.iter().filter(|d| d.abs() < 0.0002).count();
        assert!(near > btc.len() * 3 / 4, "{near} near the mean");
        assert!(dev.iter().any(|d| d.abs() > 0.0008), "never a large rate");
    }
}
