//! Stored (Bybit) 1-minute candles, read from the database a stretch at a time as a run goes,
//! so a year of twenty symbols (ten million candles) is never held whole.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::mpsc;

use signaldesk_core::market::Candle;
use signaldesk_store::Store;
use tokio::runtime::{Handle, RuntimeFlavor};

use crate::threads::{keep_off_the_callers_core, yield_to_the_live_bots};
use crate::BacktestError;

/// One stretch of every symbol's stored candles (in the order asked), oldest first.
pub(crate) type Stretch = Vec<Vec<Candle>>;

/// The stored candles of some symbols over a period, and where to read them.
#[derive(Clone)]
pub struct StoredCandles {
    store: Store,
    /// The runtime the store was opened on: the reads run on it, from the history's thread.
    runtime: Handle,
    /// Each symbol's first and last stored minute in the period (open times, Unix ms).
    bounds: BTreeMap<String, (i64, i64)>,
}

impl fmt::Debug for StoredCandles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredCandles")
            .field("bounds", &self.bounds)
            .finish_non_exhaustive()
    }
}

impl StoredCandles {
    /// The stored candles of `symbols` opened in `[from_ms, to_ms)`; a symbol without any is
    /// [`BacktestError::NoCandles`]. Call it on the multi-threaded runtime whose store this
    /// is: the reads go through it later, from another thread, while the run's own thread
    /// may block; a single-threaded runtime would then drive no database connection.
    pub async fn open(
        store: &Store,
        symbols: &[String],
        from_ms: i64,
        to_ms: i64,
    ) -> Result<StoredCandles, BacktestError> {
        let runtime = Handle::current();
        if runtime.runtime_flavor() != RuntimeFlavor::MultiThread {
            return Err(BacktestError::Data(
                "stored candles are read through a multi-threaded runtime".into(),
            ));
        }
        let mut bounds = BTreeMap::new();
        for symbol in symbols {
            let found = store
                .candle_bounds(symbol, from_ms, to_ms)
                .await?
                .ok_or_else(|| BacktestError::NoCandles(symbol.clone()))?;
            bounds.insert(symbol.clone(), found);
        }
        Ok(StoredCandles {
            store: store.clone(),
            runtime,
            bounds,
        })
    }

    /// Each symbol's first and last stored minute, by symbol.
    pub fn bounds(&self) -> &BTreeMap<String, (i64, i64)> {
        &self.bounds
    }

    /// Reads `symbols`' stored candles stretch after stretch (`[start, start + stretch_ms)`
    /// from `from_ms` until `to_ms`) on a thread of its own, one stretch ahead of the reader:
    /// the database's work overlaps with the rating and the trading. A failed read is the
    /// last thing sent; the thread ends when the receiver goes.
    pub(crate) fn read_ahead(
        &self,
        symbols: Vec<String>,
        from_ms: i64,
        to_ms: i64,
        stretch_ms: i64,
    ) -> std::io::Result<mpsc::Receiver<Result<Stretch, BacktestError>>> {
        let (sender, stretches) = mpsc::sync_channel(1);
        let stored = self.clone();
        std::thread::Builder::new()
            .name("backtest-read".into())
            .spawn(move || {
                yield_to_the_live_bots();
                // Started from the trading thread, it would take turns with the trading on
                // its core: the reading is as heavy as the trading or the rating.
                keep_off_the_callers_core();
                let mut start = from_ms;
                while start < to_ms {
                    let end = to_ms.min(start + stretch_ms);
                    let read = stored.read_stretch(&symbols, start, end);
                    let failed = read.is_err();
                    if sender.send(read).is_err() || failed {
                        break;
                    }
                    start = end;
                }
            })?;
        Ok(stretches)
    }

    /// Each of `symbols`' stored candles opened in `[from_ms, to_ms)`, one symbol at a time
    /// (one of the pool's connections: the live bots keep the others). It blocks.
    fn read_stretch(
        &self,
        symbols: &[String],
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Stretch, BacktestError> {
        symbols
            .iter()
            .map(|symbol| {
                let Some(&(first, last)) = self.bounds.get(symbol) else {
                    return Ok(Vec::new());
                };
                let (a, b) = (from_ms.max(first), to_ms.min(last + 1));
                if a >= b {
                    return Ok(Vec::new());
                }
                Ok(self
                    .runtime
                    .block_on(self.store.candles_between(symbol, a, b))?)
            })
            .collect()
    }
}
