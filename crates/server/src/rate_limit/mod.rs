//! Rate limits, and the client address they are keyed by. Handlers see one [`RateLimits`]
//! whichever keeps the counts:
//!
//! - on PostgreSQL, [`SharedLimits`] (`shared.rs`): rows of the `rate_limits` table, each
//!   updated in one statement, so every server instance on the database counts the same events
//!   and holds the same lockouts (docs/security.md, "Several instances");
//! - on SQLite (one instance by design), [`MemoryLimits`]: `governor`'s keyed GCRA limiters
//!   (one state per key, kept in a `DashMap`).
//!
//! Both count the same things the same way:
//!
//! - Login failures per (username, client address) and per client address, with growing
//!   delays: [`LoginLimits`] (`failures.rs`).
//! - Webhook alerts per user with a valid secret, and posts to unknown webhook URLs per client
//!   address: two separate limits, so nothing a stranger sends can use up a valid secret's
//!   quota.
//! - The client address: [`client_ip`], read from `X-Forwarded-For` only when the peer is a
//!   configured trusted proxy.
//!
//! Memory: governor keeps one state for every key it has seen, and keys come from strangers
//! (addresses, usernames). [`spawn_housekeeping`] calls [`RateLimits::housekeeping`] every
//! [`HOUSEKEEPING_EVERY`]: in memory it drops every key whose state is indistinguishable from a
//! fresh one (its quota refilled, at most a minute after its last event) and strikes older
//! than `STRIKES_KEPT_FOR`, so memory follows the keys of the last few minutes, not every key
//! ever seen; on PostgreSQL it deletes the same rows.

mod failures;
mod shared;

pub use failures::{
    Backoff, FailureLimit, LoginLimits, ADDRESS_LOGIN_FACTOR, LOGIN_BACKOFF, STRIKES_KEPT_FOR,
};
pub use shared::SharedLimits;

use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::http::HeaderMap;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter};
use tokio::task::JoinHandle;

use signaldesk_store::{Backend, Store};

use crate::config::Config;
use crate::error::{ApiError, ApiResult};

/// How often [`spawn_housekeeping`] drops the keys that no longer matter.
pub const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(60);

/// The client's address: the peer's, or, when the peer is a trusted proxy, the rightmost
/// `X-Forwarded-For` address that is not itself a trusted proxy (the ones left of it are
/// whatever the client claimed). A malformed header falls back to the peer.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for hop in forwarded.iter().rev() {
        match hop.parse::<IpAddr>() {
            Ok(ip) => {
                client = ip;
                if !trusted.contains(&ip) {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    client
}

/// A refusal: the key may try again after `wait`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Limited {
    pub wait: Duration,
}

impl Limited {
    /// `wait` in whole seconds for `Retry-After`, rounded up and never 0.
    pub fn retry_after_secs(&self) -> u64 {
        let secs = self.wait.as_secs() + u64::from(self.wait.subsec_nanos() > 0);
        secs.max(1)
    }
}

impl From<Limited> for ApiError {
    fn from(limited: Limited) -> ApiError {
        ApiError::too_many_requests(limited.retry_after_secs())
    }
}

/// At most `per_minute` events per key: all of them may come at once, then one more every
/// `60 / per_minute` seconds (governor's GCRA, the burst being the whole minute's worth).
pub struct KeyedLimit<K: Hash + Eq + Clone, C: Clock = DefaultClock> {
    limiter: RateLimiter<K, DashMapStateStore<K>, C, StateInformationMiddleware>,
}

impl<K: Hash + Eq + Clone, C: Clock> KeyedLimit<K, C> {
    pub fn per_minute(per_minute: u32, clock: C) -> KeyedLimit<K, C> {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN));
        KeyedLimit {
            limiter: RateLimiter::dashmap_with_clock(quota, clock).with_middleware(),
        }
    }

    /// Counts one event for `key`: `Ok(n)` when allowed, `n` more being allowed right away;
    /// `Err` (nothing counted) when the key has used up its quota.
    pub fn check(&self, key: &K) -> Result<u32, Limited> {
        match self.limiter.check_key(key) {
            Ok(state) => Ok(state.remaining_burst_capacity()),
            Err(not_until) => Err(Limited {
                wait: not_until.wait_time_from(self.now()),
            }),
        }
    }

    /// The limiter's clock now (a fake one in unit tests).
    pub fn now(&self) -> C::Instant {
        self.limiter.clock().now()
    }

    /// Drops the keys whose quota is full again (see the module docs).
    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }

    /// How many keys are held.
    pub fn keys(&self) -> usize {
        self.limiter.len()
    }
}

