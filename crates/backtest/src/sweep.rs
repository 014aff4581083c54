//! Sweeps: one run for every combination of a few settings' values, the signals computed
//! once for all of them (they do not depend on the settings), the runs shared out among
//! threads, each with a runtime of its own and a core of its own (see [`crate::threads`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::{Backtest, BacktestError, Candles, Progress, Signals, Summary};

/// The most runs one sweep makes.
pub const MAX_CELLS: usize = 400;

/// One settings field and the values it takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Axis {
    pub field: String,
    pub values: Vec<Value>,
}

/// One combination and what its run came to (or why it could not run: a value the
/// settings refuse).
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub values: Map<String, Value>,
    pub outcome: Result<Summary, String>,
}

/// Every combination of the axes' values, in order (the last axis fastest).
pub fn combinations(axes: &[Axis]) -> Vec<Map<String, Value>> {
    let mut all = vec![Map::new()];
    for axis in axes {
        all = all
            .into_iter()
            .flat_map(|done| {
                axis.values.iter().map(move |value| {
                    let mut next = done.clone();
                    next.insert(axis.field.clone(), value.clone());
                    next
                })
            })
            .collect();
    }
    all
}

/// Runs `base` once for every combination of `axes` on `threads` threads; the cells in the
/// order of [`combinations`]. `progress` hears the share of runs done.
pub fn sweep(
    base: &Backtest,
    axes: &[Axis],
    threads: usize,
    progress: &Progress,
) -> Result<Vec<Cell>, BacktestError> {
    let combos = at_most_max_cells(axes)?;
    let shared = shared(base)?;
    let done = AtomicUsize::new(0);
    let total = combos.len().max(1) as f64;
    let tick = || {
        let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress.set(finished as f64 / total);
    };
    run_cells(&shared, &combos, threads, progress, &tick)
}

/// Every combination of `axes`, refused beyond [`MAX_CELLS`].
pub(crate) fn at_most_max_cells(axes: &[Axis]) -> Result<Vec<Map<String, Value>>, BacktestError> {
    let combos = combinations(axes);
    if combos.len() > MAX_CELLS {
        let mut fields = signaldesk_core::validation::FieldErrors::new();
        fields.insert(
            "sweep".into(),
            vec![format!("At most {MAX_CELLS} runs in one sweep.")],
        );
        return Err(BacktestError::Invalid(fields));
    }
    Ok(combos)
}

/// `base` with its candles in memory and its signals computed: what every run of a sweep
/// (or of a walk-forward) starts from.
pub(crate) fn shared(base: &Backtest) -> Result<Backtest, BacktestError> {
    let loaded = Backtest {
        candles: Candles::Loaded(base.candles.load()?),
        ..base.clone()
    };
    Ok(Backtest {
        signals: Signals::Scripted(loaded.signals_once()?),
        ..loaded
    })
}

/// Runs `shared` once with each of `combos` applied to its settings, on `threads` threads,
/// each with a runtime of its own; the cells in the order of `combos`. `tick` hears each
/// cell done; [`BacktestError::Cancelled`] once `progress` is cancelled.
pub(crate) fn run_cells(
    shared: &Backtest,
    combos: &[Map<String, Value>],
    threads: usize,
    progress: &Progress,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Cell>, BacktestError> {
    let next = AtomicUsize::new(0);
    let cells: Mutex<Vec<Option<Cell>>> = Mutex::new(vec![None; combos.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, combos.len().max(1)) {
            scope.spawn(|| {
                crate::threads::yield_to_the_live_bots();
                crate::threads::keep_to_one_core();
                let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(values) = combos.get(i) else { break };
                    if progress.is_cancelled() {
                        break;
                    }
                    let outcome = match shared.settings.apply(values) {
                        Err(fields) => Err(crate::describe(&fields)),
                        Ok(settings) => {
                            let run = Backtest {
                                settings,
                                ..shared.clone()
                            };
                            runtime
                                .block_on(run.run(&Progress::default()))
                                .map(|o| o.summary)
                                .map_err(|e| e.to_string())
                        }
                    };
                    let cell = Cell {
                        values: values.clone(),
                        outcome,
                    };
                    cells.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(cell);
                    tick();
                }
            });
        }
    });
    if progress.is_cancelled() {
        return Err(BacktestError::Cancelled);
    }
    let cells = cells.into_inner().unwrap_or_else(|e| e.into_inner());
    cells
        .into_iter()
        .map(|c| c.ok_or_else(|| BacktestError::Data("a sweep's thread stopped early".into())))
        .collect()
}
