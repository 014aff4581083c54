//! Where the paper exchange hands each account's state after every change, so the engine
//! can persist it without this crate knowing the database.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{watch, Notify};

use super::snapshot::{AccountSnapshot, UserId};

/// How long [`PendingSnapshots::persisted`] waits for the writer before saying the account
/// cannot be stored now.
const PERSIST_WAIT: Duration = Duration::from_secs(3);

/// Receives an account's whole state after every change. Called with the exchange's lock
/// held, in order: an implementation must not block (hand the snapshot to a task of its
/// own; [`PendingSnapshots`] does exactly that).
#[async_trait]
pub trait PaperJournal: Send + Sync {
    fn save(&self, user_id: UserId, snapshot: &AccountSnapshot);

    /// Returns once every snapshot saved before the call is durable; an error says why it
    /// is not. A journal that keeps nothing has nothing to wait for.
    async fn persisted(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A journal that keeps nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoJournal;

impl PaperJournal for NoJournal {
    fn save(&self, _user_id: UserId, _snapshot: &AccountSnapshot) {}
}

/// A journal that keeps only the latest snapshot of each user until a writer takes them:
/// trailing stops can change an account on every tick, and only the last state matters.
///
/// A writer task loops on [`changed`](Self::changed) then [`take`](Self::take) and stores
/// what it took, handing a snapshot it failed to store to [`put_back`](Self::put_back) and
/// reporting a batch stored whole with [`written`](Self::written).
///
/// Every save has a sequence number; [`persisted`](PaperJournal::persisted) waits until the
/// writer reports the number it saw, so the trading worker can write an outcome to the store
/// only once the exchange itself can no longer forget it (a SIGKILL in between would
/// otherwise leave the books ahead of the exchange).
#[derive(Debug)]
pub struct PendingSnapshots {
    pending: Mutex<Pending>,
    notify: Notify,
    /// The sequence number of the last save known to be durable.
    durable: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct Pending {
    snapshots: BTreeMap<UserId, AccountSnapshot>,
    /// Sequence number of the latest save.
    saved: u64,
}

/// What [`PendingSnapshots::take`] hands the writer: the snapshots and the sequence number
/// they cover, to pass to [`PendingSnapshots::written`] once all are stored.
#[derive(Debug, PartialEq, Eq)]
pub struct Batch {
    pub snapshots: Vec<(UserId, AccountSnapshot)>,
    pub up_to: u64,
}

impl Default for PendingSnapshots {
    fn default() -> Self {
        PendingSnapshots {
            pending: Mutex::default(),
            notify: Notify::new(),
            durable: watch::channel(0).0,
        }
    }
}

impl PendingSnapshots {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The snapshots saved since the last call, one per user (the latest), by user id.
    pub fn take(&self) -> Batch {
        let mut pending = self.lock();
        Batch {
            snapshots: std::mem::take(&mut pending.snapshots).into_iter().collect(),
            up_to: pending.saved,
        }
    }

    /// The writer stored a whole batch taken with [`take`](Self::take).
    pub fn written(&self, up_to: u64) {
        self.durable.send_if_modified(|durable| {
            let newer = up_to > *durable;
            if newer {
                *durable = up_to;
            }
            newer
        });
    }

    /// Returns a snapshot that could not be stored, unless a newer one of the same user
    /// arrived meanwhile.
    pub fn put_back(&self, user_id: UserId, snapshot: AccountSnapshot) {
        self.lock().snapshots.entry(user_id).or_insert(snapshot);
        self.notify.notify_one();
    }

    /// Drops a user's unwritten snapshot: the account is no longer this process's to write.
    pub fn discard(&self, user_id: UserId) {
        self.lock().snapshots.remove(&user_id);
    }

    /// Whether a snapshot of the user waits to be written.
    pub fn has(&self, user_id: UserId) -> bool {
        self.lock().snapshots.contains_key(&user_id)
    }

    /// Waits until something was saved since the last [`take`](Self::take) (returns at once
    /// if something already was).
    pub async fn changed(&self) {
        if !self.lock().snapshots.is_empty() {
            return;
        }
        self.notify.notified().await;
    }
}

#[async_trait]
impl PaperJournal for PendingSnapshots {
    fn save(&self, user_id: UserId, snapshot: &AccountSnapshot) {
        let mut pending = self.lock();
        pending.saved += 1;
        pending.snapshots.insert(user_id, snapshot.clone());
        drop(pending);
        self.notify.notify_one();
    }

    async fn persisted(&self) -> Result<(), String> {
        let target = self.lock().saved;
        let mut durable = self.durable.subscribe();
        let reached = tokio::time::timeout(PERSIST_WAIT, async {
            durable.wait_for(|d| *d >= target).await.is_ok()
        })
        .await;
        if reached == Ok(true) {
            Ok(())
        } else {
            Err(
                "the paper exchange cannot store its accounts now (the database is unreachable)"
                    .into(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    #[tokio::test]
    async fn keeps_the_latest_snapshot_per_user() {
        let journal = PendingSnapshots::default();
        let at = |balance: i64| AccountSnapshot::new(Decimal::from(balance), 0);
        journal.save(2, &at(1));
        journal.save(1, &at(10));
        journal.save(2, &at(3));
        journal.changed().await;
        assert_eq!(journal.take().snapshots, vec![(1, at(10)), (2, at(3))]);
        assert!(journal.take().snapshots.is_empty());
        let waiter = journal.changed();
        journal.save(5, &at(7));
        waiter.await;
        assert_eq!(journal.take().snapshots, vec![(5, at(7))]);
        // A failed write goes back, but never over a newer snapshot.
        journal.save(5, &at(8));
        journal.put_back(5, at(7));
        journal.put_back(6, at(1));
        assert_eq!(journal.take().snapshots, vec![(5, at(8)), (6, at(1))]);
    }

    #[tokio::test]
    async fn persisted_waits_for_the_writer_to_store_every_earlier_save() {
        let journal = std::sync::Arc::new(PendingSnapshots::default());
        assert_eq!(journal.persisted().await, Ok(()), "nothing saved yet");
        journal.save(1, &AccountSnapshot::new(Decimal::ONE, 0));
        let batch = journal.take();
        journal.save(1, &AccountSnapshot::new(Decimal::TWO, 0));
        let waiting = tokio::spawn({
            let journal = journal.clone();
            async move { journal.persisted().await }
        });
        // The first batch does not cover the second save: still waiting.
        journal.written(batch.up_to);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        journal.written(journal.take().up_to);
        assert_eq!(waiting.await.unwrap(), Ok(()));
    }

    #[tokio::test]
    async fn persisted_fails_when_the_writer_cannot_store() {
        let journal = PendingSnapshots::default();
        journal.save(1, &AccountSnapshot::new(Decimal::ONE, 0));
        assert!(journal.persisted().await.is_err());
    }
}
