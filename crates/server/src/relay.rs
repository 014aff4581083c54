//! Live events across instances on one PostgreSQL: every event published on this instance is
//! written for the websocket once and sent, in order, by one sender (`EventSender`: a row of
//! `event_outbox` and a NOTIFY); each instance's listener hands the other instances' events
//! to its own websocket clients, each once, also across a lost connection (`EventListener`).
//! An event the database cannot take is sent again until it can. On SQLite, one instance,
//! the in-process bus is all there is.

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
/// The wait before a lost listener connects again, and the first wait before an event the
/// database refused is sent again (doubling up to [`RETRY_AT_MOST`]).
const RECONNECT_AFTER: Duration = Duration::from_secs(1);
const RETRY_AT_MOST: Duration = Duration::from_secs(10);
/// How often the sender deletes the event rows no listener needs any more.
const PRUNE_EVERY: Duration = Duration::from_secs(30);

/// What travels between instances: for which user, and the websocket frame.
#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
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
    let mut sender = loop {
        match store.event_sender(&process).await {
            Ok(sender) => break sender,
            Err(e) => {
                tracing::warn!(error = %e, "cannot send live events to other instances yet");
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
        }
    };
    let mut pruned = tokio::time::Instant::now();
    while let Some((user_id, frame)) = rx.recv().await {
        let envelope = Envelope {
            user: user_id,
            frame: Cow::Owned(frame),
        };
        let Ok(payload) = serde_json::to_string(&envelope) else {
            continue;
        };
        let mut wait = RECONNECT_AFTER;
        while let Err(e) = sender.send(&payload).await {
            tracing::warn!(user_id, error = %e, retry_in_ms = wait.as_millis() as u64, "a live event was not relayed yet");
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(RETRY_AT_MOST);
        }
        metrics.event_relayed(RelayDirection::Sent);
        if pruned.elapsed() >= PRUNE_EVERY {
            pruned = tokio::time::Instant::now();
            if let Err(e) = store.prune_event_outbox().await {
                tracing::debug!(error = %e, "old live events not deleted yet");
            }
        }
    }
}

async fn listen(store: Store, bus: Arc<EventBus>, process: Arc<str>, metrics: Metrics) {
    let mut listener = loop {
        match store.event_listener(&process).await {
            Ok(listener) => break listener,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for other instances' events");
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
        }
    };
    loop {
        let event = match listener.recv().await {
            Ok(event) => event,
            Err(e) => {
                tracing::warn!(error = %e, "the listener for other instances' events failed");
                tokio::time::sleep(RECONNECT_AFTER).await;
                continue;
            }
        };
        let Ok(envelope) = serde_json::from_str::<Envelope>(&event.payload) else {
            tracing::warn!("an unreadable event from another instance was skipped");
            continue;
        };
        bus.publish_relayed(envelope.user, Arc::from(envelope.frame.as_ref()));
        metrics.event_relayed(RelayDirection::Received);
    }
}
