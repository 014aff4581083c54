use sqlx::Row;

use crate::{Store, StoreError};

impl Store {
    /// Stores the latest paper-exchange snapshot of a user (JSON), replacing the previous one.
    pub async fn save_paper_account(
        &self,
        user_id: i64,
        snapshot_json: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO paper_accounts (user_id, snapshot, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at",
        )
        .bind(user_id)
        .bind(snapshot_json)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every stored paper account: `(user_id, snapshot JSON)`.
    pub async fn paper_accounts(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = sqlx::query("SELECT user_id, snapshot FROM paper_accounts ORDER BY user_id")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("user_id")?, r.try_get("snapshot")?)))
            .collect()
    }
}
