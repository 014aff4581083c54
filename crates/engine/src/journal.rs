//! The bot log: every worker event becomes a log entry for its user, stored and published
//! live as `new_log`.

use std::sync::Arc;

use signaldesk_store::{LogEntry, LogLevel, Store};

use crate::events::{EventBus, UserEvent};

/// Writes worker events to the user's bot log. A failed write is reported to the process log
/// and never stops a worker.
#[derive(Clone)]
pub struct BotJournal {
    store: Store,
    bus: Arc<EventBus>,
}

impl BotJournal {
    pub fn new(store: Store, bus: Arc<EventBus>) -> BotJournal {
        BotJournal { store, bus }
    }

    pub async fn write(&self, user_id: i64, level: LogLevel, message: &str) -> Option<LogEntry> {
        let now = chrono::Utc::now().timestamp_millis();
        match self.store.append_log(user_id, level, message, now).await {
            Ok(entry) => {
                self.bus.publish(user_id, UserEvent::NewLog(entry.clone()));
                Some(entry)
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
}
