use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Store, StoreError};

/// Each user keeps at most this many log entries; older ones are pruned.
pub const LOGS_KEPT_PER_USER: i64 = 10_000;
/// Pruning runs on every this-many-th entry, so it costs little per insert.
const PRUNE_EVERY: i64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Info,
    Warning,
    Error,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Info => "info",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<LogLevel> {
        match s {
            "info" => Some(LogLevel::Info),
            "warning" => Some(LogLevel::Warning),
            "error" => Some(LogLevel::Error),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    pub id: i64,
    #[serde(skip)]
    pub user_id: i64,
    /// Unix ms.
    pub ts: i64,
    pub level: LogLevel,
    pub message: String,
}

fn entry_from_row(row: &AnyRow) -> Result<LogEntry, StoreError> {
    let level: String = row.try_get("level")?;
    Ok(LogEntry {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        ts: row.try_get("ts")?,
        level: LogLevel::parse(&level)
            .ok_or_else(|| StoreError::Corrupt(format!("log level {level}")))?,
        message: row.try_get("message")?,
    })
}

impl Store {
    pub async fn append_log(
        &self,
        user_id: i64,
        level: LogLevel,
        message: &str,
        ts_ms: i64,
    ) -> Result<LogEntry, StoreError> {
        let row = sqlx::query(
            "INSERT INTO bot_logs (user_id, ts, level, message) VALUES ($1, $2, $3, $4)
             RETURNING id, user_id, ts, level, message",
        )
        .bind(user_id)
        .bind(ts_ms)
        .bind(level.as_str())
        .bind(message)
        .fetch_one(&self.pool)
        .await?;
        let entry = entry_from_row(&row)?;
        if entry.id % PRUNE_EVERY == 0 {
            self.prune_logs(user_id, LOGS_KEPT_PER_USER).await?;
        }
        Ok(entry)
    }

    /// Keeps the newest `keep` entries of the user.
    pub async fn prune_logs(&self, user_id: i64, keep: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "DELETE FROM bot_logs WHERE user_id = $1 AND id <= (
                 SELECT id FROM bot_logs WHERE user_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
        )
        .bind(user_id)
        .bind(keep)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// The newest entries first, optionally of one level.
    pub async fn recent_logs(
        &self,
        user_id: i64,
        level: Option<LogLevel>,
        limit: i64,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let rows = match level {
            Some(level) => {
                sqlx::query(
                    "SELECT id, user_id, ts, level, message FROM bot_logs
                     WHERE user_id = $1 AND level = $2 ORDER BY id DESC LIMIT $3",
                )
                .bind(user_id)
                .bind(level.as_str())
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(
                    "SELECT id, user_id, ts, level, message FROM bot_logs
                     WHERE user_id = $1 ORDER BY id DESC LIMIT $2",
                )
                .bind(user_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
        };
        rows.iter().map(entry_from_row).collect()
    }
}
