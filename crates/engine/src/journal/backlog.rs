//! Bot log lines waiting for the database: a bounded first-in first-out queue (the oldest
//! line goes when it is full, and is counted) that also knows whether a flusher is draining it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use signaldesk_store::LogLevel;

/// One bot log line as it was made, timestamp included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PendingLine {
    pub user_id: i64,
    pub level: LogLevel,
    pub message: String,
    /// Unix ms when the line was made, kept when it is written later.
    pub ts: i64,
}

pub(super) struct Backlog {
    capacity: usize,
    state: Mutex<State>,
    dropped: AtomicU64,
}

#[derive(Default)]
struct State {
    /// Each line with its sequence number, oldest first.
    lines: VecDeque<(u64, PendingLine)>,
    next_seq: u64,
    /// A flusher task is draining the queue.
    flushing: bool,
}

impl Backlog {
    pub fn new(capacity: usize) -> Backlog {
        Backlog {
            capacity: capacity.max(1),
            state: Mutex::default(),
            dropped: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn len(&self) -> usize {
        self.lock().lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().lines.is_empty()
    }

    /// Lines lost because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Queues `line` behind the others, dropping the oldest when full. True when no flusher
    /// is running: the caller must start one (and only that caller is told so).
    pub fn push(&self, line: PendingLine) -> bool {
        let mut state = self.lock();
        if state.lines.len() >= self.capacity {
            state.lines.pop_front();
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(
                dropped,
                capacity = self.capacity,
                "bot log line lost: too many lines are waiting for the database"
            );
        }
        let seq = state.next_seq;
        state.next_seq += 1;
        state.lines.push_back((seq, line));
        !std::mem::replace(&mut state.flushing, true)
    }

    /// The oldest line and its sequence number, or `None` when the queue is empty, in which
    /// case the flusher must stop: the next `push` starts a new one.
    pub fn next(&self) -> Option<(u64, PendingLine)> {
        let mut state = self.lock();
        let front = state.lines.front().cloned();
        if front.is_none() {
            state.flushing = false;
        }
        front
    }

    /// Removes line `seq` once written, unless it was dropped meanwhile.
    pub fn written(&self, seq: u64) {
        let mut state = self.lock();
        if state.lines.front().is_some_and(|(front, _)| *front == seq) {
            state.lines.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: i64) -> PendingLine {
        PendingLine {
            user_id: 1,
            level: LogLevel::Info,
            message: format!("line {n}"),
            ts: n,
        }
    }

    #[test]
    fn only_the_first_push_starts_a_flusher_until_it_stops() {
        let backlog = Backlog::new(10);
        assert!(backlog.push(line(1)));
        assert!(!backlog.push(line(2)));
        let (seq, first) = backlog.next().unwrap();
        assert_eq!(first, line(1));
        backlog.written(seq);
        let (seq, second) = backlog.next().unwrap();
        assert_eq!(second, line(2));
        backlog.written(seq);
        assert!(backlog.next().is_none());
        assert!(backlog.push(line(3)), "a stopped flusher is started again");
    }

    #[test]
    fn a_full_queue_drops_the_oldest_and_counts_it() {
        let backlog = Backlog::new(2);
        backlog.push(line(1));
        let (in_flight, _) = backlog.next().unwrap();
        backlog.push(line(2));
        backlog.push(line(3));
        assert_eq!(backlog.dropped(), 1);
        assert_eq!(backlog.len(), 2);
        // The line being written was dropped meanwhile: its write removes nothing else.
        backlog.written(in_flight);
        assert_eq!(backlog.next().unwrap().1, line(2));
    }
}
