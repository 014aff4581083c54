//! The every-bar paths (`EveryBar`, `every_bar_for`, `every_bar_batch`)
//! must give on every bar exactly what the incremental engine's `report()`
//! gives after that bar's candle: every value (bit for bit, `None` where it
//! is `None`), every vote and the ratings.

mod common;

use common::{
    assert_same, batch_series, candles_of, random_walk, reference_candles, uniforms, wild,
};
use signaldesk_ratings::{
    every_bar_batch, every_bar_batch_with, every_bar_for, Candle, CandleError, EveryBar, Indicator,
    Kernel, RatingEngine, ReportError,
};

/// A random walk with awkward stretches: a flat run (empty channels, zero
/// true ranges), zero-volume runs (VWMA has no value there and after), and
/// gaps where the price jumps.
fn awkward(n: usize, seed: u64, price: f64) -> Vec<Candle> {
    let mut candles = random_walk(n, seed, price);
    let mut next = uniforms(seed ^ 0x5eed);
    let mut flat_from = n / 5;
    while flat_from + 60 < n {
        let len = 15 + (next() * 40.0) as usize;
        let p = candles[flat_from].open;
        let silent = next() < 0.7;
        for c in &mut candles[flat_from..flat_from + len] {
            (c.open, c.high, c.low, c.close) = (p, p, p, p);
            if silent {
                c.volume = 0.0;
            }
        }
        let gap = flat_from + len;
        let jump = 1.0 + (next() - 0.5) * 0.2;
        for c in &mut candles[gap..] {
            (c.open, c.high, c.low, c.close) =
                (c.open * jump, c.high * jump, c.low * jump, c.close * jump);
        }
        for c in candles[gap..].iter_mut().take(25) {
            if next() < 0.5 {
                c.volume = 0.0;
            }
        }
        flat_from = gap + 40 + (next() * 80.0) as usize;
    }
    candles
}

/// The longest warm-up: the Ichimoku vote from index 77, the SMA 200 from 199.
const LENGTHS: [usize; 12] = [1, 2, 3, 14, 15, 33, 34, 77, 78, 199, 200, 201];

fn series() -> Vec<Vec<Candle>> {
    let mut all = vec![
        reference_candles(),
        candles_of("edge_reference_300.csv"),
        awkward(700, 3, 42.0),
        awkward(520, 4, 0.000_12),
        awkward(450, 5, 30_000.0),
        wild(520, 13),
        wild(333, 14),
    ];
    for (k, n) in LENGTHS.into_iter().enumerate() {
        all.push(awkward(n, 100 + k as u64, 7.0));
    }
    all
}

/// Every bar of `bars` against the engine fed `candles` one by one,
/// through `report` and through the column readers.
fn assert_every_bar(bars: &EveryBar, candles: &[Candle], what: &str) {
    assert_eq!(bars.len(), candles.len(), "{what}");
    let mut engine = RatingEngine::new();
    let mut reports = Vec::with_capacity(candles.len());
    for (i, c) in candles.iter().enumerate() {
        engine.try_update(c).expect("valid candles");
        let expected = engine.report();
        assert_same(&bars.report(i), &expected, &format!("{what}, bar {i}"));
        assert_eq!(bars.rating(i), engine.rating(), "{what}, bar {i}");
        reports.push(expected);
    }
    for indicator in Indicator::ALL {
        let values: Vec<_> = bars
            .values(indicator)
            .map(|v| v.map(f64::to_bits))
            .collect();
        let expected: Vec<_> = reports
            .iter()
            .map(|r| r.indicators[indicator].value.map(f64::to_bits))
            .collect();
        assert_eq!(values, expected, "{what}: {} column", indicator.key());
        let votes = bars.votes(indicator).to_vec();
        let expected: Vec<_> = reports
            .iter()
            .map(|r| r.indicators[indicator].vote)
            .collect();
        assert_eq!(votes, expected, "{what}: {} votes", indicator.key());
    }
    let totals: Vec<_> = bars.totals().iter().map(|t| t.to_bits()).collect();
    let expected: Vec<_> = reports.iter().map(|r| r.total.to_bits()).collect();
    assert_eq!(totals, expected, "{what}: totals");
}

/// Bars before the VWMA 20's first value: it needs 20 candles.
const VWMA_WARM_UP: usize = 19;

