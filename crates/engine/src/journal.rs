//! The bot log: every worker event becomes a log entry for its user, stored and published
//! live as `new_log`.
//!
//! While the database is unreachable (degraded mode, docs/reliability.md), lines wait in
//! memory ([`backlog`], at most [`MAX_PENDING`]) and one flusher task writes them afterwards,
//! oldest first, with the time they were made. A waiting line is published when it is
//! written, so live clients see it once, with its stored id.

mod backlog;

use std::sync::Arc;
use std::time::Duration;

use signaldesk_store::{LogEntry, LogLevel, Store};

use crate::events::{EventBus, UserEvent};
use backlog::{Backlog, PendingLine};

/// Lines kept while the database is unreachable; beyond, the oldest is dropped and counted.
pub const MAX_PENDING: usize = 10_000;
/// How often the flusher tries the database again.
const RETRY_EVERY: Duration = Duration::from_secs(2);

/// Writes worker events to the user's bot log. A failed write never stops a worker: an
/// unreachable database defers the line, any other failure is reported to the process log.
#[derive(Clone)]
pub struct BotJournal {
    store: Store,
    bus: Arc<EventBus>,
    backlog: Arc<Backlog>,
    /// Set for a journal whose lines stay in memory instead of the store.
    kept: Option<Arc<KeptLines>>,
}

/// The newest lines of a journal kept in memory, oldest first.
struct KeptLines {
    lines: std::sync::Mutex<std::collections::VecDeque<String>>,
    keep: usize,
}

impl BotJournal {
    pub fn new(store: Store, bus: Arc<EventBus>) -> BotJournal {
        BotJournal {
            store,
            bus,
            backlog: Arc::new(Backlog::new(MAX_PENDING)),
            kept: None,
        }
    }

    /// A journal that keeps its newest `keep` lines in memory and writes nothing (a
    /// backtest's: a year of skipped entries would otherwise be most of its writes).
    pub fn kept_in_memory(store: Store, bus: Arc<EventBus>, keep: usize) -> BotJournal {
        BotJournal {
            kept: Some(Arc::new(KeptLines {
                lines: std::sync::Mutex::new(std::collections::VecDeque::new()),
                keep,
            })),
            ..BotJournal::new(store, bus)
        }
    }

    /// The lines kept in memory, oldest first (none for a journal that writes the store).
    pub fn kept_lines(&self) -> Vec<String> {
        self.kept.as_ref().map_or_else(Vec::new, |kept| {
            let lines = kept.lines.lock().unwrap_or_else(|e| e.into_inner());
            lines.iter().cloned().collect()
        })
    }

    /// Stores and publishes the line; `None` when it could not be written now (deferred
    /// while the database is unreachable, or lost on another error).
    pub async fn write(&self, user_id: i64, level: LogLevel, message: &str) -> Option<LogEntry> {
        if let Some(kept) = &self.kept {
            let mut lines = kept.lines.lock().unwrap_or_else(|e| e.into_inner());
            if lines.len() >= kept.keep {
                lines.pop_front();
            }
            lines.push_back(message.to_string());
            return None;
        }
        let line = PendingLine {
            user_id,
            level,
            message: message.to_string(),
            ts: chrono::Utc::now().timestamp_millis(),
        };
        // Behind waiting lines, or with the database known to be down, a line waits its turn
        // instead of making the worker wait for the database.
        if !self.store.health().is_up() || !self.backlog.is_empty() {
            self.defer(line);
            return None;
        }
        match self.store_line(&line).await {
            Ok(entry) => Some(entry),
            Err(e) if e.is_unavailable() => {
                self.defer(line);
                None
            }
            Err(e) => {
                tracing::error!(user_id, error = %e, "could not write a bot log entry");
                None
            }
        }
    }

    pub async fn info(&self, user_id: i64, message: &str) {
        self.write(user_id, LogLevel::Info, message).await;
    }

    pub async fn warning(&self, user_id: i64, message: &str) {
        self.write(user_id, LogLevel::Warning, message).await;
    }

    pub async fn error(&self, user_id: i64, message: &str) {
        self.write(user_id, LogLevel::Error, message).await;
    }

    /// Lines waiting for the database.
    pub fn pending(&self) -> usize {
        self.backlog.len()
    }

    /// Lines lost since start because [`MAX_PENDING`] were already waiting.
    pub fn dropped(&self) -> u64 {
        self.backlog.dropped()
    }

    async fn store_line(
        &self,
        line: &PendingLine,
    ) -> Result<LogEntry, signaldesk_store::StoreError> {
        let entry = self
            .store
            .append_log(line.user_id, line.level, &line.message, line.ts)
            .await?;
        self.bus
            .publish(line.user_id, UserEvent::NewLog(entry.clone()));
        Ok(entry)
    }

    fn defer(&self, line: PendingLine) {
        if self.backlog.push(line) {
            tokio::spawn(self.clone().flush());
        }
    }

    /// Writes the waiting lines oldest first, retrying while the database is unreachable;
    /// returns when none is left.
    async fn flush(self) {
        while let Some((seq, line)) = self.backlog.next() {
            match self.store_line(&line).await {
                Ok(_) => self.backlog.written(seq),
                Err(e) if e.is_unavailable() => tokio::time::sleep(RETRY_EVERY).await,
                Err(e) => {
                    tracing::error!(user_id = line.user_id, error = %e, "could not write a deferred bot log entry");
                    self.backlog.written(seq);
                }
            }
        }
    }
}
