//! Live events between instances sharing a PostgreSQL database. Every event is a row of
//! `event_outbox` numbered per sending process (`origin`, `seq`; migration 0023), written in
//! the statement that sends its NOTIFY, so the row and the notification commit together. The
//! notification carries the payload when it fits (PostgreSQL refuses 8000 bytes and more)
//! and always the row's number. A listener hands on each event once, in each origin's order:
//! it skips numbers it had, reads a gap from the table, and after a lost connection reads
//! what was sent meanwhile. Rows are kept [`OUTBOX_KEEP_MS`]: a listener away longer misses
//! the older ones, as a websocket client that reconnects does (it reads the current state).

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};
use sqlx::postgres::PgListener;
use sqlx::Row;

use crate::{Backend, Store, StoreError};

/// The channel every instance of a production database listens on; a database shared by
/// several schemas (tests) gets one channel per schema, as NOTIFY spans the database.
pub const EVENTS_CHANNEL: &str = "signaldesk_events";
/// The largest notification sent, in bytes (NOTIFY refuses 8000): a larger event travels
/// by its row alone.
pub const NOTIFY_LIMIT: usize = 7900;
/// How long an event's row is kept for listeners catching up.
pub const OUTBOX_KEEP_MS: i64 = 5 * 60_000;

/// One event as a listener receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayedEvent {
    /// The sending process (`LeaseHolder::process`).
    pub origin: String,
    /// Its number among the origin's events, from 1.
    pub seq: i64,
    pub payload: String,
}

/// A notification: the row's number, and the payload when it fits.
#[derive(Serialize, Deserialize)]
struct Notice<'a> {
    o: std::borrow::Cow<'a, str>,
    s: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    p: Option<std::borrow::Cow<'a, str>>,
}

impl Store {
    /// The channel of this database and schema.
    async fn events_channel(&self) -> Result<String, StoreError> {
        if self.backend() != Backend::Postgres {
            return Err(StoreError::InvalidUrl(
                "events between instances need PostgreSQL".into(),
            ));
        }
        let schema: String = sqlx::query("SELECT CAST(current_schema() AS TEXT) AS s")
            .fetch_one(&self.pool)
            .await?
            .try_get("s")?;
        Ok(if schema == "public" {
            EVENTS_CHANNEL.to_string()
        } else {
            format!("{EVENTS_CHANNEL}_{schema}")
        })
    }

    /// A sender of events for process `origin`, numbering them from 1.
    pub async fn event_sender(&self, origin: &str) -> Result<EventSender, StoreError> {
        Ok(EventSender {
            store: self.clone(),
            channel: self.events_channel().await?,
            origin: origin.to_string(),
            seq: 0,
        })
    }

    /// A listener for the events of every process but `own` (PostgreSQL only).
    pub async fn event_listener(&self, own: &str) -> Result<EventListener, StoreError> {
        let channel = self.events_channel().await?;
        let mut listener = EventListener {
            listener: None,
            store: self.clone(),
            channel,
            own: own.to_string(),
            seen: HashMap::new(),
            ready: VecDeque::new(),
            connected_at: 0,
        };
        listener.connect().await?;
        Ok(listener)
    }

    /// Deletes the event rows older than [`OUTBOX_KEEP_MS`].
    pub async fn prune_event_outbox(&self) -> Result<u64, StoreError> {
        let now = self.clock_ms();
        let done = sqlx::query(&format!("DELETE FROM event_outbox WHERE at < {now} - $1"))
            .bind(OUTBOX_KEEP_MS)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}

/// Sends one process's events, in order.
pub struct EventSender {
    store: Store,
    channel: String,
    origin: String,
    seq: i64,
}

impl EventSender {
    /// Writes `payload` as this process's next event and notifies every listener, in one
    /// statement. On an error nothing was sent and the same call may be made again.
    pub async fn send(&mut self, payload: &str) -> Result<(), StoreError> {
        let seq = self.seq + 1;
        let mut notice = serde_json::to_string(&Notice {
            o: self.origin.as_str().into(),
            s: seq,
            p: Some(payload.into()),
        })
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        if notice.len() > NOTIFY_LIMIT {
            notice = serde_json::to_string(&Notice {
                o: self.origin.as_str().into(),
                s: seq,
                p: None,
            })
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        }
        let now = self.store.clock_ms();
        sqlx::query(&format!(
            "WITH row AS (
                 INSERT INTO event_outbox (origin, seq, payload, at) VALUES ($1, $2, $3, {now})
                 RETURNING id)
             SELECT pg_notify($4, $5) FROM row"
        ))
        .bind(&self.origin)
        .bind(seq)
        .bind(payload)
        .bind(&self.channel)
        .bind(&notice)
        .execute(&self.store.pool)
        .await?;
        self.seq = seq;
        Ok(())
    }
}

pub struct EventListener {
    /// `None` after the connection was lost, until it is made again.
    listener: Option<PgListener>,
    store: Store,
    channel: String,
    own: String,
    /// The last number handed on, per origin.
    seen: HashMap<String, i64>,
    /// Events read from the table, to hand on before the next notification.
    ready: VecDeque<RelayedEvent>,
    /// When the current connection began to listen (database clock, ms).
    connected_at: i64,
}

