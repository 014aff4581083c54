//! Indicator values, votes and ratings against independent references, at
//! every index of a fixed 500-candle series.
//!
//! * `tests/data/talib_reference_500.csv` is a copy of the project's shared
//!   test data: 500 synthetic one-minute candles (geometric random walk, seed
//!   42) with the values TA-Lib 0.8.2 (C library 0.8.1, default
//!   compatibility, unstable periods 0) computes for them, written round-trip
//!   exact; an empty cell is TA-Lib's warm-up. Its `stochrsi_tv_*` columns are
//!   TradingView-style Stochastic RSI (SMA-smoothed %K) derived from TA-Lib's
//!   RSI. See `talib_reference_500.meta.json` beside it.
//! * `tests/data/independent_reference_500.csv` is written by
//!   `tests/reference/make_reference.py` (numpy, whole-window sums, no
//!   incremental state) for the indicators TA-Lib lacks (VWMA 20, Hull MA 9,
//!   Ichimoku base, Awesome Oscillator, Bull Bear Power) and for every vote
//!   and the ma / osc / total ratings, from the TA-Lib columns.
//! * `tests/data/edge_reference_300.csv` is written by
//!   `tests/reference/make_edge_reference.py` with TA-Lib itself (PyPI
//!   `TA-Lib` 0.6.8, C library 0.6.4): 300 candles with flat stretches (empty
//!   14-bar channels, zero true ranges, unchanged closes), zero-volume runs and
//!   gaps, so the zero-range branches are checked against TA-Lib too.

mod common;

use common::{candles_of, reference_candles, Table};
use signaldesk_ratings::{Indicator, RatingEngine, Recommendation};

/// Relative tolerance of the brief; values within 1e-9 of zero compare
/// absolutely (a relative error means nothing there).
const REL_TOL: f64 = 1e-6;
const ABS_FLOOR: f64 = 1e-9;

/// Which reference column checks which indicator.
fn reference_column(indicator: Indicator) -> (&'static str, &'static str) {
    use Indicator as I;
    const TALIB: &str = "talib_reference_500.csv";
    const OWN: &str = "independent_reference_500.csv";
    match indicator {
        I::Sma10 => (TALIB, "sma_10"),
        I::Sma20 => (TALIB, "sma_20"),
        I::Sma30 => (TALIB, "sma_30"),
        I::Sma50 => (TALIB, "sma_50"),
        I::Sma100 => (TALIB, "sma_100"),
        I::Sma200 => (TALIB, "sma_200"),
        I::Ema10 => (TALIB, "ema_10"),
        I::Ema20 => (TALIB, "ema_20"),
        I::Ema30 => (TALIB, "ema_30"),
        I::Ema50 => (TALIB, "ema_50"),
        I::Ema100 => (TALIB, "ema_100"),
        I::Ema200 => (TALIB, "ema_200"),
        I::Vwma20 => (OWN, "vwma_20"),
        I::Hma9 => (OWN, "hma_9"),
        I::IchimokuBase => (OWN, "ichimoku_base_26"),
        I::Rsi14 => (TALIB, "rsi_14"),
        I::StochK => (TALIB, "stoch_k_14_3_3"),
        I::StochD => (TALIB, "stoch_d_14_3_3"),
        I::Cci20 => (TALIB, "cci_20"),
        I::Adx14 => (TALIB, "adx_14"),
        I::PlusDi => (TALIB, "plus_di_14"),
        I::MinusDi => (TALIB, "minus_di_14"),
        I::Ao => (OWN, "ao_5_34"),
        I::Mom10 => (TALIB, "mom_10"),
        I::Macd => (TALIB, "macd_12_26_9"),
        I::MacdSignal => (TALIB, "macd_signal"),
        I::StochRsiK => (TALIB, "stochrsi_tv_k_14_14_3_3"),
        I::StochRsiD => (TALIB, "stochrsi_tv_d_14_14_3_3"),
        I::Wr14 => (TALIB, "willr_14"),
        I::Bbp => (OWN, "bbp_13"),
        I::Uo => (TALIB, "ultosc_7_14_28"),
    }
}

fn close_enough(got: f64, want: f64) -> bool {
    let err = (got - want).abs();
    err <= REL_TOL * want.abs() || err <= ABS_FLOOR
}

