//! Where the paper exchange hands each account's state after every change, so the engine
//! can persist it without this crate knowing the database.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::snapshot::{AccountSnapshot, UserId};

/// Receives an account's whole state after every change. Called with the exchange's lock
/// held, in order: an implementation must not block (hand the snapshot to a task of its
/// own; [`PendingSnapshots`] does exactly that).
pub trait PaperJournal: Send + Sync {
    fn save(&self, user_id: UserId, snapshot: &AccountSnapshot);
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
/// what it took, handing a snapshot it failed to store to [`put_back`](Self::put_back).
#[derive(Debug, Default)]
pub struct PendingSnapshots {
    pending: Mutex<BTreeMap<UserId, AccountSnapshot>>,
    notify: Notify,
}

impl PendingSnapshots {
    /// The snapshots saved since the last call, one per user (the latest), by user id.
    pub fn take(&self) -> Vec<(UserId, AccountSnapshot)> {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()))
            .into_iter()
            .collect()
    }

    /// Returns a snapshot that could not be stored, unless a newer one of the same user
    /// arrived meanwhile.
    pub fn put_back(&self, user_id: UserId, snapshot: AccountSnapshot) {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(user_id)
            .or_insert(snapshot);
        self.notify.notify_one();
    }

    /// Waits until something was saved since the last [`take`](Self::take) (returns at once
    /// if something already was).
    pub async fn changed(&self) {
        if !self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
        {
            return;
        }
        self.notify.notified().await;
    }
}

impl PaperJournal for PendingSnapshots {
    fn save(&self, user_id: UserId, snapshot: &AccountSnapshot) {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(user_id, snapshot.clone());
        self.notify.notify_one();
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
        assert_eq!(journal.take(), vec![(1, at(10)), (2, at(3))]);
        assert!(journal.take().is_empty());
        let waiter = journal.changed();
        journal.save(5, &at(7));
        waiter.await;
        assert_eq!(journal.take(), vec![(5, at(7))]);
        // A failed write goes back, but never over a newer snapshot.
        journal.save(5, &at(8));
        journal.put_back(5, at(7));
        journal.put_back(6, at(1));
        assert_eq!(journal.take(), vec![(5, at(8)), (6, at(1))]);
    }
}