/// Every rate limit of the server, as handlers use them: whether the counts are in this
/// process ([`MemoryLimits`]) or shared through the database ([`SharedLimits`]) is not
/// theirs to know. A refusal is a 429 with `Retry-After`; a database failure is the store's
/// error.
#[async_trait::async_trait]
pub trait RateLimits: Send + Sync {
    /// Refuses while the (username, address) pair or the address is locked out, with the
    /// longer wait. Counts nothing.
    async fn login_check(&self, username: &str, client: IpAddr) -> ApiResult<()>;
    /// Counts a wrong password for the pair and for the address.
    async fn login_failed(&self, username: &str, client: IpAddr) -> ApiResult<()>;
    /// Clears the pair's strikes (never the address's).
    async fn login_succeeded(&self, username: &str, client: IpAddr) -> ApiResult<()>;
    /// Counts an alert to a user's valid webhook secret, or refuses it.
    async fn webhook_alert(&self, user_id: i64) -> ApiResult<()>;
    /// Counts a post to an unknown webhook URL from `client`, or refuses it.
    async fn webhook_unknown(&self, client: IpAddr) -> ApiResult<()>;
    /// Forgets the keys that no longer limit anything (run every [`HOUSEKEEPING_EVERY`]).
    async fn housekeeping(&self);
}

/// The limits for `store`'s backend: shared through PostgreSQL, in memory on SQLite.
pub fn limits_for(store: &Store, config: &Config) -> Arc<dyn RateLimits> {
    match store.backend() {
        Backend::Postgres => Arc::new(SharedLimits::new(store.clone(), config)),
        Backend::Sqlite => Arc::new(MemoryLimits::new(config)),
    }
}

/// The limits of one process, built from the config (SQLite: one instance by design).
pub struct MemoryLimits {
    pub login: LoginLimits,
    /// Alerts per user with a valid secret (`webhook_alerts_per_minute`).
    pub webhook_alerts: KeyedLimit<i64>,
    /// Posts to unknown webhook URLs per client address (the same quota). A limiter of its
    /// own: guessing from an address never touches any user's alert quota.
    pub webhook_unknown: KeyedLimit<IpAddr>,
}

impl MemoryLimits {
    pub fn new(config: &Config) -> MemoryLimits {
        MemoryLimits {
            login: LoginLimits::new(
                config.login_failures_per_minute,
                LOGIN_BACKOFF,
                DefaultClock::default(),
            ),
            webhook_alerts: KeyedLimit::per_minute(
                config.webhook_alerts_per_minute,
                DefaultClock::default(),
            ),
            webhook_unknown: KeyedLimit::per_minute(
                config.webhook_alerts_per_minute,
                DefaultClock::default(),
            ),
        }
    }

    pub fn retain_recent(&self) {
        self.login.retain_recent();
        self.webhook_alerts.retain_recent();
        self.webhook_unknown.retain_recent();
    }
}

#[async_trait::async_trait]
impl RateLimits for MemoryLimits {
    async fn login_check(&self, username: &str, client: IpAddr) -> ApiResult<()> {
        Ok(self.login.check(username, client)?)
    }

    async fn login_failed(&self, username: &str, client: IpAddr) -> ApiResult<()> {
        self.login.failed(username, client);
        Ok(())
    }

    async fn login_succeeded(&self, username: &str, client: IpAddr) -> ApiResult<()> {
        self.login.succeeded(username, client);
        Ok(())
    }

