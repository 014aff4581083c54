//! Times the cold batch the way `tools/talib_batch_bench.py` times TA-Lib:
//! `report_batch` over the 500 symbols x 500 candles of the
//! `cold_batch_500x500` bench, best, median and worst of REPEATS whole runs,
//! on one thread and on two.
//!
//! ```text
//! cargo run --release -p signaldesk-ratings --example cold_batch_time -- 30
//! ```

use std::hint::black_box;
use std::time::Instant;

use signaldesk_ratings::report_batch;

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse().expect("REPEATS is a number"))
        .unwrap_or(30);
    let series = common::batch_series(500, 500);
    for threads in [1, 2] {
        let mut times: Vec<f64> = (0..repeats.max(1))
            .map(|_| {
                let start = Instant::now();
                black_box(report_batch(black_box(&series), threads));
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "report_batch, {threads} thread(s), 500 symbols x 500 candles, {} repeats: \
             best {:.2} ms, median {:.2} ms, worst {:.2} ms",
            times.len(),
            times[0],
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
}
