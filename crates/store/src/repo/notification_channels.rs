//! Each user's notification channels (docs/alerts.md): Telegram chats, Discord incoming
//! webhooks, e-mail addresses and generic webhooks. The target and the secret are encrypted
//! at rest and only ever decrypted here, for delivery and for the masked views.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{SecretCipher, Store, StoreError};

/// One channel, target and secret decrypted.
#[derive(Clone, PartialEq, Eq)]
pub struct ChannelRecord {
    pub id: i64,
    pub user_id: i64,
    /// `telegram`, `discord`, `email` or `webhook`.
    pub kind: String,
    /// The chat id, the webhook URL or the e-mail address.
    pub target: String,
    /// The generic webhook's signing secret.
    pub secret: Option<String>,
    /// The events it subscribes to.
    pub events: Vec<String>,
    pub created_at: i64,
    /// Failed deliveries in a row since the last success.
    pub failures: i64,
    pub last_error: Option<String>,
    pub last_failure_at: Option<i64>,
    pub last_success_at: Option<i64>,
}

impl std::fmt::Debug for ChannelRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelRecord")
            .field("id", &self.id)
            .field("user_id", &self.user_id)
            .field("kind", &self.kind)
            .field("events", &self.events)
            .field("failures", &self.failures)
            .finish_non_exhaustive()
    }
}

/// What a channel is set to (create and update).
pub struct ChannelSpec<'a> {
    pub kind: &'a str,
    pub target: &'a str,
    pub secret: Option<&'a str>,
    pub events: &'a [String],
}

const COLUMNS: &str = "id, user_id, kind, target_enc, secret_enc, events, created_at, failures, \
     last_error, last_failure_at, last_success_at";

fn context(user_id: i64, field: &str) -> String {
    format!("notification_channel:{user_id}:{field}")
}

fn channel_from_row(cipher: &SecretCipher, row: &AnyRow) -> Result<ChannelRecord, StoreError> {
    let user_id: i64 = row.try_get("user_id")?;
    let target: String = row.try_get("target_enc")?;
    let secret: Option<String> = row.try_get("secret_enc")?;
    let events: String = row.try_get("events")?;
    Ok(ChannelRecord {
        id: row.try_get("id")?,
        user_id,
        kind: row.try_get("kind")?,
        target: cipher.decrypt(&target, &context(user_id, "target"))?,
        secret: secret
            .map(|s| cipher.decrypt(&s, &context(user_id, "secret")))
            .transpose()?,
        events: events
            .split(',')
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect(),
        created_at: row.try_get("created_at")?,
        failures: row.try_get("failures")?,
        last_error: row.try_get("last_error")?,
        last_failure_at: row.try_get("last_failure_at")?,
        last_success_at: row.try_get("last_success_at")?,
    })
}

impl Store {
    pub async fn create_channel(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        spec: &ChannelSpec<'_>,
        now_ms: i64,
    ) -> Result<ChannelRecord, StoreError> {
        let sql = format!(
            "INSERT INTO notification_channels (user_id, kind, target_enc, secret_enc, events, created_at)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING {COLUMNS}"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(spec.kind)
            .bind(cipher.encrypt(spec.target, &context(user_id, "target"))?)
            .bind(
                spec.secret
                    .map(|s| cipher.encrypt(s, &context(user_id, "secret")))
                    .transpose()?,
            )
            .bind(spec.events.join(","))
            .bind(now_ms)
            .fetch_one(&self.pool)
            .await?;
        channel_from_row(cipher, &row)
    }

    /// The user's channels, oldest first.
    pub async fn channels_of_user(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
    ) -> Result<Vec<ChannelRecord>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM notification_channels WHERE user_id = $1 ORDER BY id");
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| channel_from_row(cipher, r)).collect()
    }

    pub async fn channel(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        id: i64,
    ) -> Result<Option<ChannelRecord>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM notification_channels WHERE user_id = $1 AND id = $2");
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref()
            .map(|r| channel_from_row(cipher, r))
            .transpose()
    }

    /// Replaces the channel's settings (its failure record stays); `None` when the user has no
    /// such channel.
    pub async fn update_channel(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        id: i64,
        spec: &ChannelSpec<'_>,
    ) -> Result<Option<ChannelRecord>, StoreError> {
        let sql = format!(
            "UPDATE notification_channels SET kind = $3, target_enc = $4, secret_enc = $5, events = $6
             WHERE user_id = $1 AND id = $2 RETURNING {COLUMNS}"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(id)
            .bind(spec.kind)
            .bind(cipher.encrypt(spec.target, &context(user_id, "target"))?)
            .bind(
                spec.secret
                    .map(|s| cipher.encrypt(s, &context(user_id, "secret")))
                    .transpose()?,
            )
            .bind(spec.events.join(","))
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref()
            .map(|r| channel_from_row(cipher, r))
            .transpose()
    }

    pub async fn delete_channel(&self, user_id: i64, id: i64) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM notification_channels WHERE user_id = $1 AND id = $2")
            .bind(user_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Notes a failed delivery on the channel.
    pub async fn record_channel_failure(
        &self,
        id: i64,
        error: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE notification_channels SET failures = failures + 1, last_error = $2,
             last_failure_at = $3 WHERE id = $1",
        )
        .bind(id)
        .bind(error)
        .bind(at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Notes a delivery that went through: the failures in a row start again from 0 (the last
    /// error stays, with its time, for the list).
    pub async fn record_channel_success(&self, id: i64, at_ms: i64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE notification_channels SET failures = 0, last_success_at = $2 WHERE id = $1",
        )
        .bind(id)
        .bind(at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn targets_and_secrets_are_encrypted_at_rest() {
        let store = Store::in_memory().await.unwrap();
        let cipher = SecretCipher::random();
        let user = store.create_user("a", "h", 0).await.unwrap().id;
        let events = vec!["alert_raised".to_string()];
        let spec = ChannelSpec {
            kind: "webhook",
            target: "https://example.com/hook",
            secret: Some("s3cret-s3cret-s3cret"),
            events: &events,
        };
        let made = store.create_channel(&cipher, user, &spec, 1).await.unwrap();
        assert_eq!(made.target, "https://example.com/hook");
        assert_eq!(made.secret.as_deref(), Some("s3cret-s3cret-s3cret"));
        assert_eq!(made.events, events);
        let raw: (String, String) =
            sqlx::query_as("SELECT target_enc, secret_enc FROM notification_channels")
                .fetch_one(&store.pool)
                .await
                .unwrap();
        assert!(!raw.0.contains("example.com") && !raw.1.contains("s3cret"));
        store
            .record_channel_failure(made.id, "HTTP 500", 5)
            .await
            .unwrap();
        let listed = store.channels_of_user(&cipher, user).await.unwrap();
        assert_eq!(listed[0].failures, 1);
        assert_eq!(listed[0].last_error.as_deref(), Some("HTTP 500"));
        assert!(store.delete_channel(user, made.id).await.unwrap());
        assert!(!store.delete_channel(user + 1, made.id).await.unwrap());
    }
}
