//! Sliding one-minute windows of events per key: failed logins per (username, client
//! address) and per address (DESIGN.md: e.g. 5 a minute), webhook alerts per user and unknown
//! webhook URLs per address. Also the client address itself, behind trusted proxies.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

use axum::http::HeaderMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);
/// Above this many tracked keys, expired ones are swept so memory stays bounded.
const SWEEP_ABOVE: usize = 10_000;
/// Failed logins allowed per address in a minute, as a multiple of the per-(username,
/// address) limit.
pub const ADDRESS_LOGIN_FACTOR: u32 = 4;

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

pub struct WindowLimiter {
    limit: usize,
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl WindowLimiter {
    pub fn new(per_minute: u32) -> WindowLimiter {
        WindowLimiter {
            limit: per_minute.max(1) as usize,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(seconds)` when any key has used up its events in the last minute.
    pub fn check(&self, keys: &[String], now: Instant) -> Result<(), u64> {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let mut wait = Duration::ZERO;
        for key in keys {
            if let Some(times) = map.get_mut(key) {
                prune(times, now);
                if times.len() >= self.limit {
                    if let Some(oldest) = times.front() {
                        wait = wait.max(WINDOW.saturating_sub(now.duration_since(*oldest)));
                    }
                }
            }
        }
        if wait.is_zero() {
            Ok(())
        } else {
            Err(wait.as_secs().max(1))
        }
    }

    pub fn record(&self, keys: &[String], now: Instant) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > SWEEP_ABOVE {
            map.retain(|_, times| {
                prune(times, now);
                !times.is_empty()
            });
        }
        for key in keys {
            map.entry(key.clone()).or_default().push_back(now);
        }
    }

    pub fn clear(&self, key: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(key);
    }
}

fn prune(times: &mut VecDeque<Instant>, now: Instant) {
    while times
        .front()
        .is_some_and(|t| now.duration_since(*t) >= WINDOW)
    {
        times.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_after_the_limit_and_frees_after_the_window() {
        let limiter = WindowLimiter::new(3);
        let keys = vec!["user:a".to_string(), "ip:1".to_string()];
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check(&keys, t0).is_ok());
            limiter.record(&keys, t0);
        }
        let wait = limiter.check(&keys, t0).unwrap_err();
        assert_eq!(wait, 60);
        // Another username from the same address is blocked too.
        assert!(limiter
            .check(&["user:b".into(), "ip:1".into()], t0)
            .is_err());
        assert!(limiter.check(&["user:b".into(), "ip:2".into()], t0).is_ok());
        assert!(limiter.check(&keys, t0 + WINDOW).is_ok());
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

    #[test]
    fn clear_forgets_a_key() {
        let limiter = WindowLimiter::new(1);
        let keys = vec!["user:a".to_string()];
        limiter.record(&keys, Instant::now());
        assert!(limiter.check(&keys, Instant::now()).is_err());
        limiter.clear("user:a");
        assert!(limiter.check(&keys, Instant::now()).is_ok());
    }
}