#[test]
fn every_bar_equals_the_incremental_engine() {
    let mut vwma_gaps = 0;
    for (s, candles) in series().iter().enumerate() {
        let bars = every_bar_for(candles).expect("valid candles");
        assert_every_bar(&bars, candles, &format!("series {s}"));
        vwma_gaps += bars
            .values(Indicator::Vwma20)
            .skip(VWMA_WARM_UP)
            .filter(Option::is_none)
            .count();
    }
    // The zero-volume runs do leave the VWMA without a value after its warm-up.
    assert!(vwma_gaps > 20, "{vwma_gaps} bars without a VWMA");
}

/// A batch on one and on two threads, and an `EveryBar` refilled with
/// series of other lengths (its buffers and engine reused), equal the
/// incremental engine too.
#[test]
fn batches_and_refills_equal_the_incremental_engine() {
    let series = series();
    for threads in [1, 2, 3] {
        let batch = every_bar_batch(&series, threads);
        assert_eq!(batch.len(), series.len());
        for (s, (bars, candles)) in batch.iter().zip(&series).enumerate() {
            let bars = bars.as_ref().expect("valid candles");
            assert_every_bar(bars, candles, &format!("{threads} threads, series {s}"));
        }
    }
    let mut bars = EveryBar::new();
    for (s, candles) in series.iter().enumerate().rev() {
        bars.fill(candles).expect("valid candles");
        assert_every_bar(&bars, candles, &format!("refilled, series {s}"));
    }
}

/// The benchmark's data set on two threads.
#[test]
fn the_benchmark_batch_equals_the_incremental_engine() {
    let series = batch_series(24, 500);
    for (s, (bars, candles)) in every_bar_batch(&series, 2).iter().zip(&series).enumerate() {
        let bars = bars.as_ref().expect("valid candles");
        assert_every_bar(bars, candles, &format!("symbol {s}"));
    }
}

/// Every line's values (bits), every vote, and the three ratings' bits of
/// every bar.
type Bits = (Vec<Vec<Option<u64>>>, Vec<Vec<i8>>, Vec<[u64; 3]>);

/// The columns of `bars`, bit for bit (see [`Bits`]).
fn bits_of(bars: &EveryBar) -> Bits {
    let values = Indicator::ALL
        .into_iter()
        .map(|i| bars.values(i).map(|v| v.map(f64::to_bits)).collect())
        .collect();
    let votes = Indicator::ALL
        .into_iter()
        .map(|i| bars.votes(i).to_vec())
        .collect();
    let ratings = (0..bars.len())
        .map(|bar| {
            let r = bars.rating(bar);
            [r.total.to_bits(), r.ma.to_bits(), r.osc.to_bits()]
        })
        .collect();
    (values, votes, ratings)
}

/// The AVX2 copy of the passes and the baseline copy, each called
/// explicitly, give the same bits on every series, and each equals the
/// incremental engine. On a CPU without AVX2 only the baseline runs.
#[test]
fn the_avx2_and_baseline_kernels_give_the_same_bits() {
    let avx2 = Kernel::avx2();
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        avx2.is_some(),
        std::arch::is_x86_feature_detected!("avx2"),
        "Kernel::avx2 follows the CPU"
    );
    if avx2.is_none() {
        eprintln!("no AVX2 on this CPU: the AVX2 kernel is not compared");
    }
    assert_eq!(Kernel::best(), avx2.unwrap_or(Kernel::BASELINE));
    let mut all = series();
    all.extend(batch_series(8, 500));
    let (mut base, mut wide) = (EveryBar::new(), EveryBar::new());
    for (s, candles) in all.iter().enumerate() {
        base.fill_on(candles, Kernel::BASELINE)
            .expect("valid candles");
        assert_every_bar(&base, candles, &format!("baseline, series {s}"));
        if let Some(avx2) = avx2 {
            wide.fill_on(candles, avx2).expect("valid candles");
            assert_every_bar(&wide, candles, &format!("AVX2, series {s}"));
            assert!(
                bits_of(&base) == bits_of(&wide),
                "series {s}: the kernels differ"
            );
        }
    }
}

/// A refused candle fails the series with its index and holds no bar.
#[test]
fn a_refused_candle_fails_the_series() {
    let mut candles = random_walk(300, 3, 10.0);
    let mut bars = every_bar_for(&candles).expect("valid candles");
    candles[120].low = candles[120].high + 1.0;
    let err = bars.fill(&candles).unwrap_err();
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
    assert!(bars.is_empty());
    candles[120].low = candles[120].high - 0.01;
    candles[200].time = candles[199].time;
    let batch = every_bar_batch(&[&candles[..150], &candles[..], &candles[..10]], 2);
    assert!(batch[0].is_ok() && batch[2].is_ok());
    assert!(matches!(
        batch[1],
        Err(ReportError::BadCandle {
            index: 200,
            source: CandleError::NotAfterPrevious { .. }
        })
    ));
    assert!(every_bar_for(&[]).expect("no candles, no bars").is_empty());
}

