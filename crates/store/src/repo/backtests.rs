//! Each user's backtests (migration 0015): started at most one at a time per user, their
//! progress and heartbeat written by the job, their result kept until deleted. Times are the
//! database's clock, so every instance judges a heartbeat alike.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Store, StoreError};

/// A running backtest not heard from for this long is taken as failed.
pub const HEARTBEAT_TIMEOUT_MS: i64 = 60_000;
/// What a backtest whose job stopped answering says.
pub const JOB_LOST: &str = "The server running this backtest stopped before it finished.";

/// One backtest as stored; `result` only where asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestRecord {
    pub id: i64,
    pub user_id: i64,
    /// `running`, `done`, `failed` or `cancelled`.
    pub status: String,
    pub progress: f64,
    pub request: String,
    pub result: Option<String>,
    pub error: Option<String>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    /// The trader's label (migration 0030).
    pub label: Option<String>,
}

/// The longest label, in characters.
pub const MAX_LABEL_CHARS: usize = 80;

fn record(row: &AnyRow, with_result: bool) -> Result<BacktestRecord, StoreError> {
    Ok(BacktestRecord {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        status: row.try_get("status")?,
        progress: row.try_get("progress")?,
        request: row.try_get("request")?,
        result: if with_result {
            row.try_get("result")?
        } else {
            None
        },
        error: row.try_get("error")?,
        created_at: row.try_get("created_at")?,
        finished_at: row.try_get("finished_at")?,
        label: row.try_get("label")?,
    })
}

const COLUMNS: &str =
    "id, user_id, status, progress, request, result, error, created_at, finished_at, label";

impl Store {
    /// Records a new running backtest for the user; [`StoreError::Conflict`] while another
    /// of theirs runs (one whose heartbeat stopped is marked failed first).
    pub async fn start_backtest(
        &self,
        user_id: i64,
        request: &str,
    ) -> Result<BacktestRecord, StoreError> {
        self.expire_backtests(user_id).await?;
        let now = self.clock_ms();
        let row = sqlx::query(&format!(
            "INSERT INTO backtests (user_id, status, progress, request, created_at, updated_at)
             VALUES ($1, 'running', 0, $2, {now}, {now}) RETURNING {COLUMNS}"
        ))
        .bind(user_id)
        .bind(request)
        .fetch_one(&self.pool)
        .await?;
        record(&row, true)
    }

    /// The job's heartbeat: its progress (0 to 1). False when the backtest no longer runs
    /// (cancelled or deleted): the job stops.
    pub async fn backtest_progress(&self, id: i64, progress: f64) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let done = sqlx::query(&format!(
            "UPDATE backtests SET progress = $2, updated_at = {now}
             WHERE id = $1 AND status = 'running'"
        ))
        .bind(id)
        .bind(progress.clamp(0.0, 1.0))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Ends a running backtest: `done` with its result, or `failed` with the reason. False
    /// when it no longer ran (cancelled or deleted meanwhile): nothing is written.
    pub async fn finish_backtest(
        &self,
        id: i64,
        outcome: Result<&str, &str>,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let (status, result, error) = match outcome {
            Ok(result) => ("done", Some(result), None),
            Err(error) => ("failed", None, Some(error)),
        };
        let done = sqlx::query(&format!(
            "UPDATE backtests SET status = $2, result = $3, error = $4, updated_at = {now},
                 finished_at = {now}, progress = CASE WHEN $2 = 'done' THEN 1 ELSE progress END
             WHERE id = $1 AND status = 'running'"
        ))
        .bind(id)
        .bind(status)
        .bind(result)
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Cancels the user's backtest if it runs; false when it does not (or is not theirs).
    pub async fn cancel_backtest(&self, user_id: i64, id: i64) -> Result<bool, StoreError> {
        self.expire_backtests(user_id).await?;
        let now = self.clock_ms();
        let done = sqlx::query(&format!(
            "UPDATE backtests SET status = 'cancelled', updated_at = {now}, finished_at = {now}
             WHERE id = $1 AND user_id = $2 AND status = 'running'"
        ))
        .bind(id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// One of the user's backtests, with its result.
    pub async fn backtest(
        &self,
        user_id: i64,
        id: i64,
    ) -> Result<Option<BacktestRecord>, StoreError> {
        self.expire_backtests(user_id).await?;
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM backtests WHERE id = $1 AND user_id = $2"
        ))
        .bind(id)
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(|r| record(r, true)).transpose()
    }

    /// The user's backtests, newest first, without their results.
    pub async fn backtests(&self, user_id: i64) -> Result<Vec<BacktestRecord>, StoreError> {
        self.expire_backtests(user_id).await?;
        let rows = sqlx::query(
            "SELECT id, user_id, status, progress, request, NULL AS result, error, created_at,
                    finished_at, label
             FROM backtests WHERE user_id = $1 ORDER BY id DESC",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| record(r, false)).collect()
    }

    /// Sets (or, with `None`, clears) the label of one of the user's backtests, as given
    /// (the caller trims it and checks its length); false when it is not theirs.
    pub async fn label_backtest(
        &self,
        user_id: i64,
        id: i64,
        label: Option<&str>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE backtests SET label = $3 WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .bind(label)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes one of the user's backtests (a running one stops at its next heartbeat).
    pub async fn delete_backtest(&self, user_id: i64, id: i64) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM backtests WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Marks the user's running backtests whose heartbeat stopped as failed.
    async fn expire_backtests(&self, user_id: i64) -> Result<(), StoreError> {
        let now = self.clock_ms();
        sqlx::query(&format!(
            "UPDATE backtests SET status = 'failed', error = $2, finished_at = {now}
             WHERE user_id = $1 AND status = 'running' AND updated_at < {now} - $3"
        ))
        .bind(user_id)
        .bind(JOB_LOST)
        .bind(HEARTBEAT_TIMEOUT_MS)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