impl EventListener {
    /// The next event another process sent, each once and in its origin's order. A lost
    /// connection is made again, and what was sent while it was down is read from the table;
    /// an error answers only when the database cannot be reached (call again to retry).
    pub async fn recv(&mut self) -> Result<RelayedEvent, StoreError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(event);
            }
            let Some(listener) = self.listener.as_mut() else {
                self.connect().await?;
                continue;
            };
            let notification = match listener.try_recv().await {
                Ok(Some(notification)) => notification,
                Ok(None) | Err(_) => {
                    // Lost: listen again, then read what was sent since the last connection
                    // began (what came before it was heard, or is the state on connect).
                    self.listener = None;
                    self.connect().await?;
                    continue;
                }
            };
            let Ok(notice) = serde_json::from_str::<Notice>(notification.payload()) else {
                tracing::debug!("a notification in an unknown form was skipped");
                continue;
            };
            self.take(&notice.o, notice.s, notice.p.map(|p| p.into_owned()))
                .await?;
        }
    }

    /// The PostgreSQL process serving the listening connection (tests cut it off).
    #[cfg(feature = "test-support")]
    pub async fn backend_pid(&mut self) -> Result<i32, StoreError> {
        let listener = self
            .listener
            .as_mut()
            .ok_or_else(|| StoreError::Corrupt("not connected".into()))?;
        Ok(sqlx::query("SELECT pg_backend_pid() AS pid")
            .fetch_one(listener)
            .await?
            .try_get("pid")?)
    }

    /// Listens on a new connection and reads the events sent since the previous one began.
    async fn connect(&mut self) -> Result<(), StoreError> {
        let mut listener = PgListener::connect(&self.store.url).await?;
        listener.listen(&self.channel).await?;
        let now = self.store.clock_ms();
        let began: i64 = sqlx::query(&format!("SELECT {now} AS now"))
            .fetch_one(&mut listener)
            .await?
            .try_get("now")?;
        if self.connected_at > 0 {
            self.catch_up(self.connected_at).await?;
        }
        self.connected_at = began;
        self.listener = Some(listener);
        Ok(())
    }

    /// Queues the rows written since `since` that were not handed on.
    async fn catch_up(&mut self, since: i64) -> Result<(), StoreError> {
        let rows = sqlx::query(
            "SELECT origin, seq, payload FROM event_outbox
             WHERE at >= $1 AND origin <> $2 AND origin <> '' ORDER BY id",
        )
        .bind(since)
        .bind(&self.own)
        .fetch_all(&self.store.pool)
        .await?;
        for row in rows {
            let event = RelayedEvent {
                origin: row.try_get("origin")?,
                seq: row.try_get("seq")?,
                payload: row.try_get("payload")?,
            };
            if self.is_new(&event.origin, event.seq) {
                self.seen.insert(event.origin.clone(), event.seq);
                self.ready.push_back(event);
            }
        }
        Ok(())
    }

    fn is_new(&self, origin: &str, seq: i64) -> bool {
        self.seen.get(origin).is_none_or(|&last| seq > last)
    }

    /// Hands on event `seq` of `origin` unless it is this process's or was had before,
    /// after any the origin sent between the last one had and this one. Without `payload`
    /// (too large to notify) the event is read from its row.
    async fn take(
        &mut self,
        origin: &str,
        seq: i64,
        payload: Option<String>,
    ) -> Result<(), StoreError> {
        if origin == self.own || !self.is_new(origin, seq) {
            return Ok(());
        }
        let after = match self.seen.get(origin) {
            Some(&last) => last,
            None => seq - 1,
        };
        let upto = if payload.is_some() { seq - 1 } else { seq };
        if upto > after {
            self.read_rows(origin, after, upto).await?;
        }
        if let Some(payload) = payload {
            self.ready.push_back(RelayedEvent {
                origin: origin.to_string(),
                seq,
                payload,
            });
        }
        self.seen.insert(origin.to_string(), seq);
        Ok(())
    }

    /// Queues `origin`'s rows numbered `after + 1 ..= upto` that are still kept.
    async fn read_rows(&mut self, origin: &str, after: i64, upto: i64) -> Result<(), StoreError> {
        let rows = sqlx::query(
            "SELECT seq, payload FROM event_outbox
             WHERE origin = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
        )
        .bind(origin)
        .bind(after)
        .bind(upto)
        .fetch_all(&self.store.pool)
        .await?;
        if i64::try_from(rows.len()).ok() != Some(upto - after) {
            tracing::warn!(
                origin,
                missed = upto - after - i64::try_from(rows.len()).unwrap_or(0),
                "live events from another instance were deleted before they were read"
            );
        }
        for row in rows {
            self.ready.push_back(RelayedEvent {
                origin: origin.to_string(),
                seq: row.try_get("seq")?,
                payload: row.try_get("payload")?,
            });
        }
        Ok(())
    }
}
