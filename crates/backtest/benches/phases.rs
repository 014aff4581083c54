//! Where a backtest's time goes, on the simulated market (docs/benchmarks.md, "Backtests"):
//! generating the 1-minute history, the ratings alone, a whole run, and a sweep.
//! `cargo bench -p signaldesk-backtest --bench phases -- DAYS SYMBOLS CELLS` (defaults 30 20 0):
//! with CELLS 0 the run and its phases, otherwise only the sweep (each on a fresh process,
//! so its peak memory is its own). On stored candles, as a Bybit backtest reads them:
//! `-- DAYS SYMBOLS fill FILE.db` stores the simulated minutes in a SQLite file, then
//! `-- DAYS SYMBOLS stored FILE.db` runs on them (read a day at a time), `-- DAYS SYMBOLS busy
//! FILE.db` runs the busy settings on them, and `-- DAYS SYMBOLS read FILE.db` only
//! reads them (every symbol's day, day after day, as a run does). Runs on stored candles print
//! their phases: the CPU time of the threads that read, rate, walk and book ([`Phases`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use rust_decimal::Decimal;
use serde_json::json;
use signaldesk_backtest::data::{instruments_of, simulated_minutes};
use signaldesk_backtest::sweep::{sweep, Axis};
use signaldesk_backtest::{Backtest, Candles, Progress, Signals, StoredCandles};
use signaldesk_core::settings::BotSettings;
use signaldesk_store::Store;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::market::sim::default_symbols;
use signaldesk_venue::paper::PaperConfig;

const WARMUP_MS: i64 = 300 * 15 * 60_000;

/// Peak resident memory of this process so far, in MB (Linux).
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<f64>().ok())
            })
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let days = args.first().copied().unwrap_or(30) as i64;
    let symbols_wanted = args.get(1).copied().unwrap_or(20);
    let cells = args.get(2).copied().unwrap_or(0);
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a.parse::<usize>().is_err() && !a.starts_with('-'))
        .collect();
    let symbols: Vec<String> = default_symbols()
        .into_iter()
        .take(symbols_wanted)
        .map(|s| s.instrument.symbol)
        .collect();
    let to = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis();
    let from = to - days * 86_400_000;

    let streamed = Backtest {
        settings: BotSettings::default(),
        instruments: instruments_of(&symbols).unwrap(),
        candles: Candles::Simulated {
            seed: 42,
            symbols: symbols.clone(),
            from_ms: from - WARMUP_MS,
            to_ms: to,
        },
        from_ms: from,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };

    match (words.first().map(String::as_str), words.get(1)) {
        (Some("fill"), Some(file)) => return fill(file, &symbols, from - WARMUP_MS, to),
        (Some("stored"), Some(file)) => return stored(file, &streamed, days, &symbols, false),
        (Some("stored-whole"), Some(file)) => return stored(file, &streamed, days, &symbols, true),
        (Some("busy"), Some(file)) => {
            let busy = Backtest {
                settings: busy_settings(),
                paper: PaperConfig {
                    starting_balance: Decimal::from(1_000_000),
                    ..PaperConfig::default()
                },
                ..streamed.clone()
            };
            return stored(file, &busy, days, &symbols, false);
        }
        (Some("read"), Some(file)) => return read(file, &symbols, from - WARMUP_MS, to),
        _ => {}
    }
    if cells == 0 {
        phases_of(&streamed, days, &symbols);
        return;
    }
    {
        // The example: initial_stop_loss_pct 1..10 x take_profit_first_pct 2..20
        // (steps of 2) for 100 cells; one axis of stop losses otherwise.
        let axes = if cells % 10 == 0 {
            vec![
                Axis {
                    field: "initial_stop_loss_pct".into(),
                    values: (1..=10).map(|v| json!(v)).collect(),
                },
                Axis {
                    field: "take_profit_first_pct".into(),
                    values: (1..=cells / 10).map(|v| json!(2 * v)).collect(),
                },
            ]
        } else {
            vec![Axis {
                field: "initial_stop_loss_pct".into(),
                values: (1..=cells).map(|v| json!(v)).collect(),
            }]
        };
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        // The whole job, as the server runs it: the history generated and rated once, then
        // every cell.
        let began = Instant::now();
        let done = sweep(&streamed, &axes, threads, &Progress::default()).unwrap();
        let swept = began.elapsed();
        println!(
            "  sweep of {} cells on {threads} threads (history and ratings once included): {:.2} s ({:.2} s a cell)",
            done.len(),
            swept.as_secs_f64(),
            swept.as_secs_f64() / done.len() as f64
        );
        println!("  peak RSS: {:.0} MB", peak_rss_mb());
    }
}

