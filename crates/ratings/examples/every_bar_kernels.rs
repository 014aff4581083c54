//! Times the every-bar batch on one thread (500 symbols x 500 candles, the
//! `cold_batch_500x500` candles) as `every_bar_batch_with` runs it, and the
//! ways it can be run, alternating run by run so that all see the same
//! machine load: one `EveryBar` refilled per symbol (`fill_on`, the path
//! before pairing) and two filled side by side (`fill_pair_on`, what the
//! batch runs), each on the baseline and the AVX2 copy of the passes, and
//! `every_bar_batch_with` itself on one thread. Best and median of REPEATS
//! runs each, by the wall clock and by the thread's own time on a CPU
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, the clock of Python's
//! `time.thread_time` in `tools/talib_batch_bench.py`), which leaves out the
//! time the thread waited while other processes ran (on a busy machine).
//! (Before, this read `/proc/thread-self/schedstat`, which on this machine's
//! kernel lags by up to a scheduler tick, 4 ms, so a run's CPU time came out
//! up to 4 ms off either way and the best of 30 too low.)
//!
//! ```text
//! cargo run --release -p signaldesk-ratings --example every_bar_kernels -- 30
//! ```

use std::hint::black_box;
use std::time::Instant;

use signaldesk_ratings::{every_bar_batch_with, Candle, EveryBar, Kernel};

#[path = "../tests/common/mod.rs"]
mod common;

/// This thread's time on a CPU so far, in ms (`None` where unknown).
#[allow(unsafe_code)]
fn cpu_ms() -> Option<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid `timespec` for the call to write.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    ok.then(|| t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6)
}

/// How a run goes over the batch.
#[derive(Clone, Copy)]
enum Way {
    /// One `EveryBar` refilled per symbol on the kernel.
    Single(Kernel),
    /// Two `EveryBar`s filled side by side on the kernel.
    Pairs(Kernel),
    /// `every_bar_batch_with` on one thread.
    Batch,
}

/// One run over the batch: (wall, CPU) time in ms.
fn run(series: &[Vec<Candle>], [a, b]: &mut [EveryBar; 2], way: Way) -> (f64, f64) {
    let cpu = cpu_ms();
    let start = Instant::now();
    let seen = |bars: &EveryBar| black_box(bars.totals()[bars.len() - 1]);
    match way {
        Way::Single(kernel) => {
            for candles in series {
                a.fill_on(black_box(candles), kernel)
                    .expect("valid candles");
                seen(a);
            }
        }
        Way::Pairs(kernel) => {
            for two in series.chunks(2) {
                match two {
                    [ca, cb] => {
                        let [ra, rb] =
                            EveryBar::fill_pair_on([a, b], [black_box(ca), black_box(cb)], kernel);
                        ra.and(rb).expect("valid candles");
                        seen(a);
                        seen(b);
                    }
                    [c] => {
                        a.fill_on(black_box(c), kernel).expect("valid candles");
                        seen(a);
                    }
                    _ => unreachable!(),
                }
            }
        }
        Way::Batch => every_bar_batch_with(black_box(series), 1, |_, bars| {
            seen(bars.expect("valid candles"));
        }),
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
    let mut ways = vec![
        ("one at a time, baseline", Way::Single(Kernel::BASELINE)),
        ("pairs, baseline", Way::Pairs(Kernel::BASELINE)),
    ];
    if let Some(avx2) = Kernel::avx2() {
        ways.push(("one at a time, AVX2", Way::Single(avx2)));
        ways.push(("pairs, AVX2", Way::Pairs(avx2)));
    }
    ways.push(("every_bar_batch_with", Way::Batch));
    let mut bars = [EveryBar::new(), EveryBar::new()];
    let mut times = vec![Vec::new(); ways.len()];
    for _ in 0..repeats {
        for ((_, way), times) in ways.iter().zip(&mut times) {
            times.push(run(&series, &mut bars, *way));
        }
    }
    for ((name, _), times) in ways.iter().zip(&mut times) {
        let (mut wall, mut cpu): (Vec<f64>, Vec<f64>) = times.iter().copied().unzip();
        wall.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        let mid = repeats / 2;
        println!(
            "every bar, {name:<24} 1 thread, 500 x 500, {repeats} repeats: \
             CPU best {:6.2} ms, median {:6.2} ms; wall best {:6.2} ms, median {:6.2} ms",
            cpu[0], cpu[mid], wall[0], wall[mid]
        );
    }
}
