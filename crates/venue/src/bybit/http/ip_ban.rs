//! Bybit's answer to too many requests from one IP address: HTTP 403, and no REST traffic
//! from that address accepted for a while. Bybit asks to stop every request and wait at
//! least 10 minutes; an address that keeps sending gets a longer, then a permanent ban. So
//! after a 403 this process sends nothing more to that host, for any user or client,
//! until the wait is over: each call fails at once with [`BybitHttpError::IpBanned`].
//! Every Bybit REST request goes out through [`send`].

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::error::BybitHttpError;

/// How long Bybit asks a banned address to stay quiet.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(600);

/// Until when each base URL is banned. Process-wide: the ban is on the machine's address.
static BANNED_UNTIL: LazyLock<Mutex<HashMap<String, Instant>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn bans() -> MutexGuard<'static, HashMap<String, Instant>> {
    BANNED_UNTIL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends `request` to `base_url` unless that host is banned; a 403 answer bans it for
/// `wait`.
pub async fn send(
    base_url: &str,
    wait: Duration,
    request: reqwest::RequestBuilder,
) -> Result<reqwest::Response, BybitHttpError> {
    check(base_url)?;
    let response = request.send().await?;
    if response.status() == reqwest::StatusCode::FORBIDDEN {
        return Err(ban(base_url, wait));
    }
    Ok(response)
}

/// `Err(IpBanned)` while `base_url` is banned.
fn check(base_url: &str) -> Result<(), BybitHttpError> {
    let mut bans = bans();
    let now = Instant::now();
    match bans.get(base_url) {
        Some(until) if *until > now => Err(BybitHttpError::IpBanned {
            retry_in: *until - now,
        }),
        Some(_) => {
            bans.remove(base_url);
            Ok(())
        }
        None => Ok(()),
    }
}

/// Records Bybit's 403 on `base_url`: nothing is sent there for `wait`. The error to
/// report for the refused request.
fn ban(base_url: &str, wait: Duration) -> BybitHttpError {
    let until = Instant::now() + wait;
    let mut bans = bans();
    let entry = bans.entry(base_url.to_string()).or_insert(until);
    *entry = (*entry).max(until);
    tracing::error!(
        base_url,
        wait_s = wait.as_secs(),
        "Bybit answered HTTP 403: this server's IP address is banned for too many requests; sending nothing to Bybit until the ban should have lifted"
    );
    BybitHttpError::IpBanned { retry_in: wait }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ban_holds_every_call_until_its_wait_is_over() {
        let url = "http://ban.test:1";
        assert!(check(url).is_ok());
        ban(url, Duration::from_millis(50));
        assert!(matches!(check(url), Err(BybitHttpError::IpBanned { .. })));
        assert!(check("http://other.test:1").is_ok(), "bans are per host");
        std::thread::sleep(Duration::from_millis(60));
        assert!(check(url).is_ok());
    }
}