/// Feeds `candles` and compares every indicator with `expected` (one column
/// per indicator) at every index; returns how many values were compared.
fn compare_values(
    candles: &[signaldesk_ratings::Candle],
    expected: &[(Indicator, Vec<Option<f64>>)],
) -> usize {
    let mut engine = RatingEngine::new();
    let mut worst: Vec<(Indicator, f64, usize)> = Vec::new();
    let mut compared = 0usize;
    for (t, candle) in candles.iter().enumerate() {
        engine.update(candle);
        let report = engine.report();
        for (indicator, column) in expected {
            let got = report.indicators[*indicator].value;
            let want = column[t];
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => {
                    assert!(
                        close_enough(g, w),
                        "{} at index {t}: got {g}, reference {w}",
                        indicator.key()
                    );
                    compared += 1;
                    let rel = (g - w).abs() / w.abs().max(1.0);
                    match worst.iter_mut().find(|(i, _, _)| i == indicator) {
                        Some(entry) if entry.1 < rel => *entry = (*indicator, rel, t),
                        Some(_) => {}
                        None => worst.push((*indicator, rel, t)),
                    }
                }
                (g, w) => panic!(
                    "{} at index {t}: got {g:?}, reference {w:?} (warm-up differs)",
                    indicator.key()
                ),
            }
        }
    }
    // Every indicator was checked on every index from its first valid one on.
    assert_eq!(worst.len(), Indicator::ALL.len());
    for (indicator, rel, t) in &worst {
        println!("{:>13}: max error {rel:.2e} (index {t})", indicator.key());
    }
    println!("{compared} values compared");
    compared
}

#[test]
fn every_indicator_matches_its_reference_at_every_index() {
    let candles = reference_candles();
    let talib = Table::load("talib_reference_500.csv");
    let own = Table::load("independent_reference_500.csv");
    let expected: Vec<(Indicator, Vec<Option<f64>>)> = Indicator::ALL
        .iter()
        .map(|&i| {
            let (file, column) = reference_column(i);
            let table = if file == "talib_reference_500.csv" {
                &talib
            } else {
                &own
            };
            (i, table.column(column))
        })
        .collect();
    assert!(compare_values(&candles, &expected) > 14_000);
}

#[test]
fn flat_stretches_zero_volume_and_gaps_match_talib() {
    let name = "edge_reference_300.csv";
    let candles = candles_of(name);
    let table = Table::load(name);
    let expected: Vec<(Indicator, Vec<Option<f64>>)> = Indicator::ALL
        .iter()
        .map(|&i| (i, table.column(reference_column(i).1)))
        .collect();
    assert!(compare_values(&candles, &expected) > 7_000);
}

#[test]
fn first_valid_indices_match_talib_meta() {
    // From talib_reference_500.meta.json, plus the TradingView-only lines.
    let expected = [
        (Indicator::Sma10, 9),
        (Indicator::Ema200, 199),
        (Indicator::Rsi14, 14),
        (Indicator::StochK, 17),
        (Indicator::StochD, 17),
        (Indicator::Cci20, 19),
        (Indicator::Adx14, 27),
        (Indicator::PlusDi, 14),
        (Indicator::MinusDi, 14),
        (Indicator::Mom10, 10),
        (Indicator::Macd, 33),
        (Indicator::MacdSignal, 33),
        (Indicator::Wr14, 13),
        (Indicator::Uo, 28),
        (Indicator::StochRsiK, 29),
        (Indicator::StochRsiD, 31),
        (Indicator::Vwma20, 19),
        (Indicator::Hma9, 10),
        (Indicator::IchimokuBase, 25),
        (Indicator::Ao, 33),
        (Indicator::Bbp, 12),
    ];
    let candles = reference_candles();
    let mut engine = RatingEngine::new();
    let mut first = vec![None; Indicator::ALL.len()];
    for (t, candle) in candles.iter().enumerate() {
        engine.update(candle);
        for (indicator, reading) in engine.report().indicators.iter() {
            if reading.value.is_some() && first[indicator as usize].is_none() {
                first[indicator as usize] = Some(t);
            }
        }
    }
    for (indicator, index) in expected {
        assert_eq!(
            first[indicator as usize],
            Some(index),
            "{} first valid index",
            indicator.key()
        );
    }
}

#[test]
fn votes_and_ratings_match_the_independent_reference_at_every_index() {
    let candles = reference_candles();
    let own = Table::load("independent_reference_500.csv");
    let ma = own.column("ma_rating");
    let osc = own.column("osc_rating");
    let total = own.column("total_rating");
    let mut engine = RatingEngine::new();
    let mut votes_compared = 0usize;
    for (t, candle) in candles.iter().enumerate() {
        let rating = engine.update(candle);
        let report = engine.report();
        assert_eq!(report.rating(), rating, "report and update agree");
        for (indicator, reading) in report.indicators.iter() {
            let column = format!("vote_{}", indicator.key());
            if !own.has(&column) {
                // Companion lines never vote.
                assert_eq!(reading.vote, 0, "{} at {t}", indicator.key());
                continue;
            }
            let want = own.column(&column)[t].map_or(0, |v| v as i8);
            assert_eq!(
                reading.vote,
                want,
                "vote of {} at index {t}",
                indicator.key()
            );
            votes_compared += 1;
        }
        let want = |c: &[Option<f64>]| c[t].expect("rating cell");
        assert!((rating.ma - want(&ma)).abs() < 1e-12, "ma at {t}");
        assert!((rating.osc - want(&osc)).abs() < 1e-12, "osc at {t}");
        assert!((rating.total - want(&total)).abs() < 1e-12, "total at {t}");
        assert_eq!(
            rating.recommendation,
            Recommendation::from_score(want(&total)),
            "recommendation at {t}"
        );
    }
    assert_eq!(votes_compared, 500 * 26);
}
