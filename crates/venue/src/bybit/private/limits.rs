//! Client-side request budgets per endpoint, so the bot stays under Bybit's per-second
//! limits instead of hitting them: a rolling one-second window per path, tightened by the
//! `X-Bapi-Limit` / `X-Bapi-Limit-Status` / `X-Bapi-Limit-Reset-Timestamp` headers of each
//! answer, and a pause after Bybit said "too many visits".

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::time::Instant;

const WINDOW: Duration = Duration::from_secs(1);
/// The longest a reset timestamp may make us wait (guards against a skewed clock).
const MAX_HEADER_WAIT: Duration = Duration::from_secs(5);

/// Bybit's documented per-second limits (unified account) for the paths the venue uses.
pub fn default_budget(path: &str) -> u32 {
    match path {
        "/v5/order/create" | "/v5/position/set-leverage" | "/v5/position/trading-stop" => 10,
        "/v5/order/realtime"
        | "/v5/order/history"
        | "/v5/position/list"
        | "/v5/position/closed-pnl"
        | "/v5/account/wallet-balance" => 50,
        _ => 10,
    }
}

#[derive(Debug)]
struct Endpoint {
    limit: u32,
    sent: VecDeque<Instant>,
    blocked_until: Option<Instant>,
}

#[derive(Debug, Default)]
pub struct RateLimits {
    endpoints: Mutex<HashMap<String, Endpoint>>,
}

impl RateLimits {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Endpoint>> {
        self.endpoints.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn with<R>(&self, path: &str, f: impl FnOnce(&mut Endpoint) -> R) -> R {
        let mut endpoints = self.lock();
        let endpoint = endpoints
            .entry(path.to_string())
            .or_insert_with(|| Endpoint {
                limit: default_budget(path),
                sent: VecDeque::new(),
                blocked_until: None,
            });
        f(endpoint)
    }

    /// Waits until `path` has budget left, then counts one request.
    pub async fn acquire(&self, path: &str) {
        loop {
            let wait = self.with(path, |e| {
                let now = Instant::now();
                while e
                    .sent
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= WINDOW)
                {
                    e.sent.pop_front();
                }
                if let Some(until) = e.blocked_until.filter(|u| *u > now) {
                    return until - now;
                }
                e.blocked_until = None;
                if e.sent.len() < e.limit.max(1) as usize {
                    e.sent.push_back(now);
                    return Duration::ZERO;
                }
                e.sent.front().map_or(Duration::ZERO, |t| {
                    WINDOW.saturating_sub(now.duration_since(*t))
                })
            });
            if wait.is_zero() {
                return;
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// Reads the limit headers of an answer on `path`; `server_now_ms` is Bybit's clock.
    pub fn observe(&self, path: &str, headers: &HeaderMap, server_now_ms: i64) {
        let number =
            |name: &str| -> Option<i64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
        let limit = number("X-Bapi-Limit");
        let remaining = number("X-Bapi-Limit-Status");
        let reset = number("X-Bapi-Limit-Reset-Timestamp");
        self.with(path, |e| {
            if let Some(l) = limit.and_then(|l| u32::try_from(l).ok()).filter(|l| *l > 0) {
                e.limit = l;
            }
            if remaining == Some(0) {
                let wait_ms = reset.map_or(1000, |r| r - server_now_ms).max(0);
                let wait = Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0));
                e.blocked_until = Some(Instant::now() + wait.min(MAX_HEADER_WAIT));
            }
        });
    }

    /// Holds every request on `path` back for `wait` (after a "too many visits").
    pub fn pause(&self, path: &str, wait: Duration) {
        self.with(path, |e| {
            let until = Instant::now() + wait;
            e.blocked_until = Some(e.blocked_until.map_or(until, |u| u.max(until)));
        });
    }

    /// The budget currently assumed for `path`.
    pub fn limit(&self, path: &str) -> u32 {
        self.with(path, |e| e.limit)
    }
}
