//! Live events between instances sharing a PostgreSQL database: NOTIFY on one channel, and a
//! listener on a connection of its own. A payload too large for NOTIFY (PostgreSQL refuses
//! 8000 bytes and more) is written to `event_outbox` (migration 0013) and the notification
//! carries its id. Delivery is at most once: a listener that reconnects misses what was sent
//! meanwhile, as a websocket client that reconnects does.

use sqlx::postgres::PgListener;
use sqlx::Row;

use crate::{Backend, Store, StoreError};

/// The channel every instance listens on.
pub const EVENTS_CHANNEL: &str = "signaldesk_events";
/// The largest payload sent inline, in bytes (NOTIFY's limit is 8000, with the marker).
pub const INLINE_LIMIT: usize = 7900;
/// How long an outbox row is kept for the listeners to read it.
const OUTBOX_KEEP_MS: i64 = 60_000;

impl Store {
    /// Sends `payload` to every instance listening, this one included.
    pub async fn notify_event(&self, payload: &str) -> Result<(), StoreError> {
        let message = if payload.len() <= INLINE_LIMIT {
            format!("p{payload}")
        } else {
            let now = self.clock_ms();
            let row = sqlx::query(&format!(
                "INSERT INTO event_outbox (payload, at) VALUES ($1, {now}) RETURNING id"
            ))
            .bind(payload)
            .fetch_one(&self.pool)
            .await?;
            let id: i64 = row.try_get("id")?;
            sqlx::query(&format!("DELETE FROM event_outbox WHERE at < {now} - $1"))
                .bind(OUTBOX_KEEP_MS)
                .execute(&self.pool)
                .await?;
            format!("o{id}")
        };
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(EVENTS_CHANNEL)
            .bind(message)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A listener for the events every instance sends (PostgreSQL only).
    pub async fn event_listener(&self) -> Result<EventListener, StoreError> {
        if self.backend() != Backend::Postgres {
            return Err(StoreError::InvalidUrl(
                "events between instances need PostgreSQL".into(),
            ));
        }
        let mut listener = PgListener::connect(&self.url).await?;
        listener.listen(EVENTS_CHANNEL).await?;
        Ok(EventListener {
            listener,
            store: self.clone(),
        })
    }
}

pub struct EventListener {
    listener: PgListener,
    store: Store,
}

impl EventListener {
    /// The next payload any instance sent. After a lost connection it reconnects and goes on
    /// (what was sent meanwhile is missed); an outbox row already deleted is skipped.
    pub async fn recv(&mut self) -> Result<String, StoreError> {
        loop {
            let notification = self.listener.recv().await?;
            let message = notification.payload();
            if let Some(payload) = message.strip_prefix('p') {
                return Ok(payload.to_string());
            }
            let Some(id) = message
                .strip_prefix('o')
                .and_then(|id| id.parse::<i64>().ok())
            else {
                continue;
            };
            let row = sqlx::query("SELECT payload FROM event_outbox WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.store.pool)
                .await?;
            if let Some(row) = row {
                return Ok(row.try_get("payload")?);
            }
        }
    }
}
