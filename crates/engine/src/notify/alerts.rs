//! The [`Alerts`] handle: raise and clear, once each, without ever waiting.
//!
//! [`Alerts::raise`] and [`Alerts::clear`] look at what this process last asked for the
//! (user, kind) pair and return at once when nothing changes, so a caller may call them on
//! every tick. A change goes, in order, to one task that writes the store (one open alert per
//! user and kind: a raise another instance made already is not sent again), publishes the
//! `alert` event to the user's live clients and the notice to their channels. When the
//! database cannot be written (the database alert itself), the alert is still sent, kept in
//! memory, and its clearing is sent the same way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use signaldesk_store::{AlertRecord, Store};
use tokio::sync::mpsc;

use super::{Notice, Notifications};
use crate::events::{EventBus, UserEvent};

/// Changes waiting for the alert task.
const QUEUE: usize = 1024;
/// Longest wait for the store before an alert goes out unsaved.
const STORE_TIMEOUT: Duration = Duration::from_secs(3);

/// Every alert the bot raises (docs/alerts.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlertKind {
    /// No price for a traded symbol for two signal intervals.
    MarketFeedStale,
    /// The venue unreachable or refusing the key for 60 s.
    VenueUnreachable,
    /// The database unreachable.
    DatabaseUnreachable,
    /// A worker stopped by an error.
    WorkerStopped,
    /// The bot's lease lost to another instance.
    LeaseLost,
    /// An open position found without its stop on the venue.
    Unprotected,
    /// A circuit breaker tripped.
    CircuitBreaker,
}

impl AlertKind {
    pub const ALL: [AlertKind; 7] = [
        AlertKind::MarketFeedStale,
        AlertKind::VenueUnreachable,
        AlertKind::DatabaseUnreachable,
        AlertKind::WorkerStopped,
        AlertKind::LeaseLost,
        AlertKind::Unprotected,
        AlertKind::CircuitBreaker,
    ];

    /// As stored and sent (`kind` of the `alert` message).
    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::MarketFeedStale => "market_feed_stale",
            AlertKind::VenueUnreachable => "venue_unreachable",
            AlertKind::DatabaseUnreachable => "database_unreachable",
            AlertKind::WorkerStopped => "worker_stopped",
            AlertKind::LeaseLost => "lease_lost",
            AlertKind::Unprotected => "unprotected",
            AlertKind::CircuitBreaker => "circuit_breaker",
        }
    }

    pub fn parse(s: &str) -> Option<AlertKind> {
        AlertKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// What happened, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            AlertKind::MarketFeedStale => "Market feed stale",
            AlertKind::VenueUnreachable => "Exchange unreachable",
            AlertKind::DatabaseUnreachable => "Database unreachable",
            AlertKind::WorkerStopped => "Bot stopped by an error",
            AlertKind::LeaseLost => "Bot taken over by another instance",
            AlertKind::Unprotected => "Position without protection",
            AlertKind::CircuitBreaker => "Circuit breaker tripped",
        }
    }

    /// What the bot does about it.
    pub fn action(self) -> &'static str {
        match self {
            AlertKind::MarketFeedStale => {
                "No entry is made without a fresh price; open positions keep their stops on the exchange, which still runs them. It waits for prices to come back."
            }
            AlertKind::VenueUnreachable => {
                "It keeps retrying. Stops already on the exchange stay in force; entries and adjustments fail until the exchange answers."
            }
            AlertKind::DatabaseUnreachable => {
                "It keeps managing open positions and opens nothing new that it could not book; log lines wait in memory and are written when the database is back."
            }
            AlertKind::WorkerStopped => {
                "Nothing is traded until the bot is started again; positions on the exchange keep their stops."
            }
            AlertKind::LeaseLost => {
                "This instance stopped the bot's workers; the instance holding the lease runs the bot now."
            }
            AlertKind::Unprotected => {
                "It puts the stop back; if that fails it acts as the unprotected_action setting says."
            }
            AlertKind::CircuitBreaker => {
                "No new entries until the breaker resets; open positions keep their stops."
            }
        }
    }
}

enum Change {
    Raise(i64, AlertKind, String),
    Clear(i64, AlertKind),
}