/// One whole run on a fresh process (its peak memory its own), then each phase alone.
fn phases_of(streamed: &Backtest, days: i64, symbols: &[String]) {
    // The single run first, on a fresh process: its peak memory is its own.
    let began = Instant::now();
    let outcome = streamed.run_on_a_core(&Progress::default()).unwrap();
    let whole = began.elapsed();
    let run_peak = peak_rss_mb();
    println!(
        "{days} days x {} symbols, ratings on 15-minute candles, 1-minute price paths",
        symbols.len()
    );
    println!(
        "  one run (history generated as it goes, ratings, price paths, worker, paper exchange, scratch books): {:.2} s, {} trades, peak RSS {run_peak:.0} MB",
        whole.as_secs_f64(),
        outcome.trades.len()
    );

    let began = Instant::now();
    let minutes = streamed.candles.load().unwrap();
    let generated = began.elapsed();
    let candles: usize = minutes.values().map(Vec::len).sum();
    println!(
        "  history alone: {candles} 1-minute candles (warm-up included) in {:.2} s",
        generated.as_secs_f64()
    );
    let base = Backtest {
        candles: Candles::Loaded(minutes),
        ..streamed.clone()
    };
    let began = Instant::now();
    let signals = base.signals_once().unwrap();
    let rated = began.elapsed();
    println!(
        "  ratings alone: {:.2} s ({} signals)",
        rated.as_secs_f64(),
        signals.len()
    );
    let scripted = Backtest {
        signals: Signals::Scripted(signals),
        ..base.clone()
    };
    let began = Instant::now();
    scripted.run_on_a_core(&Progress::default()).unwrap();
    println!(
        "  trading alone (history in memory, signals given): {:.2} s",
        began.elapsed().as_secs_f64()
    );
}

fn sqlite(file: &str) -> (tokio::runtime::Runtime, Store) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let store = runtime
        .block_on(Store::connect(&format!("sqlite://{file}")))
        .unwrap();
    (runtime, store)
}

/// Stores the simulated minutes of `[from_ms, to_ms)` in the SQLite file, a month at a time.
fn fill(file: &str, symbols: &[String], from_ms: i64, to_ms: i64) {
    let (runtime, store) = sqlite(file);
    const MONTH_MS: i64 = 30 * 86_400_000;
    let began = Instant::now();
    for symbol in symbols {
        let mut start = from_ms;
        while start < to_ms {
            let end = to_ms.min(start + MONTH_MS);
            let (_, minutes) =
                simulated_minutes(42, std::slice::from_ref(symbol), start, end).unwrap();
            runtime
                .block_on(store.save_candles(symbol, &minutes[symbol]))
                .unwrap();
            start = end;
        }
        eprintln!("{symbol} stored");
    }
    println!(
        "  stored {} symbols' minutes in {:.1} s",
        symbols.len(),
        began.elapsed().as_secs_f64()
    );
}

/// One run on the stored minutes, as a `data: "bybit"` backtest reads them (`whole`: read
/// into memory first, as it did before they were read a day at a time).
fn stored(file: &str, streamed: &Backtest, days: i64, symbols: &[String], whole: bool) {
    let (runtime, store) = sqlite(file);
    let (from_ms, to_ms) = match &streamed.candles {
        Candles::Simulated { from_ms, to_ms, .. } => (*from_ms, *to_ms),
        _ => unreachable!("the bench's run is on the simulated market"),
    };
    let candles = runtime
        .block_on(StoredCandles::open(&store, symbols, from_ms, to_ms))
        .unwrap();
    let began = Instant::now();
    let candles = if whole {
        let read = Candles::Stored(candles).load().unwrap();
        println!("  read whole in {:.2} s", began.elapsed().as_secs_f64());
        Candles::Loaded(read)
    } else {
        Candles::Stored(candles)
    };
    let run = Backtest {
        candles,
        ..streamed.clone()
    };
    let phases = Phases::watch();
    let outcome = run.run_on_a_core(&Progress::default()).unwrap();
    let phases = phases.stop();
    println!(
        "{days} days x {} symbols on stored candles ({}): {:.2} s, {} trades, peak RSS {:.0} MB",
        symbols.len(),
        if whole {
            "read whole first"
        } else {
            "read a day at a time"
        },
        began.elapsed().as_secs_f64(),
        outcome.trades.len(),
        peak_rss_mb()
    );
    println!("  phases (CPU time of their threads): {phases}");
}

