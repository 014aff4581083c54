//! Each user's TradingView webhook: the digest of its secret URL, and the alert bodies it
//! acted on lately (`webhook_deliveries`), so a copy of one within the duplicate window is
//! acted on once, on every instance; each accepted alert is kept there until the user's
//! signal worker has acted on it (the outbox: nothing accepted is lost to a crash or a failed
//! write).

use sqlx::Row;

use crate::repo::signals::{insert_signal_on, StoredSignal};
use crate::{Store, StoreError};

/// A webhook alert kept with its claim until the signal worker acts on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAlert {
    pub symbol: String,
    /// One of the five rating levels.
    pub rating: String,
    /// Unix ms after which it is too old to act on (its arrival + `webhook_max_lag_secs`).
    pub expires_at: i64,
}

/// What acting on a kept webhook alert did.
#[derive(Debug, Clone, PartialEq)]
pub enum AlertTaken {
    /// Its signal was stored.
    Stored(StoredSignal),
    /// It was too old: marked acted on, no signal.
    Expired,
    /// It was acted on already, or claimed again since: nothing was written.
    Gone,
}

/// A claimed alert not yet acted on: its claim's key and time, and the alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingWebhookAlert {
    pub body_hash: String,
    /// Unix ms of the claim (the alert's arrival).
    pub at: i64,
    pub alert: WebhookAlert,
}

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

    /// Claims the alert body `body_hash` of the user's webhook at `now_ms` and keeps the
    /// alert until the signal worker acts on it (`take_webhook_alert`, or it expires at
    /// `alert.expires_at`): true when it is theirs to act on (not seen, or last claimed at or
    /// before `now_ms - window_ms`), false for a copy within the window. One statement on the
    /// row's key, so of two requests racing with the same body (on any instances) exactly one
    /// wins, and the claim and the alert are written together. Claims acted on and older than
    /// the window are deleted on the way; alerts not yet acted on stay.
    pub async fn claim_webhook_delivery(
        &self,
        user_id: i64,
        body_hash: &str,
        now_ms: i64,
        window_ms: i64,
        alert: &WebhookAlert,
    ) -> Result<bool, StoreError> {
        let cutoff = now_ms.saturating_sub(window_ms);
        let claimed = sqlx::query(
            "INSERT INTO webhook_deliveries (user_id, body_hash, at, symbol, rating, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (user_id, body_hash) DO UPDATE SET at = excluded.at,
                 symbol = excluded.symbol, rating = excluded.rating,
                 expires_at = excluded.expires_at, acted_at = NULL
             WHERE webhook_deliveries.at <= $7",
        )
        .bind(user_id)
        .bind(body_hash)
        .bind(now_ms)
        .bind(&alert.symbol)
        .bind(&alert.rating)
        .bind(alert.expires_at)
        .bind(cutoff)
        .execute(&self.pool)
        .await?;
        sqlx::query("DELETE FROM webhook_deliveries WHERE at <= $1 AND acted_at IS NOT NULL")
            .bind(cutoff)
            .execute(&self.pool)
            .await?;
        Ok(claimed.rows_affected() == 1)
    }

    /// The user's claimed alerts not yet acted on, oldest first.
    pub async fn pending_webhook_alerts(
        &self,
        user_id: i64,
    ) -> Result<Vec<PendingWebhookAlert>, StoreError> {
        let rows = sqlx::query(
            "SELECT body_hash, at, symbol, rating, expires_at FROM webhook_deliveries
             WHERE user_id = $1 AND acted_at IS NULL ORDER BY at, body_hash",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PendingWebhookAlert {
                    body_hash: r.try_get("body_hash")?,
                    at: r.try_get("at")?,
                    alert: WebhookAlert {
                        symbol: r.try_get("symbol")?,
                        rating: r.try_get("rating")?,
                        expires_at: r.try_get("expires_at")?,
                    },
                })
            })
            .collect()
    }

    /// Acts on the alert claimed as `body_hash` at `at`, at `now_ms`, in one transaction:
    /// marks it acted on and stores `signal` (`None`: it expired, and only the mark is
    /// written). On an error nothing is written and the alert stays to be acted on.
    pub async fn take_webhook_alert(
        &self,
        user_id: i64,
        body_hash: &str,
        at: i64,
        now_ms: i64,
        signal: Option<&StoredSignal>,
    ) -> Result<AlertTaken, StoreError> {
        let mut tx = self.pool.begin().await?;
        let marked = sqlx::query(
            "UPDATE webhook_deliveries SET acted_at = $4
             WHERE user_id = $1 AND body_hash = $2 AND at = $3 AND acted_at IS NULL",
        )
        .bind(user_id)
        .bind(body_hash)
        .bind(at)
        .bind(now_ms)
        .execute(&mut *tx)
        .await?;
        if marked.rows_affected() != 1 {
            return Ok(AlertTaken::Gone);
        }
        let taken = match signal {
            Some(signal) => AlertTaken::Stored(insert_signal_on(&mut tx, signal).await?),
            None => AlertTaken::Expired,
        };
        tx.commit().await?;
        Ok(taken)
    }

    /// Gives back a claim made at `at` whose alert could not be acted on (signals off, a busy
    /// worker), so the sender's retry is not taken for a duplicate. A later claim of the same
    /// body, or one already acted on, is left alone.
    pub async fn release_webhook_delivery(
        &self,
        user_id: i64,
        body_hash: &str,
        at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM webhook_deliveries
             WHERE user_id = $1 AND body_hash = $2 AND at = $3 AND acted_at IS NULL",
        )
        .bind(user_id)
        .bind(body_hash)
        .bind(at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
