//! Times the cold batch the way `tools/talib_batch_bench.py` times TA-Lib:
//! over the 500 symbols x 500 candles of the `cold_batch_500x500` bench,
//! best, median and worst of REPEATS whole runs, on one thread and on two:
//! `report_batch` (each symbol's final report) and the every-bar batch,
//! `every_bar_batch_with` (every bar's values, votes and rating of each
//! symbol, handed to a visitor) and `every_bar_batch` (all of them kept).
//!
//! ```text
//! cargo run --release -p signaldesk-ratings --example cold_batch_time -- 30
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use signaldesk_ratings::{every_bar_batch, every_bar_batch_with, report_batch, Candle};

#[path = "../tests/common/mod.rs"]
mod common;

/// One way to rate the batch.
type Run<'a> = Box<dyn Fn() + 'a>;

/// Best, median and worst of `repeats` runs of `run`, in ms.
fn time(repeats: usize, mut run: impl FnMut()) -> [f64; 3] {
    let mut times: Vec<f64> = (0..repeats.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    [times[0], times[times.len() / 2], times[times.len() - 1]]
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse().expect("REPEATS is a number"))
        .unwrap_or(30);
    let series: Vec<Vec<Candle>> = common::batch_series(500, 500);
    let visited = AtomicUsize::new(0);
    for threads in [1, 2] {
        let runs: [(&str, Run); 3] = [
            (
                "report_batch",
                Box::new(|| {
                    black_box(report_batch(black_box(&series), threads));
                }),
            ),
            (
                "every_bar_batch_with",
                Box::new(|| {
                    every_bar_batch_with(black_box(&series), threads, |_, bars| {
                        let bars = bars.expect("valid candles");
                        black_box(bars.totals()[bars.len() - 1]);
                        visited.fetch_add(1, Ordering::Relaxed);
                    })
                }),
            ),
            (
                "every_bar_batch",
                Box::new(|| {
                    black_box(every_bar_batch(black_box(&series), threads));
                }),
            ),
        ];
        for (name, run) in runs {
            let [best, median, worst] = time(repeats, run);
            println!(
                "{name}, {threads} thread(s), 500 symbols x 500 candles, {repeats} repeats: \
                 best {best:.2} ms, median {median:.2} ms, worst {worst:.2} ms"
            );
        }
    }
    assert_eq!(visited.load(Ordering::Relaxed), 2 * repeats.max(1) * 500);
}
