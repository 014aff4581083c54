//! The event bus: every change a user should see live (signals, log lines, bot status,
//! balance, positions, statistics, alerts) is published here once and fanned out to that user's
//! subscribers, the websocket clients.
//!
//! Publishing never waits: each subscriber has a bounded queue, and one whose queue is full
//! is dropped on the spot (its receiver then ends), so a client that stops reading can slow
//! neither the bot nor anyone else.
//!
//! With several instances, a [`Tap`] sees every event published here (the server relays them
//! to the other instances), and events relayed from elsewhere arrive already written for the
//! wire ([`UserEvent::Relayed`]) through [`EventBus::publish_relayed`], which the tap does
//! not see.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use signaldesk_core::stats::LiveStatistics;
use signaldesk_store::{AlertRecord, LogEntry, StoredSignal};
use signaldesk_venue::{Position, Wallet};
use tokio::sync::mpsc;

use crate::status::BotStatus;

/// Messages one subscriber may have waiting before it counts as too slow.
pub const SUBSCRIBER_QUEUE: usize = 256;

/// What a user's live view hears about.
#[derive(Debug, Clone, PartialEq)]
pub enum UserEvent {
    /// Every symbol's latest signal, in display order.
    SignalsUpdate(Vec<StoredSignal>),
    /// One symbol's new signal: a changed rating, or a webhook alert.
    Signal(StoredSignal),
    Balance(Wallet),
    /// The open positions.
    Orders(Vec<Position>),
    BotStatus(BotStatus),
    NewLog(LogEntry),
    Statistics(LiveStatistics),
    /// An alert raised, or cleared (`cleared_at` set).
    Alert(AlertRecord),
    /// An event of another instance, as that instance wrote it for the websocket.
    Relayed(Arc<str>),
}

/// Sees every event published on this instance (never a relayed one); must not block.
pub type Tap = Box<dyn Fn(i64, &UserEvent) + Send + Sync>;

struct Subscriber {
    id: u64,
    tx: mpsc::Sender<Arc<UserEvent>>,
}

#[derive(Default)]
pub struct EventBus {
    subscribers: Mutex<HashMap<i64, Vec<Subscriber>>>,
    next_id: AtomicU64,
    dropped_slow: AtomicU64,
    tap: OnceLock<Tap>,
}

/// One subscriber's end. `recv` answers `None` once the bus has dropped it for being slow;
/// dropping the subscription unsubscribes.
pub struct Subscription {
    rx: mpsc::Receiver<Arc<UserEvent>>,
    bus: Arc<EventBus>,
    user_id: i64,
    id: u64,
}

impl Subscription {
    pub async fn recv(&mut self) -> Option<Arc<UserEvent>> {
        self.rx.recv().await
    }

    /// An event already waiting, without waiting for one.
    pub fn try_recv(&mut self) -> Option<Arc<UserEvent>> {
        self.rx.try_recv().ok()
    }

    pub fn user_id(&self) -> i64 {
        self.user_id
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.bus.remove(self.user_id, self.id);
    }
}

impl EventBus {
    pub fn new() -> Arc<EventBus> {
        Arc::new(EventBus::default())
    }

    pub fn subscribe(self: &Arc<Self>, user_id: i64) -> Subscription {
        let (tx, rx) = mpsc::channel(SUBSCRIBER_QUEUE);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.lock()
            .entry(user_id)
            .or_default()
            .push(Subscriber { id, tx });
        Subscription {
            rx,
            bus: self.clone(),
            user_id,
            id,
        }
    }

    /// Sets the tap (once; a second is refused and handed back).
    pub fn set_tap(&self, tap: Tap) -> Result<(), Tap> {
        self.tap.set(tap)
    }

    /// Delivers `event` to each of the user's subscribers that has room for it and drops the
    /// ones that have none; the tap sees it too.
    pub fn publish(&self, user_id: i64, event: UserEvent) {
        if let Some(tap) = self.tap.get() {
            tap(user_id, &event);
        }
        self.deliver(user_id, event);
    }

    /// Delivers an event another instance published, written for the wire.
    pub fn publish_relayed(&self, user_id: i64, frame: Arc<str>) {
        self.deliver(user_id, UserEvent::Relayed(frame));
    }

