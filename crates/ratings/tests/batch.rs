//! The cold-start paths (`RatingEngine::try_extend`, `report_for`,
//! `report_batch`) read values only on the last bars and feed a fresh
//! engine's windowed indicators only the trailing candles they need; they
//! must give exactly what the incremental engine gives candle by candle, at
//! every length, and leave a state that continues exactly like it.

mod common;

use common::{assert_same, batch_series, candles_of, random_walk, reference_candles, wild};
use signaldesk_ratings::{
    extend_batch, report_batch, report_for, Candle, CandleError, RatingEngine, ReportError,
};

/// Series with awkward stretches: TA-Lib's edge series (flat channels, zero
/// true ranges, zero volumes), a long flat run with zero volume in the
/// middle of a random walk, prices from 1e-4 to 3e4, and prices jumping
/// across binades.
fn series() -> Vec<Vec<Candle>> {
    let mut flat = random_walk(420, 5, 3.0);
    let p = flat[99].close;
    for (i, c) in flat.iter_mut().enumerate().take(250).skip(100) {
        *c = Candle {
            time: c.time,
            open: p,
            high: p,
            low: p,
            close: p,
            volume: if i < 180 { 0.0 } else { 5.0 },
        };
    }
    vec![
        reference_candles(),
        candles_of("edge_reference_300.csv"),
        flat,
        random_walk(640, 7, 0.000_12),
        random_walk(450, 11, 30_000.0),
        wild(520, 13),
    ]
}

/// `report_batch` over every prefix of every series (on one thread and on
/// two, and each prefix right after the whole series, since a batch reuses
/// its engines) equals the incremental engine after the same candles.
#[test]
fn batch_reports_equal_the_incremental_engine_at_every_length() {
    for (s, candles) in series().iter().enumerate() {
        let prefixes: Vec<&[Candle]> = (1..=candles.len()).map(|n| &candles[..n]).collect();
        let one = report_batch(&prefixes, 1);
        let two = report_batch(&prefixes, 2);
        assert_eq!(one.len(), candles.len());
        assert_eq!(one, two, "series {s}: one thread against two");
        let after_whole: Vec<&[Candle]> = prefixes
            .iter()
            .flat_map(|&prefix| [candles.as_slice(), prefix])
            .collect();
        let reused: Vec<_> = report_batch(&after_whole, 1)
            .into_iter()
            .skip(1)
            .step_by(2)
            .collect();
        assert_eq!(
            one, reused,
            "series {s}: each prefix after the whole series"
        );
        let mut engine = RatingEngine::new();
        for (n, batch) in (1..).zip(&one) {
            engine.update(&candles[n - 1]);
            let batch = batch.as_ref().expect("valid candles");
            assert_same(batch, &engine.report(), &format!("series {s}, {n} candles"));
        }
    }
}

/// A fresh engine that took the first `k` candles with `try_extend` goes on
/// exactly like one that took every candle with `update`.
#[test]
fn an_extended_engine_continues_like_the_incremental_one() {
    for (s, candles) in series().iter().enumerate() {
        for k in [1, 2, 3, 4, 17, 29, 60, 81, 170, 201, 233, 341, 401] {
            if k >= candles.len() {
                continue;
            }
            let mut incremental = RatingEngine::new();
            for c in &candles[..k] {
                incremental.update(c);
            }
            let mut extended = RatingEngine::new();
            let rating = extended.try_extend(&candles[..k]).expect("valid candles");
            assert_eq!(rating, incremental.rating(), "series {s}, k {k}");
            assert_eq!(extended.candle_count(), k as u64);
            for (n, c) in (k + 1..).zip(&candles[k..]) {
                assert_eq!(extended.update(c), incremental.update(c));
                assert_same(
                    &extended.report(),
                    &incremental.report(),
                    &format!("series {s}, extended by {k}, then {n} candles"),
                );
            }
        }
    }
}