/// The series of [`series`] and, among them, a refused one of each kind and
/// an empty one: what a batch may hand to [`EveryBar::fill_pair`].
fn series_and_refused() -> Vec<Vec<Candle>> {
    let mut all = series();
    let mut low_above_high = random_walk(300, 7, 10.0);
    low_above_high[120].low = low_above_high[120].high + 1.0;
    let mut replayed = awkward(250, 8, 3.0);
    replayed[200].time = replayed[199].time;
    all.insert(3, low_above_high);
    all.insert(9, replayed);
    all.insert(12, Vec::new());
    all
}

/// What filling `bars` with `candles` alone gave: its bits, or the error.
fn filled_alone(
    bars: &mut EveryBar,
    candles: &[Candle],
    kernel: Kernel,
) -> Result<Bits, ReportError> {
    bars.fill_on(candles, kernel).map(|()| bits_of(bars))
}

/// Two series filled side by side give each what it gives alone, bit for
/// bit, on each kernel: every ordered pair of series of different lengths
/// (1 to 700 candles), a refused or empty one with any other, the same
/// series twice, and `EveryBar`s refilled from one pair to the next.
#[test]
fn paired_fills_equal_single_fills() {
    let all = series_and_refused();
    let mut kernels = vec![Kernel::BASELINE];
    kernels.extend(Kernel::avx2());
    let mut alone = EveryBar::new();
    let mut pair = [EveryBar::new(), EveryBar::new()];
    for kernel in kernels {
        let single: Vec<_> = all
            .iter()
            .map(|candles| filled_alone(&mut alone, candles, kernel))
            .collect();
        assert_eq!(single.iter().filter(|s| s.is_err()).count(), 2);
        for (i, ci) in all.iter().enumerate() {
            for (j, cj) in all.iter().enumerate() {
                let [a, b] = &mut pair;
                let results = EveryBar::fill_pair_on([a, b], [ci, cj], kernel);
                for ((bars, result), (s, candles)) in
                    pair.iter().zip(results).zip([(i, ci), (j, cj)])
                {
                    let what = format!("{kernel:?}, series {s} in pair ({i}, {j})");
                    match (&single[s], result) {
                        (Ok(bits), Ok(())) => {
                            assert_eq!(bars.len(), candles.len(), "{what}");
                            assert!(bits_of(bars) == *bits, "{what}: differs from alone");
                        }
                        (Err(alone), Err(paired)) => {
                            assert_eq!(*alone, paired, "{what}");
                            assert!(bars.is_empty(), "{what}");
                        }
                        (alone, paired) => panic!("{what}: {paired:?}, alone {:?}", alone.is_ok()),
                    }
                }
            }
        }
    }
}

/// `every_bar_batch_with` on one thread (pairs, an odd last series alone)
/// and on several visits each series once, by index, with what a single
/// fill gives: odd and even counts, refused and empty series among them.
#[test]
fn batches_with_pairs_equal_single_fills() {
    let all = series_and_refused();
    let mut alone = EveryBar::new();
    let single: Vec<_> = all
        .iter()
        .map(|candles| filled_alone(&mut alone, candles, Kernel::best()))
        .collect();
    for count in [1, 2, 3, 7, all.len() - 1, all.len()] {
        assert!(count <= all.len());
        for threads in [1, 2, 3] {
            let seen = std::sync::Mutex::new(vec![None; count]);
            every_bar_batch_with(&all[..count], threads, |s, bars| {
                let mut seen = seen.lock().expect("not poisoned");
                assert!(seen[s].is_none(), "series {s} visited twice");
                seen[s] = Some(bars.map(bits_of));
            });
            for (s, got) in seen
                .into_inner()
                .expect("not poisoned")
                .into_iter()
                .enumerate()
            {
                let what = format!("{count} series, {threads} threads, series {s}");
                assert!(
                    got.as_ref() == Some(&single[s]),
                    "{what}: differs from alone"
                );
            }
        }
        let kept = every_bar_batch(&all[..count], 1);
        for (s, bars) in kept.iter().enumerate() {
            let got = bars.as_ref().map(bits_of).map_err(Clone::clone);
            assert!(got == single[s], "kept, {count} series, series {s}");
        }
    }
}