    async fn webhook_alert(&self, user_id: i64) -> ApiResult<()> {
        self.webhook_alerts.check(&user_id)?;
        Ok(())
    }

    async fn webhook_unknown(&self, client: IpAddr) -> ApiResult<()> {
        self.webhook_unknown.check(&client)?;
        Ok(())
    }

    async fn housekeeping(&self) {
        self.retain_recent();
    }
}

/// Runs [`RateLimits::housekeeping`] every [`HOUSEKEEPING_EVERY`] while the limits live (the
/// server aborts the task when it stops).
pub fn spawn_housekeeping(limits: &Arc<dyn RateLimits>) -> JoinHandle<()> {
    let limits: Weak<dyn RateLimits> = Arc::downgrade(limits);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(HOUSEKEEPING_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        every.tick().await;
        loop {
            every.tick().await;
            let Some(limits) = limits.upgrade() else {
                break;
            };
            limits.housekeeping().await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::clock::FakeRelativeClock;

    #[test]
    fn a_keyed_limit_allows_the_minute_at_once_then_refills_per_key() {
        let clock = FakeRelativeClock::default();
        let limit: KeyedLimit<i64, _> = KeyedLimit::per_minute(3, clock.clone());
        assert_eq!(limit.check(&1), Ok(2));
        assert_eq!(limit.check(&1), Ok(1));
        assert_eq!(limit.check(&1), Ok(0));
        let refused = limit.check(&1).unwrap_err();
        assert_eq!(refused.wait, Duration::from_secs(20));
        assert_eq!(refused.retry_after_secs(), 20);
        // Another key has its own quota.
        assert_eq!(limit.check(&2), Ok(2));
        // One event back every 20 s.
        clock.advance(Duration::from_secs(20));
        assert_eq!(limit.check(&1), Ok(0));
        assert!(limit.check(&1).is_err());
    }

    #[test]
    fn retry_after_rounds_up_and_is_never_zero() {
        let secs = |ms| {
            Limited {
                wait: Duration::from_millis(ms),
            }
            .retry_after_secs()
        };
        assert_eq!(secs(0), 1);
        assert_eq!(secs(1), 1);
        assert_eq!(secs(1000), 1);
        assert_eq!(secs(1001), 2);
        assert_eq!(secs(59_999), 60);
    }

    #[test]
    fn housekeeping_drops_the_keys_whose_quota_is_full_again() {
        let clock = FakeRelativeClock::default();
        let limit: KeyedLimit<IpAddr, _> = KeyedLimit::per_minute(3, clock.clone());
        for i in 0..100u8 {
            limit.check(&IpAddr::from([10, 0, 0, i])).unwrap();
        }
        let busy = IpAddr::from([10, 0, 0, 1]);
        limit.check(&busy).unwrap();
        limit.check(&busy).unwrap();
        limit.retain_recent();
        assert_eq!(limit.keys(), 100, "all still within their quota's period");
        clock.advance(Duration::from_secs(40));
        limit.retain_recent();
        assert_eq!(
            limit.keys(),
            1,
            "only the key that used its whole quota stays"
        );
        clock.advance(Duration::from_secs(40));
        limit.retain_recent();
        assert_eq!(limit.keys(), 0);
    }

    #[test]
    fn the_client_address_is_forwarded_only_by_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "1.1.1.1, 203.0.113.7, 10.0.0.1".parse().unwrap(),
        );
        let stranger: IpAddr = "198.51.100.9".parse().unwrap();
        assert_eq!(client_ip(stranger, &headers, &[proxy]), stranger);
        assert_eq!(client_ip(proxy, &headers, &[]), proxy);
        assert_eq!(
            client_ip(proxy, &headers, &[proxy]),
            "203.0.113.7".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &[proxy]), proxy);
        headers.insert("x-forwarded-for", "junk".parse().unwrap());
        assert_eq!(client_ip(proxy, &headers, &[proxy]), proxy);
    }
}
