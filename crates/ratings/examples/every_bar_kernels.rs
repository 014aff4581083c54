//! Times the every-bar batch on one thread (500 symbols x 500 candles, the
//! `cold_batch_500x500` candles; one `EveryBar` refilled per symbol, as
//! `every_bar_batch_with` does) on each compiled copy of the passes, the
//! baseline one and the AVX2 one, alternating run by run so that both see
//! the same machine load; best and median of REPEATS runs each, by the wall
//! clock and, on Linux, by the thread's own time on a CPU (the first field
//! of `/proc/thread-self/schedstat`, in ns), which leaves out the time the
//! thread waited while other processes ran (on a busy machine).
//!
//! ```text
//! cargo run --release -p signaldesk-ratings --example every_bar_kernels -- 30
//! ```

use std::hint::black_box;
use std::time::Instant;

use signaldesk_ratings::{Candle, EveryBar, Kernel};

#[path = "../tests/common/mod.rs"]
mod common;

/// This thread's time on a CPU so far, in ms (`None` where unknown).
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e6)
}

/// One run over the batch on `kernel`: (wall, CPU) time in ms.
fn run(series: &[Vec<Candle>], bars: &mut EveryBar, kernel: Kernel) -> (f64, f64) {
    let cpu = cpu_ms();
    let start = Instant::now();
    for candles in series {
        bars.fill_on(black_box(candles), kernel)
            .expect("valid candles");
        black_box(bars.totals()[bars.len() - 1]);
    }
    let wall = start.elapsed().as_secs_f64() * 1e3;
    (wall, cpu_ms().zip(cpu).map_or(f64::NAN, |(b, a)| b - a))
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse().expect("REPEATS is a number"))
        .unwrap_or(30)
        .max(1);
    let series: Vec<Vec<Candle>> = common::batch_series(500, 500);
    let mut kernels = vec![("baseline", Kernel::BASELINE)];
    kernels.extend(Kernel::avx2().map(|k| ("AVX2", k)));
    let mut bars = EveryBar::new();
    let mut times = vec![Vec::new(); kernels.len()];
    for _ in 0..repeats {
        for ((_, kernel), times) in kernels.iter().zip(&mut times) {
            times.push(run(&series, &mut bars, *kernel));
        }
    }
    for ((name, _), times) in kernels.iter().zip(&mut times) {
        let (mut wall, mut cpu): (Vec<f64>, Vec<f64>) = times.iter().copied().unzip();
        wall.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        let mid = repeats / 2;
        println!(
            "every bar, {name} kernel, 1 thread, 500 symbols x 500 candles, {repeats} repeats: \
             wall best {:.2} ms, median {:.2} ms; CPU best {:.2} ms, median {:.2} ms",
            wall[0], wall[mid], cpu[0], cpu[mid]
        );
    }
}
