//! Where a backtest's threads run: below the live bots, and each on one core. A trading
//! thread and the SQLite thread of its books (which sqlx starts from it, so it inherits the
//! core) then hand each statement over on one core. Across cores, each of those hand-overs
//! wakes the other core, and on this machine's virtual cores a wake-up of an idle one cost
//! more than the trading itself: 90 days of 20 symbols traded in 2.4 s across two cores and
//! in 0.56 s kept to one (docs/benchmarks.md, "Backtests").

use crate::BacktestError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use core_affinity::CoreId;

/// Lowers the calling thread's priority as far as it goes (on Linux the lowest niceness,
/// for this thread alone), so a backtest beside the live bots takes only the time they
/// leave. Where the system refuses, the thread keeps its priority.
pub fn yield_to_the_live_bots() {
    let _ = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min);
}

/// Keeps the calling thread, and the threads it starts from now on, to one of the cores the
/// process may use, each caller the next core in turn (so a sweep's threads, and a run's
/// trading and its history, spread over the cores). Where the system refuses, the thread
/// runs where the scheduler puts it.
pub fn keep_to_one_core() {
    let cores = process_cores();
    if cores.is_empty() {
        return;
    }
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let core = cores[NEXT.fetch_add(1, Ordering::Relaxed) % cores.len()];
    core_affinity::set_for_current(core);
}

/// Keeps the calling thread, started from a thread kept to one core, to the next core of the
/// process's instead of the one it inherited (the core after it, so threads started from
/// different cores spread). A thread not kept to one core stays as it is.
pub fn keep_off_the_callers_core() {
    let cores = process_cores();
    let mine = core_affinity::get_core_ids().unwrap_or_default();
    let [inherited] = mine.as_slice() else {
        return;
    };
    if let Some(at) = cores.iter().position(|c| c.id == inherited.id) {
        core_affinity::set_for_current(cores[(at + 1) % cores.len()]);
    }
}

/// The cores the process may use, read once (a thread kept to one core would see only it).
fn process_cores() -> &'static [CoreId] {
    static CORES: OnceLock<Vec<CoreId>> = OnceLock::new();
    CORES.get_or_init(|| core_affinity::get_core_ids().unwrap_or_default())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// A field of the calling thread's /proc status or stat.
    fn status(field: &str) -> String {
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with(field)).unwrap();
        line[field.len()..].trim().to_string()
    }

    /// The nice value of the calling thread, from /proc.
    fn niceness() -> i64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        // Fields after the command's closing parenthesis: state is the 3rd field, nice the 19th.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split_whitespace().nth(16).unwrap().parse().unwrap()
    }

    #[test]
    fn a_backtest_thread_runs_at_the_lowest_priority_and_only_it() {
        let before = niceness();
        let inside = std::thread::spawn(|| {
            super::yield_to_the_live_bots();
            niceness()
        })
        .join()
        .unwrap();
        assert_eq!(inside, 19);
        assert_eq!(niceness(), before, "the caller's own priority is unchanged");
    }

    #[test]
    fn a_thread_kept_to_one_core_and_the_threads_it_starts_run_on_that_core_only() {
        let before = status("Cpus_allowed_list:");
        let (mine, its_child) = std::thread::spawn(|| {
            super::keep_to_one_core();
            let child = std::thread::spawn(|| status("Cpus_allowed_list:"));
            (status("Cpus_allowed_list:"), child.join().unwrap())
        })
        .join()
        .unwrap();
        let one_core: usize = mine.parse().expect("a single core's number");
        assert!(super::process_cores().iter().any(|c| c.id == one_core));
        assert_eq!(its_child, mine, "a thread it starts inherits the core");
        assert_eq!(
            status("Cpus_allowed_list:"),
            before,
            "the caller's own cores are unchanged"
        );
    }

    #[test]
    fn a_thread_kept_off_its_callers_core_runs_on_the_next_one() {
        let cores = super::process_cores();
        let (callers, its_child) = std::thread::spawn(|| {
            super::keep_to_one_core();
            let child = std::thread::spawn(|| {
                super::keep_off_the_callers_core();
                status("Cpus_allowed_list:")
            });
            (status("Cpus_allowed_list:"), child.join().unwrap())
        })
        .join()
        .unwrap();
        let at = |list: &str| {
            let id: usize = list.parse().expect("a single core's number");
            cores
                .iter()
                .position(|c| c.id == id)
                .expect("one of the process's cores")
        };
        assert_eq!(at(&its_child), (at(&callers) + 1) % cores.len());
        if cores.len() > 1 {
            assert_ne!(its_child, callers, "off the caller's core");
        }
    }

    #[test]
    fn a_thread_on_every_core_stays_there_when_kept_off_its_callers_core() {
        let before = status("Cpus_allowed_list:");
        let after = std::thread::spawn(|| {
            super::keep_off_the_callers_core();
            status("Cpus_allowed_list:")
        })
        .join()
        .unwrap();
        assert_eq!(after, before);
    }
}

/// Runs `work` to its end on a thread of its own, below the live bots and kept to one core
/// together with its books' SQLite thread; waits for it (blocking the caller's thread).
pub fn on_a_core<T, F>(work: F) -> Result<T, BacktestError>
where
    T: Send,
    F: std::future::Future<Output = Result<T, BacktestError>> + Send,
{
    std::thread::scope(|scope| {
        let runner = std::thread::Builder::new()
            .name("backtest".into())
            .spawn_scoped(scope, || {
                yield_to_the_live_bots();
                keep_to_one_core();
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?
                    .block_on(work)
            })?;
        runner
            .join()
            .map_err(|_| BacktestError::Data("the backtest's thread failed".into()))?
    })
}
