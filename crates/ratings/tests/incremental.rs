//! The engine's state after N candles fed one at a time equals a fresh
//! computation over the same N candles, bar after bar, and stays exact over
//! long runs.

mod common;

use common::{assert_same, random_walk, reference_candles};
use signaldesk_ratings::{report_for, Candle, CandleError, Indicator, RatingEngine};

/// One engine fed candle by candle (with reads in between) against a fresh
/// engine computed from scratch over every prefix: every indicator value,
/// every vote and the ratings must be identical, bit for bit.
#[test]
fn incremental_updates_equal_recomputation_over_every_prefix() {
    for candles in [reference_candles(), random_walk(400, 7, 0.000_12)] {
        let mut engine = RatingEngine::new();
        for n in 1..=candles.len() {
            let rating = engine.update(&candles[n - 1]);
            // Reading must not disturb the state.
            let _ = engine.report();
            assert_eq!(engine.rating(), rating);

            let fresh = report_for(&candles[..n]).expect("valid candles");
            let incremental = engine.report();
            assert_same(&incremental, &fresh, &format!("after {n} candles"));
        }
        assert_eq!(engine.candle_count(), candles.len() as u64);
    }
}

/// A cloned engine continues exactly like the original.
#[test]
fn a_clone_continues_like_the_original() {
    let candles = random_walk(600, 11, 30_000.0);
    let mut a = RatingEngine::new();
    for c in &candles[..300] {
        a.update(c);
    }
    let mut b = a.clone();
    for c in &candles[300..] {
        assert_eq!(a.update(c), b.update(c));
    }
    assert_eq!(a.report(), b.report());
}

/// After many thousands of candles the rolling sums have not drifted: the
/// moving averages equal a direct sum over the last window.
#[test]
fn long_runs_do_not_drift() {
    let candles = random_walk(20_000, 3, 65_000.0);
    let mut engine = RatingEngine::new();
    for c in &candles {
        engine.update(c);
    }
    let report = engine.report();
    let closes: Vec<f64> = candles.iter().map(|c| c.close).collect();
    let tail = |n: usize| &closes[closes.len() - n..];
    for (indicator, n) in [
        (Indicator::Sma10, 10),
        (Indicator::Sma50, 50),
        (Indicator::Sma200, 200),
    ] {
        let direct = tail(n).iter().sum::<f64>() / n as f64;
        let got = report.indicators[indicator].value.expect("warmed up");
        assert!(
            ((got - direct) / direct).abs() < 1e-12,
            "{}: {got} vs {direct}",
            indicator.key()
        );
    }
    let window = &candles[candles.len() - 20..];
    let vwma = window.iter().map(|c| c.close * c.volume).sum::<f64>()
        / window.iter().map(|c| c.volume).sum::<f64>();
    let got = report.indicators[Indicator::Vwma20]
        .value
        .expect("warmed up");
    assert!(((got - vwma) / vwma).abs() < 1e-12);
    let hl2 = |c: &Candle| (c.high + c.low) / 2.0;
    let ao = candles[candles.len() - 5..].iter().map(hl2).sum::<f64>() / 5.0
        - candles[candles.len() - 34..].iter().map(hl2).sum::<f64>() / 34.0;
    let got = report.indicators[Indicator::Ao].value.expect("warmed up");
    assert!((got - ao).abs() < 1e-9 * 65_000.0, "AO {got} vs {ao}");
}

/// A refused candle leaves the state exactly as it was.
#[test]
fn refused_candles_change_nothing() {
    let candles = reference_candles();
    let mut engine = RatingEngine::new();
    for c in &candles[..100] {
        engine.update(c);
    }
    let before = engine.report();
    let last = candles[99];

    let replay = last;
    assert_eq!(
        engine.try_update(&replay),
        Err(CandleError::NotAfterPrevious {
            time: last.time,
            previous: last.time
        })
    );
    let mut older = candles[100];
    older.time = last.time - 1;
    assert!(engine.try_update(&older).is_err());
    let mut nan = candles[100];
    nan.close = f64::NAN;
    assert_eq!(
        engine.try_update(&nan),
        Err(CandleError::NotFinite { field: "close" })
    );
    let mut inverted = candles[100];
    inverted.low = inverted.high + 1.0;
    assert!(matches!(
        engine.try_update(&inverted),
        Err(CandleError::LowAboveHigh { .. })
    ));
    let mut negative = candles[100];
    negative.volume = -1.0;
    assert!(matches!(
        engine.try_update(&negative),
        Err(CandleError::NegativeVolume { .. })
    ));
    // `update` swallows the refusal and returns the unchanged rating.
    assert_eq!(engine.update(&nan), before.rating());

    assert_eq!(engine.report(), before);
    assert_eq!(engine.candle_count(), 100);
    // And the next good candle continues as if nothing happened.
    engine.update(&candles[100]);
    assert_eq!(engine.report(), report_for(&candles[..101]).expect("valid"));
}

/// Flat prices and zero volume: every indicator stays finite (no NaN or
/// infinity reaches a report), VWMA has no value over an all-zero-volume
/// window, and the rating stays in range.
#[test]
fn flat_and_zero_volume_markets_stay_finite() {
    let mut candles = random_walk(120, 5, 100.0);
    let flat_from = candles.len();
    let last = candles[flat_from - 1];
    for i in 0..80 {
        candles.push(Candle {
            time: last.time + (i + 1) * 60_000,
            open: last.close,
            high: last.close,
            low: last.close,
            close: last.close,
            volume: 0.0,
        });
    }
    let mut engine = RatingEngine::new();
    for (t, c) in candles.iter().enumerate() {
        let rating = engine.update(c);
        assert!((-1.0..=1.0).contains(&rating.total) && rating.total.is_finite());
        for (indicator, reading) in engine.report().indicators.iter() {
            if let Some(v) = reading.value {
                assert!(v.is_finite(), "{} at {t} is {v}", indicator.key());
            }
        }
    }
    let report = engine.report();
    assert_eq!(report.indicators[Indicator::Vwma20].value, None);
    assert_eq!(report.indicators[Indicator::Vwma20].vote, 0);
    // 80 flat candles: range-based oscillators sit at TA-Lib's "empty range" value.
    assert_eq!(report.indicators[Indicator::StochK].value, Some(0.0));
    assert_eq!(report.indicators[Indicator::Wr14].value, Some(0.0));
    assert_eq!(report.indicators[Indicator::Cci20].value, Some(0.0));
    assert_eq!(report.indicators[Indicator::Mom10].value, Some(0.0));
    assert_eq!(report.indicators[Indicator::Uo].value, Some(0.0));
    assert_eq!(report.indicators[Indicator::Ao].value, Some(0.0));
    // Averages over a flat window equal the price: neutral, not rounding noise.
    for indicator in [
        Indicator::Sma10,
        Indicator::Sma20,
        Indicator::Sma30,
        Indicator::Sma50,
        Indicator::Hma9,
    ] {
        assert_eq!(report.indicators[indicator].vote, 0, "{}", indicator.key());
    }
    // An unchanged close leaves the RSI unchanged: neither rising nor falling.
    assert_eq!(report.indicators[Indicator::Rsi14].vote, 0);
    assert_eq!(report.indicators[Indicator::Ao].vote, 0);
    assert_eq!(report.indicators[Indicator::StochRsiK].vote, 0);
}
