//! Helpers shared by the integration tests: reading the reference CSV files
//! committed under `tests/data/`.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use signaldesk_ratings::{Candle, Indicator, RatingReport};

/// A CSV table of numbers; an empty cell is `None`.
pub struct Table {
    pub columns: Vec<String>,
    index: HashMap<String, usize>,
    pub rows: Vec<Vec<Option<f64>>>,
}

impl Table {
    pub fn load(name: &str) -> Table {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let mut lines = text.lines();
        let columns: Vec<String> = lines
            .next()
            .expect("header")
            .split(',')
            .map(str::to_string)
            .collect();
        let index = columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), i))
            .collect();
        let rows = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                l.split(',')
                    .map(|cell| {
                        (!cell.is_empty()).then(|| cell.parse::<f64>().expect("numeric cell"))
                    })
                    .collect()
            })
            .collect();
        Table {
            columns,
            index,
            rows,
        }
    }

    pub fn column(&self, name: &str) -> Vec<Option<f64>> {
        let i = *self
            .index
            .get(name)
            .unwrap_or_else(|| panic!("no column {name}"));
        self.rows.iter().map(|r| r[i]).collect()
    }

    pub fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }
}

/// The 500 candles of `talib_reference_500.csv`.
pub fn reference_candles() -> Vec<Candle> {
    candles_of("talib_reference_500.csv")
}

/// The candles (`timestamp_ms,open,high,low,close,volume` columns) of a
/// reference file.
pub fn candles_of(name: &str) -> Vec<Candle> {
    let t = Table::load(name);
    let col = |n: &str| t.column(n);
    let (time, open, high, low, close, volume) = (
        col("timestamp_ms"),
        col("open"),
        col("high"),
        col("low"),
        col("close"),
        col("volume"),
    );
    (0..t.rows.len())
        .map(|i| Candle {
            time: time[i].expect("time") as i64,
            open: open[i].expect("open"),
            high: high[i].expect("high"),
            low: low[i].expect("low"),
            close: close[i].expect("close"),
            volume: volume[i].expect("volume"),
        })
        .collect()
}

/// Deterministic uniform numbers in [0, 1) from `seed` (xorshift64*).
pub fn uniforms(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A deterministic pseudo-random candle series (geometric random walk),
/// `n` one-minute candles starting at `price`.
pub fn random_walk(n: usize, seed: u64, price: f64) -> Vec<Candle> {
    let mut next = uniforms(seed);
    let mut close = price;
    (0..n)
        .map(|i| {
            let open = close;
            close = open * (1.0 + (next() - 0.5) * 0.02);
            let high = open.max(close) * (1.0 + next() * 0.005);
            let low = open.min(close) * (1.0 - next() * 0.005);
            Candle {
                time: 1_700_000_000_000 + i as i64 * 60_000,
                open,
                high,
                low,
                close,
                volume: 1_000.0 + next() * 50_000.0,
            }
        })
        .collect()
}

/// The cold-batch data set: `symbols` series of `n` candles, symbol `s` a
/// [`random_walk`] with seed `s + 1` from a price of 0.01 * 10^(s % 7), so
/// prices run from cents to tens of thousands. Shared by the
/// `cold_batch_500x500` bench, `examples/batch_csv.rs` (which writes it for
/// `tools/talib_batch_bench.py`) and the batch tests.
pub fn batch_series(symbols: usize, n: usize) -> Vec<Vec<Candle>> {
    (0..symbols)
        .map(|s| {
            let price = 0.01 * 10f64.powi((s % 7) as i32);
            random_walk(n, s as u64 + 1, price)
        })
        .collect()
}

/// Candles whose prices jump across many binades from one bar to the next,
/// so that rolling sums of price differences round (on a random walk the
/// differences share an exponent range and their sums are often exact, in
/// any order).
pub fn wild(n: usize, seed: u64) -> Vec<Candle> {
    let mut next = uniforms(seed);
    let mut close = 1.0;
    (0..n)
        .map(|i| {
            let open = close;
            close = (next() * 10.0 - 5.0).exp();
            Candle {
                time: 1_700_000_000_000 + i as i64 * 60_000,
                open,
                high: open.max(close) * (1.0 + next() * 0.3),
                low: open.min(close) * (1.0 - next() * 0.3),
                close,
                volume: next() * 1e4,
            }
        })
        .collect()
}

/// Two reports equal bit for bit: every indicator's value and vote, the three ratings and
/// the recommendation.
pub fn assert_same(a: &RatingReport, b: &RatingReport, what: &str) {
    for indicator in Indicator::ALL {
        let (x, y) = (a.indicators[indicator], b.indicators[indicator]);
        assert_eq!(
            x.value.map(f64::to_bits),
            y.value.map(f64::to_bits),
            "{} value, {what}",
            indicator.key()
        );
        assert_eq!(x.vote, y.vote, "{} vote, {what}", indicator.key());
    }
    assert_eq!(
        (a.total.to_bits(), a.ma.to_bits(), a.osc.to_bits()),
        (b.total.to_bits(), b.ma.to_bits(), b.osc.to_bits()),
        "ratings, {what}"
    );
    assert_eq!(a.recommendation, b.recommendation, "recommendation, {what}");
}
