//! Failed attempts per key with growing delays: login failures per (username, client
//! address), and per client address whatever the username.
//!
//! Only failures count. governor's `check_key` consumes a cell and cannot be asked without
//! consuming one, while a success must cost nothing (a script fetching tokens, a user logging
//! in on several devices). So [`FailureLimit`] works in two steps:
//!
//! 1. After a wrong password, [`FailureLimit::failed`] consumes a cell of the key's quota
//!    (`per_minute` failures, all at once, then one more every `60 / per_minute` s). With
//!    governor's `StateInformationMiddleware` it learns how many failures are left. When that
//!    failure used the last one (or found none), the key gets a strike and is locked out for
//!    [`Backoff::delay`] of its strikes: 1 s, 2 s, 4 s … up to 60 s.
//! 2. Before checking the next password, [`FailureLimit::check`] reads that lockout (a plain
//!    map of the keys that have strikes) and refuses with the time left.
//!
//! A success ends the key's lockout and forgets its strikes ([`FailureLimit::succeeded`]); the
//! failures it had used still come back at the quota's pace. Strikes are also forgotten
//! [`STRIKES_KEPT_FOR`] after the last lockout ended, by the periodic housekeeping.
//!
//! Keys are (username, address) pairs, so failures from one address never delay the same
//! username from another; and addresses, with a looser quota ([`ADDRESS_LOGIN_FACTOR`]), so
//! one address cannot try many usernames fast. Attempts that arrive together are all checked
//! before any of them fails, so a burst of N concurrent attempts can overshoot a quota by up
//! to N; each of those failures still adds a strike.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock, Reference};
use governor::nanos::Nanos;

use super::{KeyedLimit, Limited};

/// Failed logins allowed per address, as a multiple of the per-(username, address) quota.
pub const ADDRESS_LOGIN_FACTOR: u32 = 4;

/// The login lockouts: 1 s after the quota is used up, doubling with each further failure
/// up to a minute.
pub const LOGIN_BACKOFF: Backoff = Backoff {
    first: Duration::from_secs(1),
    max: Duration::from_secs(60),
};

/// How long a key's strikes are remembered after its last lockout ended.
pub const STRIKES_KEPT_FOR: Duration = Duration::from_secs(15 * 60);

/// Lockouts that double with each strike.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
}

impl Backoff {
    /// `first × 2^(strikes - 1)`, at most `max`.
    pub fn delay(&self, strikes: u32) -> Duration {
        let factor = 1u32
            .checked_shl(strikes.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.first.saturating_mul(factor).min(self.max)
    }
}

struct Lockout<I> {
    strikes: u32,
    until: I,
}

/// A failure quota per key with growing lockouts once it is used up (see the module docs).
pub struct FailureLimit<K: Hash + Eq + Clone, C: Clock = DefaultClock> {
    quota: KeyedLimit<K, C>,
    lockouts: Mutex<HashMap<K, Lockout<C::Instant>>>,
    backoff: Backoff,
}

impl<K: Hash + Eq + Clone, C: Clock> FailureLimit<K, C> {
    pub fn new(per_minute: u32, backoff: Backoff, clock: C) -> FailureLimit<K, C> {
        FailureLimit {
            quota: KeyedLimit::per_minute(per_minute, clock),
            lockouts: Mutex::new(HashMap::new()),
            backoff,
        }
    }

    fn lockouts(&self) -> MutexGuard<'_, HashMap<K, Lockout<C::Instant>>> {
        self.lockouts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuses while `key` is locked out. Counts nothing.
    pub fn check(&self, key: &K) -> Result<(), Limited> {
        let now = self.quota.now();
        match self.lockouts().get(key) {
            Some(lockout) if lockout.until > now => Err(Limited {
                wait: lockout.until.duration_since(now).into(),
            }),
            _ => Ok(()),
        }
    }

    /// Counts a failure; when it uses up the quota, a strike and a longer lockout.
    pub fn failed(&self, key: &K) {
        let quota_left = self.quota.check(key).unwrap_or(0);
        if quota_left > 0 {
            return;
        }
        let now = self.quota.now();
        let mut lockouts = self.lockouts();
        let lockout = lockouts.entry(key.clone()).or_insert(Lockout {
            strikes: 0,
            until: now,
        });
        lockout.strikes = lockout.strikes.saturating_add(1);
        let until = now + Nanos::from(self.backoff.delay(lockout.strikes));
        lockout.until = lockout.until.max(until);
    }

    /// Ends the key's lockout and forgets its strikes.
    pub fn succeeded(&self, key: &K) {
        self.lockouts().remove(key);
    }

    /// Drops the keys whose quota is full again and the strikes no longer kept.
    pub fn retain_recent(&self) {
        self.quota.retain_recent();
        let now = self.quota.now();
        let kept_for = Nanos::from(STRIKES_KEPT_FOR);
        self.lockouts()
            .retain(|_, lockout| now.duration_since(lockout.until) < kept_for);
    }

    /// How many keys are held (quota states, strikes).
    pub fn keys(&self) -> (usize, usize) {
        (self.quota.keys(), self.lockouts().len())
    }
}

/// Failed logins per (username, client address) and per client address.
pub struct LoginLimits<C: Clock = DefaultClock> {
    pairs: FailureLimit<(String, IpAddr), C>,
    addresses: FailureLimit<IpAddr, C>,
}

impl<C: Clock + Clone> LoginLimits<C> {
    /// `per_minute` failures per (username, address), [`ADDRESS_LOGIN_FACTOR`] times that
    /// per address.
    pub fn new(per_minute: u32, backoff: Backoff, clock: C) -> LoginLimits<C> {
        LoginLimits {
            pairs: FailureLimit::new(per_minute, backoff, clock.clone()),
            addresses: FailureLimit::new(
                per_minute.saturating_mul(ADDRESS_LOGIN_FACTOR),
                backoff,
                clock,
            ),
        }
    }
}

impl<C: Clock> LoginLimits<C> {
    /// Refuses while the pair or the address is locked out, with the longer wait.
    pub fn check(&self, username: &str, client: IpAddr) -> Result<(), Limited> {
        let pair = self.pairs.check(&(username.to_owned(), client));
        let address = self.addresses.check(&client);
        match (pair, address) {
            (Err(a), Err(b)) => Err(a.max(b)),
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(())) => Ok(()),
        }
    }