/// Raises and clears alerts. Cheap to clone; [`disabled`](Alerts::disabled) does nothing.
#[derive(Clone)]
pub struct Alerts {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    /// What was last asked per (user, kind): true raised, false cleared; absent unknown.
    wanted: Mutex<HashMap<(i64, AlertKind), bool>>,
    tx: mpsc::Sender<Change>,
}

impl Alerts {
    /// Starts the alert task.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub fn start(store: Store, bus: Arc<EventBus>, notices: Notifications) -> Alerts {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(apply(store, bus, notices, rx));
        Alerts {
            inner: Some(Arc::new(Inner {
                wanted: Mutex::new(HashMap::new()),
                tx,
            })),
        }
    }

    pub fn disabled() -> Alerts {
        Alerts { inner: None }
    }

    /// Raises the user's alert of `kind` unless it is raised; `detail` says what happened.
    pub fn raise(&self, user_id: i64, kind: AlertKind, detail: impl Into<String>) {
        self.change(user_id, kind, true, || {
            Change::Raise(user_id, kind, detail.into())
        });
    }

    /// Clears the user's alert of `kind` if it is raised.
    pub fn clear(&self, user_id: i64, kind: AlertKind) {
        self.change(user_id, kind, false, || Change::Clear(user_id, kind));
    }

    fn change(&self, user_id: i64, kind: AlertKind, raised: bool, make: impl FnOnce() -> Change) {
        let Some(inner) = &self.inner else { return };
        let mut wanted = inner.wanted.lock().unwrap_or_else(|e| e.into_inner());
        if wanted.get(&(user_id, kind)) == Some(&raised) {
            return;
        }
        if inner.tx.try_send(make()).is_ok() {
            wanted.insert((user_id, kind), raised);
        } else {
            // Asked again on the next call.
            wanted.remove(&(user_id, kind));
            tracing::warn!(user_id, kind = kind.as_str(), "the alert queue is full");
        }
    }
}

async fn apply(
    store: Store,
    bus: Arc<EventBus>,
    notices: Notifications,
    mut rx: mpsc::Receiver<Change>,
) {
    // Alerts sent without being stored (the database was out of reach).
    let mut unsaved: HashMap<(i64, AlertKind), AlertRecord> = HashMap::new();
    while let Some(change) = rx.recv().await {
        let now = chrono::Utc::now().timestamp_millis();
        match change {
            Change::Raise(user_id, kind, detail) => {
                if unsaved.contains_key(&(user_id, kind)) {
                    continue;
                }
                let written = tokio::time::timeout(
                    STORE_TIMEOUT,
                    store.raise_alert(user_id, kind.as_str(), &detail, kind.action(), now),
                )
                .await;
                let record = match written {
                    Ok(Ok(Some(record))) => record,
                    // Raised already (another instance, or before a restart): not again.
                    Ok(Ok(None)) => continue,
                    Ok(Err(_)) | Err(_) => {
                        let record = AlertRecord {
                            id: 0,
                            user_id,
                            kind: kind.as_str().to_string(),
                            detail,
                            action: kind.action().to_string(),
                            raised_at: now,
                            cleared_at: None,
                        };
                        unsaved.insert((user_id, kind), record.clone());
                        record
                    }
                };
                tracing::warn!(
                    user_id,
                    kind = kind.as_str(),
                    detail = %record.detail,
                    "alert raised"
                );
                bus.publish(user_id, UserEvent::Alert(record.clone()));
                notices.publish(user_id, Notice::AlertRaised(record));
            }
            Change::Clear(user_id, kind) => {
                let record = if let Some(mut record) = unsaved.remove(&(user_id, kind)) {
                    record.cleared_at = Some(now);
                    Some(record)
                } else {
                    match tokio::time::timeout(
                        STORE_TIMEOUT,
                        store.clear_alert(user_id, kind.as_str(), now),
                    )
                    .await
                    {
                        Ok(Ok(record)) => record,
                        Ok(Err(e)) => {
                            tracing::warn!(user_id, kind = kind.as_str(), error = %e, "could not clear an alert");
                            None
                        }
                        Err(_) => None,
                    }
                };
                let Some(record) = record else { continue };
                tracing::info!(user_id, kind = kind.as_str(), "alert cleared");
                bus.publish(user_id, UserEvent::Alert(record.clone()));
                notices.publish(user_id, Notice::AlertCleared(record));
            }
        }
    }
}
