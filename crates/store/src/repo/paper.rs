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

    /// Saves the user's paper account only while tenure `token` of the user's lease holds
    /// (several instances: the owner's writes only); false when it no longer does.
    pub async fn save_paper_account_fenced(
        &self,
        user_id: i64,
        snapshot_json: &str,
        now_ms: i64,
        token: i64,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "INSERT INTO paper_accounts (user_id, snapshot, updated_at)
             SELECT user_id, $2, $3 FROM bot_leases
             WHERE user_id = $1 AND token = $4 AND expires_at >= {now}
             ON CONFLICT (user_id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at
             RETURNING user_id"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(snapshot_json)
            .bind(now_ms)
            .bind(token)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// One user's stored paper account (snapshot JSON), if any.
    pub async fn paper_account(&self, user_id: i64) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT snapshot FROM paper_accounts WHERE user_id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("snapshot")).transpose()?)
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
