//! The Telegram command poller's row (migration 0021): who polls the bot's updates, and the
//! offset of the next update to handle. Like the bot leases, every time is the database's.

use sqlx::Row;

use crate::repo::leases::LeaseHolder;
use crate::{Store, StoreError};

/// The poller's lease, taken: where to go on reading updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollerTenure {
    /// The `update_id` of the next update to handle; 0 when none was handled yet.
    pub next_offset: i64,
    /// How long ago (ms, database clock) `next_offset` last moved.
    pub offset_age_ms: i64,
}

impl Store {
    /// Takes the poller's lease for `holder` for `ttl_ms` when nobody holds it, it ran out, it
    /// is `holder`'s already, or an earlier process of the same instance id (dead, ids being
    /// unique among running processes) holds it. `None` while another process polls.
    pub async fn take_telegram_poller(
        &self,
        holder: &LeaseHolder,
        ttl_ms: i64,
    ) -> Result<Option<PollerTenure>, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "INSERT INTO telegram_poller (id, owner, instance, expires_at, next_offset, offset_at)
             VALUES (1, $1, $2, {now} + $3, 0, {now})
             ON CONFLICT (id) DO UPDATE SET
                 owner = excluded.owner,
                 instance = excluded.instance,
                 expires_at = excluded.expires_at
             WHERE telegram_poller.owner = excluded.owner
                OR telegram_poller.instance = excluded.instance
                OR telegram_poller.expires_at < {now}
             RETURNING next_offset, {now} - offset_at AS offset_age"
        );
        let row = sqlx::query(&sql)
            .bind(&holder.process)
            .bind(&holder.instance)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| -> Result<PollerTenure, StoreError> {
            Ok(PollerTenure {
                next_offset: r.try_get("next_offset")?,
                offset_age_ms: r.try_get("offset_age")?,
            })
        })
        .transpose()
    }

    /// Extends `holder`'s lease by `ttl_ms` from now; false when it ran out or another
    /// process took it (the holder must stop polling at once).
    pub async fn renew_telegram_poller(
        &self,
        holder: &LeaseHolder,
        ttl_ms: i64,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "UPDATE telegram_poller SET expires_at = {now} + $2
             WHERE id = 1 AND owner = $1 AND expires_at >= {now}"
        );
        let done = sqlx::query(&sql)
            .bind(&holder.process)
            .bind(ttl_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Claims update `update_id` for handling: moves the offset past it and extends the lease
    /// by `ttl_ms`, in one statement that checks `holder` still polls and the update was not
    /// claimed before. True: act on it (this once); false: skip it.
    pub async fn claim_telegram_update(
        &self,
        holder: &LeaseHolder,
        update_id: i64,
        ttl_ms: i64,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "UPDATE telegram_poller
             SET next_offset = $2 + 1, offset_at = {now}, expires_at = {now} + $3
             WHERE id = 1 AND owner = $1 AND expires_at >= {now} AND next_offset <= $2"
        );
        let done = sqlx::query(&sql)
            .bind(&holder.process)
            .bind(update_id)
            .bind(ttl_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Forgets the offset (`holder`'s lease only): Telegram keeps an update at most 24 hours
    /// and, after a week without updates, numbers the next one at random, so an offset that
    /// old says nothing about the updates to come.
    pub async fn reset_telegram_offset(&self, holder: &LeaseHolder) -> Result<(), StoreError> {
        let now = self.clock_ms();
        sqlx::query(&format!(
            "UPDATE telegram_poller SET next_offset = 0, offset_at = {now}
             WHERE id = 1 AND owner = $1"
        ))
        .bind(&holder.process)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Ends `holder`'s lease now (a clean stop), so another process may poll at once.
    pub async fn release_telegram_poller(&self, holder: &LeaseHolder) -> Result<(), StoreError> {
        sqlx::query("UPDATE telegram_poller SET expires_at = 0 WHERE id = 1 AND owner = $1")
            .bind(&holder.process)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The users whose settings name `chat_id` as their `telegram_id`, by id.
    pub async fn users_with_telegram_id(&self, chat_id: &str) -> Result<Vec<i64>, StoreError> {
        let chat_id = chat_id.trim();
        if chat_id.is_empty() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query("SELECT user_id, settings FROM bot_settings ORDER BY user_id")
            .fetch_all(&self.pool)
            .await?;
        let mut users = Vec::new();
        for row in rows {
            let json: String = row.try_get("settings")?;
            let settings: signaldesk_core::settings::BotSettings = serde_json::from_str(&json)
                .map_err(|e| StoreError::Corrupt(format!("settings record: {e}")))?;
            if settings.telegram_id.trim() == chat_id {
                users.push(row.try_get("user_id")?);
            }
        }
        Ok(users)
    }
}
