//! Rating throughput.
//!
//! * `update_500_symbols`: 500 engines, each warmed on 500 candles of its own
//!   series, all moved by one new closed candle (the signal worker's work per
//!   closed candle for a 500-symbol universe), rating included.
//! * `cold_500_candles`: a fresh engine over 500 candles and its full report
//!   (`report_for`, what `signaldesk ratings --candles` does).
//! * `cold_batch_500x500`: the cold batch, `report_batch` on one thread over
//!   500 symbols x 500 candles (the same series as `update_500_symbols`
//!   warms on; `examples/batch_csv.rs` writes them for
//!   `tools/talib_batch_bench.py`, which times TA-Lib on them): a fresh
//!   engine per symbol, every indicator, the final votes, ratings and full
//!   report. `cold_batch_500x500_2_threads` splits the symbols over two
//!   threads; `cold_batch_500x500_every_bar` feeds the same candles one
//!   `update` at a time (values, votes and rating on every bar), as the
//!   live path does.
//! * `cold_batch_500x500_every_bar_batch`: every bar's values, votes and
//!   rating for the same batch, `every_bar_batch_with` on one thread (each
//!   symbol's `EveryBar` handed to a visitor that reads its last total,
//!   then refilled with the next symbol); `_2_threads` on two.
//!   `cold_batch_500x500_every_bar_batch_kept` keeps every symbol's bars
//!   (`every_bar_batch`, one thread; about 70 MB, freed after each run).
//!
//! All but the `_2_threads` benches run on one thread.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use signaldesk_ratings::{
    every_bar_batch, every_bar_batch_with, report_batch, report_for, Candle, RatingEngine,
};

#[path = "../tests/common/mod.rs"]
mod common;

const SYMBOLS: usize = 500;
const WARM_UP: usize = 500;
/// Fresh candles kept per symbol; the benchmark cycles through them with
/// ever-increasing times.
const POOL: usize = 256;

struct Universe {
    engines: Vec<RatingEngine>,
    pools: Vec<Vec<Candle>>,
    step: usize,
}

impl Universe {
    fn new() -> Self {
        let mut engines = Vec::with_capacity(SYMBOLS);
        let mut pools = Vec::with_capacity(SYMBOLS);
        for s in 0..SYMBOLS {
            let price = 0.01 * 10f64.powi((s % 7) as i32);
            let series = common::random_walk(WARM_UP + POOL, s as u64 + 1, price);
            let mut engine = RatingEngine::new();
            for c in &series[..WARM_UP] {
                engine.update(c);
            }
            engines.push(engine);
            pools.push(series[WARM_UP..].to_vec());
        }
        Universe {
            engines,
            pools,
            step: 0,
        }
    }

    /// One closed candle for every symbol.
    fn tick(&mut self) -> f64 {
        let k = self.step;
        self.step += 1;
        let mut sum = 0.0;
        for (engine, pool) in self.engines.iter_mut().zip(&self.pools) {
            let mut candle = pool[k % POOL];
            candle.time = pool[0].time + k as i64 * 60_000;
            sum += engine.update(black_box(&candle)).total;
        }
        sum
    }
}

fn update_500_symbols(c: &mut Criterion) {
    let mut universe = Universe::new();
    c.bench_function("update_500_symbols", |b| {
        b.iter(|| black_box(universe.tick()))
    });
}

fn update_1_symbol(c: &mut Criterion) {
    let series = common::random_walk(WARM_UP + POOL, 9, 240.0);
    let mut engine = RatingEngine::new();
    for c in &series[..WARM_UP] {
        engine.update(c);
    }
    let mut k = 0usize;
    c.bench_function("update_1_symbol_hot", |b| {
        b.iter(|| {
            let mut candle = series[WARM_UP + k % POOL];
            candle.time = series[WARM_UP].time + k as i64 * 60_000;
            k += 1;
            engine.update(black_box(&candle))
        })
    });
}

fn cold_batch_500x500(c: &mut Criterion) {
    let series = common::batch_series(SYMBOLS, WARM_UP);
    c.bench_function("cold_batch_500x500", |b| {
        b.iter(|| report_batch(black_box(&series), 1))
    });
    c.bench_function("cold_batch_500x500_2_threads", |b| {
        b.iter(|| report_batch(black_box(&series), 2))
    });
    c.bench_function("cold_batch_500x500_every_bar", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for candles in &series {
                let mut engine = RatingEngine::new();
                for c in black_box(candles) {
                    sum += engine.update(c).total;
                }
            }
            sum
        })
    });
}

fn cold_batch_500x500_every_bar_batch(c: &mut Criterion) {
    let series = common::batch_series(SYMBOLS, WARM_UP);
    let visit = |threads: usize| {
        let sum = std::sync::Mutex::new(0.0);
        every_bar_batch_with(black_box(&series), threads, |_, bars| {
            let last = bars.expect("valid candles").totals()[WARM_UP - 1];
            *sum.lock().expect("no panic") += last;
        });
        sum.into_inner().expect("no panic")
    };
    c.bench_function("cold_batch_500x500_every_bar_batch", |b| {
        b.iter(|| visit(1))
    });
    c.bench_function("cold_batch_500x500_every_bar_batch_2_threads", |b| {
        b.iter(|| visit(2))
    });
    c.bench_function("cold_batch_500x500_every_bar_batch_kept", |b| {
        b.iter(|| every_bar_batch(black_box(&series), 1))
    });
}

fn cold_500_candles(c: &mut Criterion) {
    let candles = common::random_walk(500, 42, 240.0);
    c.bench_function("cold_500_candles", |b| {
        b.iter(|| report_for(black_box(&candles)).expect("valid candles"))
    });
    c.bench_function("new_engine", |b| {
        b.iter_batched(|| (), |()| RatingEngine::new(), BatchSize::SmallInput)
    });
}

criterion_group!(
    benches,
    update_500_symbols,
    update_1_symbol,
    cold_500_candles,
    cold_batch_500x500,
    cold_batch_500x500_every_bar_batch
);
criterion_main!(benches);