    pub fn failed(&self, username: &str, client: IpAddr) {
        self.pairs.failed(&(username.to_owned(), client));
        self.addresses.failed(&client);
    }

    /// Clears the pair only: logging in to one's own account must not reset an address that
    /// has been trying other usernames.
    pub fn succeeded(&self, username: &str, client: IpAddr) {
        self.pairs.succeeded(&(username.to_owned(), client));
    }

    pub fn retain_recent(&self) {
        self.pairs.retain_recent();
        self.addresses.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::clock::FakeRelativeClock;

    const SEC: Duration = Duration::from_secs(1);

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([203, 0, 113, last])
    }

    fn wait(result: Result<(), Limited>) -> Duration {
        result.expect_err("locked out").wait
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let delays: Vec<u64> = (1..=8).map(|s| LOGIN_BACKOFF.delay(s).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(LOGIN_BACKOFF.delay(u32::MAX), 60 * SEC);
    }

    #[test]
    fn failures_lock_the_pair_out_with_growing_delays_and_a_success_resets() {
        let clock = FakeRelativeClock::default();
        let limits = LoginLimits::new(3, LOGIN_BACKOFF, clock.clone());
        for _ in 0..2 {
            limits.check("alice", ip(1)).unwrap();
            limits.failed("alice", ip(1));
        }
        limits.check("alice", ip(1)).unwrap();
        // The third failure uses up the quota: locked out from the next attempt on.
        limits.failed("alice", ip(1));
        assert_eq!(wait(limits.check("alice", ip(1))), SEC);
        // Checks while locked out count nothing.
        assert_eq!(wait(limits.check("alice", ip(1))), SEC);
        clock.advance(SEC);
        limits.check("alice", ip(1)).unwrap();
        limits.failed("alice", ip(1));
        assert_eq!(wait(limits.check("alice", ip(1))), 2 * SEC);
        clock.advance(2 * SEC);
        limits.failed("alice", ip(1));
        assert_eq!(wait(limits.check("alice", ip(1))), 4 * SEC);
        clock.advance(4 * SEC);
        limits.check("alice", ip(1)).unwrap();
        limits.succeeded("alice", ip(1));
        // Back to the first delay (the quota itself refills at its own pace).
        limits.failed("alice", ip(1));
        assert_eq!(wait(limits.check("alice", ip(1))), SEC);
    }

    #[test]
    fn a_pair_locked_out_never_touches_the_same_user_elsewhere() {
        let clock = FakeRelativeClock::default();
        let limits = LoginLimits::new(2, LOGIN_BACKOFF, clock);
        // Within the address's own quota (8), beyond the pair's (2).
        for _ in 0..5 {
            limits.failed("alice", ip(1));
        }
        assert!(limits.check("alice", ip(1)).is_err());
        limits.check("alice", ip(2)).unwrap();
        limits.check("bob", ip(1)).unwrap();
    }

    #[test]
    fn an_address_spraying_usernames_is_locked_out_for_all_of_them() {
        let clock = FakeRelativeClock::default();
        let limits = LoginLimits::new(2, LOGIN_BACKOFF, clock);
        let per_address = 2 * ADDRESS_LOGIN_FACTOR;
        for i in 0..per_address {
            limits.check(&format!("guess{i}"), ip(9)).unwrap();
            limits.failed(&format!("guess{i}"), ip(9));
        }
        assert!(limits.check("alice", ip(9)).is_err());
        // Logging in to an account from there does not lift it.
        limits.succeeded("alice", ip(9));
        assert!(limits.check("alice", ip(9)).is_err());
        limits.check("alice", ip(10)).unwrap();
    }

    #[test]
    fn the_longer_of_the_pair_and_address_lockouts_is_answered() {
        let clock = FakeRelativeClock::default();
        let limits = LoginLimits::new(1, LOGIN_BACKOFF, clock.clone());
        // Pair (alice, 1): two strikes, 2 s. Address 1: 4 failures, one strike, 1 s.
        limits.failed("alice", ip(1));
        clock.advance(SEC);
        limits.failed("alice", ip(1));
        limits.failed("bob", ip(1));
        limits.failed("carol", ip(1));
        assert_eq!(wait(limits.check("dave", ip(1))), SEC);
        assert_eq!(wait(limits.check("alice", ip(1))), 2 * SEC);
    }

    #[test]
    fn housekeeping_forgets_strikes_and_refilled_quotas() {
        let clock = FakeRelativeClock::default();
        let limit: FailureLimit<IpAddr, _> = FailureLimit::new(1, LOGIN_BACKOFF, clock.clone());
        limit.failed(&ip(1));
        limit.failed(&ip(2));
        assert_eq!(limit.keys(), (2, 2));
        clock.advance(2 * 60 * SEC);
        limit.retain_recent();
        assert_eq!(limit.keys(), (0, 2), "strikes outlive the quota");
        clock.advance(STRIKES_KEPT_FOR);
        limit.retain_recent();
        assert_eq!(limit.keys(), (0, 0));
    }
}
