//! Per-key, per-endpoint request budgets over a rolling second, as Bybit counts them, with
//! the `X-Bapi-Limit*` headers every private answer carries.

use std::collections::{HashMap, VecDeque};

const WINDOW_MS: i64 = 1000;

/// The limit state one answer reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitStatus {
    pub limit: u32,
    pub remaining: u32,
    pub reset_ms: i64,
    pub allowed: bool,
}

#[derive(Default)]
pub struct Limiter {
    pub default_limit: u32,
    pub overrides: HashMap<String, u32>,
    hits: HashMap<(String, String), VecDeque<i64>>,
}

impl Limiter {
    pub fn new(default_limit: u32) -> Self {
        Self {
            default_limit,
            ..Self::default()
        }
    }

    /// Counts one request of `key` on `path` at `now_ms`, unless the budget is spent.
    pub fn hit(&mut self, key: &str, path: &str, now_ms: i64) -> LimitStatus {
        let limit = self
            .overrides
            .get(path)
            .copied()
            .unwrap_or(self.default_limit);
        let hits = self
            .hits
            .entry((key.to_string(), path.to_string()))
            .or_default();
        while hits.front().is_some_and(|t| *t <= now_ms - WINDOW_MS) {
            hits.pop_front();
        }
        let allowed = (hits.len() as u64) < u64::from(limit);
        if allowed {
            hits.push_back(now_ms);
        }
        let used = u32::try_from(hits.len()).unwrap_or(u32::MAX);
        LimitStatus {
            limit,
            remaining: limit.saturating_sub(used),
            reset_ms: hits.front().map_or(now_ms, |t| t + WINDOW_MS),
            allowed,
        }
    }
}
