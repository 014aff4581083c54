//! Each user's TradingView webhook: the digest of its secret URL, and the alert bodies it
//! acted on lately (`webhook_deliveries`), so a copy of one within the duplicate window is
//! acted on once, on every instance.

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

    /// Claims the alert body `body_hash` of the user's webhook at `now_ms`: true when it is
    /// theirs to act on (not seen, or last claimed at or before `now_ms - window_ms`), false
    /// for a copy within the window. One statement on the row's key, so of two requests
    /// racing with the same body (on any instances) exactly one wins. Claims older than the
    /// window are deleted on the way.
    pub async fn claim_webhook_delivery(
        &self,
        user_id: i64,
        body_hash: &str,
        now_ms: i64,
        window_ms: i64,
    ) -> Result<bool, StoreError> {
        let cutoff = now_ms.saturating_sub(window_ms);
        let claimed = sqlx::query(
            "INSERT INTO webhook_deliveries (user_id, body_hash, at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id, body_hash) DO UPDATE SET at = excluded.at
             WHERE webhook_deliveries.at <= $4",
        )
        .bind(user_id)
        .bind(body_hash)
        .bind(now_ms)
        .bind(cutoff)
        .execute(&self.pool)
        .await?;
        sqlx::query("DELETE FROM webhook_deliveries WHERE at <= $1")
            .bind(cutoff)
            .execute(&self.pool)
            .await?;
        Ok(claimed.rows_affected() == 1)
    }

    /// Gives back a claim made at `at` whose alert could not be acted on (signals off, a busy
    /// worker), so the sender's retry is not taken for a duplicate. A later claim of the same
    /// body is left alone.
    pub async fn release_webhook_delivery(
        &self,
        user_id: i64,
        body_hash: &str,
        at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM webhook_deliveries WHERE user_id = $1 AND body_hash = $2 AND at = $3",
        )
        .bind(user_id)
        .bind(body_hash)
        .bind(at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