/// `extend_batch` (series two at a time, their divisions paired) gives each
/// series' engine as `try_extend` on a fresh engine gives it, and each goes
/// on exactly like the incremental engine. A refused candle fails only its
/// own series, even beside a good one in its pair, and leaves that engine as
/// new; an empty series gives an engine as new.
#[test]
fn a_batch_of_extended_engines_continues_like_the_incremental_ones() {
    let mut bad = random_walk(200, 9, 5.0);
    bad[77].low = bad[77].high + 1.0;
    let whole = series();
    // Each series of the batch is the first two thirds of one of `whole`
    // (cut at different lengths, so a pair's lengths differ), or `bad`
    // (paired with the first good one), or empty (alone, last).
    let mut batch: Vec<(&[Candle], Option<&[Candle]>)> = whole
        .iter()
        .map(|c| (&c[..c.len() * 2 / 3], Some(c.as_slice())))
        .collect();
    batch.insert(1, (&bad, None));
    batch.push((&[], None));
    let heads: Vec<&[Candle]> = batch.iter().map(|(head, _)| *head).collect();
    let extended = extend_batch(&heads);
    assert_eq!(extended.len(), batch.len());
    let fresh = RatingEngine::new();
    for (i, ((mut engine, result), (head, whole))) in extended.into_iter().zip(batch).enumerate() {
        let Some(whole) = whole else {
            if head.is_empty() {
                assert_eq!(result, Ok(fresh.rating()), "series {i}: empty");
            } else {
                assert!(
                    matches!(
                        result,
                        Err(ReportError::BadCandle {
                            index: 77,
                            source: CandleError::LowAboveHigh { .. }
                        })
                    ),
                    "series {i}: {result:?}"
                );
            }
            assert_eq!(engine.candle_count(), 0, "series {i}");
            assert_eq!(engine.report(), fresh.report(), "series {i}");
            continue;
        };
        let mut incremental = RatingEngine::new();
        for c in head {
            incremental.update(c);
        }
        assert_eq!(result, Ok(incremental.rating()), "series {i}");
        assert_eq!(engine.candle_count(), head.len() as u64);
        for (n, c) in (head.len() + 1..).zip(&whole[head.len()..]) {
            assert_eq!(engine.update(c), incremental.update(c));
            assert_same(
                &engine.report(),
                &incremental.report(),
                &format!("series {i}, extended by {}, then {n} candles", head.len()),
            );
        }
    }
}

/// Extending an engine that already has candles equals updating it.
#[test]
fn extending_a_running_engine_equals_updating_it() {
    let candles = random_walk(600, 21, 42.0);
    let mut a = RatingEngine::new();
    let mut b = RatingEngine::new();
    for c in &candles[..150] {
        a.update(c);
        b.update(c);
    }
    b.try_extend(&candles[150..400]).expect("valid candles");
    for c in &candles[150..400] {
        a.update(c);
    }
    assert_same(&a.report(), &b.report(), "after 400 candles");
    for c in &candles[400..] {
        assert_eq!(a.update(c), b.update(c));
    }
    assert_same(&a.report(), &b.report(), "after 600 candles");
}

/// A refused candle anywhere in the slice leaves the engine untouched.
#[test]
fn a_refused_candle_leaves_the_engine_unchanged() {
    let candles = random_walk(300, 3, 10.0);
    let mut engine = RatingEngine::new();
    engine.try_extend(&candles[..100]).expect("valid candles");
    let before = engine.report();

    let mut bad = candles[100..250].to_vec();
    bad[120].low = bad[120].high + 1.0;
    let err = engine.try_extend(&bad).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::BadCandle {
                index: 120,
                source: CandleError::LowAboveHigh { .. }
            }
        ),
        "{err:?}"
    );
    let replayed = engine.try_extend(&candles[50..60]).unwrap_err();
    assert!(matches!(
        replayed,
        ReportError::BadCandle {
            index: 0,
            source: CandleError::NotAfterPrevious { .. }
        }
    ));
    assert_eq!(engine.candle_count(), 100);
    assert_eq!(engine.report(), before);
    assert_eq!(report_for(&bad), Err(err));
    assert_eq!(report_for(&[]), Err(ReportError::NoCandles));

    // And it goes on as if the refused slices had never been offered.
    engine.try_extend(&candles[100..]).expect("valid candles");
    assert_eq!(
        engine.report(),
        report_for(&candles).expect("valid candles")
    );
}

/// The benchmark's data set, through the batch API on two threads, gives
/// each symbol's incremental rating.
#[test]
fn the_benchmark_batch_equals_the_incremental_engine() {
    let series = batch_series(40, 500);
    let reports = report_batch(&series, 2);
    for (s, (candles, report)) in series.iter().zip(reports).enumerate() {
        let mut engine = RatingEngine::new();
        for c in candles {
            engine.update(c);
        }
        assert_same(
            &report.expect("valid candles"),
            &engine.report(),
            &format!("symbol {s}"),
        );
    }
}
