use sqlx::Row;

use crate::{Store, StoreError};

impl Store {
    /// Replaces the user's webhook secret digest (the old URL stops working at once).
    pub async fn set_webhook_secret(
        &self,
        user_id: i64,
        secret_hash: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO webhook_secrets (user_id, secret_hash, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id) DO UPDATE SET secret_hash = $2, created_at = $3",
        )
        .bind(user_id)
        .bind(secret_hash)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// When the user's current webhook secret was made, if they have one.
    pub async fn webhook_created_at(&self, user_id: i64) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT created_at FROM webhook_secrets WHERE user_id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("created_at")).transpose()?)
    }

    /// The user a webhook secret digest belongs to.
    pub async fn webhook_user(&self, secret_hash: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT user_id FROM webhook_secrets WHERE secret_hash = $1")
            .bind(secret_hash)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("user_id")).transpose()?)
    }

    pub async fn delete_webhook_secret(&self, user_id: i64) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM webhook_secrets WHERE user_id = $1")
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
