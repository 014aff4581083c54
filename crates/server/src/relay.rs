//! Live events across instances on one PostgreSQL: every event published on this instance is
//! written for the websocket once and sent with NOTIFY (`Store::notify_event`); each
//! instance's listener hands the other instances' events to its own websocket clients. On
//! SQLite, one instance, the in-process bus is all there is.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use signaldesk_engine::metrics::{Metrics, RelayDirection};
use signaldesk_engine::EventBus;
use signaldesk_store::Store;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::ws::protocol::event_frame;

/// Events waiting to be sent; past this the newest are dropped (and logged) rather than slow
/// the bot that publishes them.
const RELAY_QUEUE: usize = 4096;
/// The wait before a lost listener connects again.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// What travels between instances: who sent it, for which user, and the websocket frame.
#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
    from: Cow<'a, str>,
    user: i64,
    frame: Cow<'a, str>,
}

/// The two relay tasks; stopped when dropped.
pub struct Relay {
    sender: JoinHandle<()>,
    listener: JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.sender.abort();
        self.listener.abort();
    }
}

/// Taps `bus` and starts relaying; `process` tells this instance's events from the others'.
pub fn start(store: Store, bus: Arc<EventBus>, process: String, metrics: Metrics) -> Relay {
    let (tx, rx) = mpsc::channel::<(i64, String)>(RELAY_QUEUE);
    let tapped = bus.set_tap(Box::new(move |user_id, event| {
        if tx.try_send((user_id, event_frame(event))).is_err() {
            tracing::warn!(
                user_id,
                "a live event was not relayed: the relay queue is full"
            );
        }
    }));
    if tapped.is_err() {
        tracing::error!("the event bus was tapped twice: events are relayed once");
    }
    let process: Arc<str> = Arc::from(process);
    Relay {
        sender: tokio::spawn(send(store.clone(), rx, process.clone(), metrics.clone())),
        listener: tokio::spawn(listen(store, bus, process, metrics)),
    }
}

async fn send(
    store: Store,
    mut rx: mpsc::Receiver<(i64, String)>,
    process: Arc<str>,
    metrics: Metrics,
) {
    while let Some((user_id, frame)) = rx.recv().await {
        let envelope = Envelope {
            from: Cow::Borrowed(&process),
            user: user_id,
            frame: Cow::Owned(frame),
        };
        let Ok(payload) = serde_json::to_string(&envelope) else {
            continue;
        };
        match store.notify_event(&payload).await {
            Ok(()) => metrics.event_relayed(RelayDirection::Sent),
            Err(e) => tracing::warn!(user_id, error = %e, "a live event was not relayed"),
        }
    }
}

async fn listen(store: Store, bus: Arc<EventBus>, process: Arc<str>, metrics: Metrics) {
    loop {
        let mut listener = match store.event_listener().await {
            Ok(listener) => listener,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for other instances' events");
                tokio::time::sleep(RECONNECT_AFTER).await;
                continue;
            }
        };
        loop {
            let payload = match listener.recv().await {
                Ok(payload) => payload,
                Err(e) => {
                    tracing::warn!(error = %e, "the listener for other instances' events failed");
                    break;
                }
            };
            let Ok(envelope) = serde_json::from_str::<Envelope>(&payload) else {
                tracing::warn!("an unreadable event from another instance was skipped");
                continue;
            };
            if *envelope.from != *process {
                bus.publish_relayed(envelope.user, Arc::from(envelope.frame.as_ref()));
                metrics.event_relayed(RelayDirection::Received);
            }
        }
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}
