//! Stored (Bybit) 1-minute candles, read from the database a stretch at a time as a run goes,
//! so a year of twenty symbols (ten million candles) is never held whole.

use std::collections::BTreeMap;
use std::fmt;

use signaldesk_core::market::Candle;
use signaldesk_store::Store;
use tokio::runtime::{Handle, RuntimeFlavor};

use crate::BacktestError;

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

    /// `symbol`'s stored candles opened in `[from_ms, to_ms)`, oldest first. It blocks: call
    /// it from a thread of its own, never from a task of a runtime.
    pub(crate) fn read(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Candle>, BacktestError> {
        Ok(self
            .runtime
            .block_on(self.store.candles_between(symbol, from_ms, to_ms))?)
    }
}