/// The busy case (issue 32): leverage 10, a 0.2 % stop, take profits every 0.4 %, a
/// trailing stop from 0.1 % by 0.05 %, 3 trades of 100 USDT (with a 1,000,000 USDT wallet,
/// set on the paper exchange).
fn busy_settings() -> BotSettings {
    let pct = |s: &str| s.parse::<Decimal>().unwrap();
    BotSettings {
        leverage: 10,
        initial_stop_loss_pct: pct("0.2"),
        take_profit_first_pct: pct("0.4"),
        take_profit_next_pct: pct("0.4"),
        use_trailing_stop: true,
        trail_activation_pct: pct("0.1"),
        trail_step_pct: pct("0.05"),
        max_trades: 3,
        max_trade_usdt: pct("100"),
        max_total_usdt: pct("300"),
        ..BotSettings::default()
    }
}

/// Only the reading of stored candles: every symbol's day, day after day, through
/// `Store::candles_between`, as a run's reader thread reads them (without the gap filling).
fn read(file: &str, symbols: &[String], from_ms: i64, to_ms: i64) {
    let (runtime, store) = sqlite(file);
    const DAY_MS: i64 = 86_400_000;
    let began = Instant::now();
    let mut candles = 0usize;
    let mut start = from_ms;
    while start < to_ms {
        let end = to_ms.min(start + DAY_MS);
        for symbol in symbols {
            candles += runtime
                .block_on(store.candles_between(symbol, start, end))
                .unwrap()
                .len();
        }
        start = end;
    }
    println!(
        "  read {candles} stored candles of {} symbols, a day at a time: {:.2} s, peak RSS {:.0} MB",
        symbols.len(),
        began.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
}

/// By thread id: its name, whether it is kept to one core, its CPU time so far (ns).
type Threads = BTreeMap<u32, (String, bool, u64)>;

/// The CPU time of a run's threads, by what they do: reading (the `backtest-read` thread,
/// which also decodes, and the stored candles' SQLite threads), rating (`backtest-feed`:
/// the ratings and the gap filling), walking (`backtest`: price paths, worker, paper
/// exchange, and its side of each statement) and booking (the SQLite thread of the run's
/// books in memory, which sqlx starts from the `backtest` thread, so it is the one SQLite
/// thread kept to one core). Sampled from /proc every 50 ms, each thread's last sample kept:
/// a thread's last few milliseconds before it ends are not counted.
struct Phases {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Threads>>,
    sampler: std::thread::JoinHandle<()>,
}

impl Phases {
    fn watch() -> Phases {
        let stop = Arc::new(AtomicBool::new(false));
        let seen: Arc<Mutex<Threads>> = Arc::default();
        let (s, m) = (stop.clone(), seen.clone());
        let sampler = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                sample(&m);
                std::thread::sleep(Duration::from_millis(50));
            }
            sample(&m);
        });
        Phases {
            stop,
            seen,
            sampler,
        }
    }

    fn stop(self) -> String {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.sampler.join();
        let seen = self.seen.lock().unwrap();
        let mut by_phase: BTreeMap<&str, u64> = BTreeMap::new();
        for (name, one_core, ns) in seen.values() {
            let phase = match name.as_str() {
                "backtest-read" => "reading",
                "backtest-feed" => "rating",
                "backtest" => "walking",
                n if n.starts_with("sqlx-sqlite") && *one_core => "booking",
                n if n.starts_with("sqlx-sqlite") => "reading",
                _ => "other",
            };
            if std::env::var_os("PHASES_THREADS").is_some() {
                eprintln!(
                    "  thread {name} (one core: {one_core}): {:.2} s",
                    *ns as f64 / 1e9
                );
            }
            *by_phase.entry(phase).or_default() += ns;
        }
        ["reading", "rating", "walking", "booking", "other"]
            .iter()
            .map(|p| {
                format!(
                    "{p} {:.2} s",
                    by_phase.get(p).copied().unwrap_or(0) as f64 / 1e9
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Each thread's name, whether it is kept to one core, and its CPU time so far (ns).
fn sample(seen: &Mutex<Threads>) {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return;
    };
    let me = std::fs::read_to_string("/proc/thread-self/comm").unwrap_or_default();
    for task in tasks.flatten() {
        let Some(tid) = task
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<u32>().ok())
        else {
            continue;
        };
        let dir = task.path();
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        let Some(ns) = read("schedstat")
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let mut seen = seen.lock().unwrap();
        let entry = seen.entry(tid).or_default();
        // A new thread carries its parent's name until it sets its own: look again.
        if entry.0.is_empty() || entry.0 == "sampler" {
            let name = read("comm").trim().to_string();
            entry.0 = if name == me.trim() {
                "sampler".into()
            } else {
                name
            };
            entry.1 = read("status")
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .is_some_and(|cores| !cores.contains(['-', ',']));
        }
        entry.2 = entry.2.max(ns);
    }
}