    fn deliver(&self, user_id: i64, event: UserEvent) {
        let mut map = self.lock();
        let Some(list) = map.get_mut(&user_id) else {
            return;
        };
        let event = Arc::new(event);
        list.retain(|s| match s.tx.try_send(event.clone()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.dropped_slow.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(user_id, "a live client fell behind and was disconnected");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        });
        if list.is_empty() {
            map.remove(&user_id);
        }
    }

    /// Whether anyone may listen to the user (lets publishers skip building an event): a
    /// subscriber here, or, with a tap, perhaps one on another instance.
    pub fn is_watched(&self, user_id: i64) -> bool {
        self.tap.get().is_some() || self.lock().contains_key(&user_id)
    }

    /// Subscribers across all users.
    pub fn subscriber_count(&self) -> usize {
        self.lock().values().map(Vec::len).sum()
    }

    /// Subscribers dropped for being too slow since start.
    pub fn dropped_slow(&self) -> u64 {
        self.dropped_slow.load(Ordering::Relaxed)
    }

    fn remove(&self, user_id: i64, id: u64) {
        let mut map = self.lock();
        if let Some(list) = map.get_mut(&user_id) {
            list.retain(|s| s.id != id);
            if list.is_empty() {
                map.remove(&user_id);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Vec<Subscriber>>> {
        self.subscribers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(id: i64) -> UserEvent {
        UserEvent::NewLog(LogEntry {
            id,
            user_id: 1,
            ts: 0,
            level: signaldesk_store::LogLevel::Info,
            message: format!("line {id}"),
        })
    }

    #[tokio::test]
    async fn each_user_hears_only_their_own_events() {
        let bus = EventBus::new();
        let mut a = bus.subscribe(1);
        let mut b = bus.subscribe(2);
        bus.publish(1, log(1));
        bus.publish(2, log(2));
        assert_eq!(*a.recv().await.unwrap(), log(1));
        assert_eq!(*b.recv().await.unwrap(), log(2));
        assert!(a.try_recv().is_none());
    }

    #[tokio::test]
    async fn a_full_queue_drops_only_that_subscriber() {
        let bus = EventBus::new();
        let mut slow = bus.subscribe(1);
        let mut fast = bus.subscribe(1);
        for i in 0..=SUBSCRIBER_QUEUE as i64 {
            bus.publish(1, log(i));
            assert_eq!(*fast.recv().await.unwrap(), log(i));
        }
        assert_eq!(bus.dropped_slow(), 1);
        assert_eq!(bus.subscriber_count(), 1);
        // The slow one still gets what was queued, then the end.
        let mut received = 0;
        while slow.recv().await.is_some() {
            received += 1;
        }
        assert_eq!(received, SUBSCRIBER_QUEUE);
        bus.publish(1, log(999));
        assert_eq!(*fast.recv().await.unwrap(), log(999));
    }

    #[tokio::test]
    async fn the_tap_sees_published_events_but_not_relayed_ones() {
        let bus = EventBus::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let tapped = seen.clone();
        assert!(bus
            .set_tap(Box::new(move |user, event| {
                tapped.lock().unwrap().push((user, event.clone()))
            }))
            .is_ok());
        // Nobody listens here, yet another instance may: publishers must build their events.
        assert!(bus.is_watched(3));
        bus.publish(3, log(1));
        let mut sub = bus.subscribe(3);
        bus.publish_relayed(3, Arc::from("{\"type\":\"pong\"}"));
        assert_eq!(
            *sub.recv().await.unwrap(),
            UserEvent::Relayed(Arc::from("{\"type\":\"pong\"}"))
        );
        assert_eq!(*seen.lock().unwrap(), vec![(3, log(1))]);
    }

    #[tokio::test]
    async fn dropping_a_subscription_unsubscribes() {
        let bus = EventBus::new();
        let sub = bus.subscribe(7);
        assert!(bus.is_watched(7));
        drop(sub);
        assert!(!bus.is_watched(7));
        assert_eq!(bus.subscriber_count(), 0);
    }
}
