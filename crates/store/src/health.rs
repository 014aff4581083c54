//! Whether the database is reachable right now: one flag per [`crate::Store`], flipped down by
//! the first statement that fails with an outage and up by the next one that succeeds, so the
//! server (`/healthz`, `/metrics`) and the engine (the bot log) read the same answer.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{outage, Outage};

#[derive(Debug)]
pub struct StoreHealth {
    up: AtomicBool,
    /// Down because writes failed (disk full, read-only): a successful read proves nothing
    /// then, only a successful write brings the flag back up.
    writes_failing: AtomicBool,
    /// Times the flag went from up to down since the process started.
    episodes: AtomicU64,
}

impl Default for StoreHealth {
    fn default() -> StoreHealth {
        StoreHealth {
            up: AtomicBool::new(true),
            writes_failing: AtomicBool::new(false),
            episodes: AtomicU64::new(0),
        }
    }
}

impl StoreHealth {
    /// False while the database is unreachable (degraded mode).
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// How many times the database became unreachable since the process started.
    pub fn episodes(&self) -> u64 {
        self.episodes.load(Ordering::Relaxed)
    }

    /// Notes the outcome of one statement; `write` says whether it changes data.
    pub(crate) fn record<T>(&self, outcome: &Result<T, sqlx::Error>, write: bool) {
        match outcome {
            Ok(_) => self.succeeded(write),
            Err(err) => {
                if let Some(kind) = outage(err) {
                    self.failed(kind);
                }
            }
        }
    }

    fn succeeded(&self, write: bool) {
        if self.is_up() || (self.writes_failing.load(Ordering::Relaxed) && !write) {
            return;
        }
        self.writes_failing.store(false, Ordering::Relaxed);
        self.up.store(true, Ordering::Relaxed);
        tracing::info!("the database is reachable again: leaving degraded mode");
    }

    fn failed(&self, kind: Outage) {
        if kind == Outage::Storage {
            self.writes_failing.store(true, Ordering::Relaxed);
        }
        if self.up.swap(false, Ordering::Relaxed) {
            self.episodes.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(?kind, "the database is unreachable: degraded mode");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> Result<(), sqlx::Error> {
        Err(sqlx::Error::PoolTimedOut)
    }

    #[test]
    fn a_connection_outage_ends_with_any_success() {
        let health = StoreHealth::default();
        health.record(&refused(), false);
        health.record(&refused(), true);
        assert!(!health.is_up());
        assert_eq!(health.episodes(), 1);
        health.record(&Ok::<_, sqlx::Error>(()), false);
        assert!(health.is_up());
        health.record(&refused(), false);
        assert_eq!(health.episodes(), 2);
    }

    #[test]
    fn query_errors_do_not_touch_the_flag() {
        let health = StoreHealth::default();
        health.record(&Err::<(), _>(sqlx::Error::RowNotFound), true);
        assert!(health.is_up());
        assert_eq!(health.episodes(), 0);
    }
}
