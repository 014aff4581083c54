//! The rate limits kept in PostgreSQL, so every instance on the database answers the same:
//! the login failure quotas and lockouts and the webhook quotas of [`super::MemoryLimits`],
//! each key a row of `rate_limits` updated in one statement on the database's clock
//! (`signaldesk_store::repo::rate_limits`). Same quotas, same growing delays, same keys.

use std::net::IpAddr;
use std::time::Duration;

use signaldesk_store::repo::rate_limits::{Lockouts, Quota};
use signaldesk_store::Store;

use super::{
    Limited, RateLimits, ADDRESS_LOGIN_FACTOR, HOUSEKEEPING_EVERY, LOGIN_BACKOFF, STRIKES_KEPT_FOR,
};
use crate::auth::secrets;
use crate::config::Config;
use crate::error::ApiResult;

/// The limits of every instance on one PostgreSQL database.
pub struct SharedLimits {
    store: Store,
    login_pair: Quota,
    login_address: Quota,
    webhook: Quota,
    lockouts: Lockouts,
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A row's key: the digest of the limit's name and the key's parts, so usernames and
/// addresses are not stored and every key has the same length.
fn key(kind: &str, parts: &[&str]) -> String {
    let mut text = kind.to_owned();
    for part in parts {
        text.push('\n');
        text.push_str(part);
    }
    secrets::digest(&text)
}

fn pair_key(username: &str, client: IpAddr) -> String {
    key("login-pair", &[&client.to_string(), username])
}

fn address_key(client: IpAddr) -> String {
    key("login-address", &[&client.to_string()])
}

/// `Ok` or the refusal, from a wait in milliseconds.
fn refuse_after(wait_ms: i64) -> ApiResult<()> {
    if wait_ms <= 0 {
        return Ok(());
    }
    Err(Limited {
        wait: Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0)),
    }
    .into())
}

impl SharedLimits {
    pub fn new(store: Store, config: &Config) -> SharedLimits {
        SharedLimits {
            store,
            login_pair: Quota::per_minute(config.login_failures_per_minute),
            login_address: Quota::per_minute(
                config
                    .login_failures_per_minute
                    .saturating_mul(ADDRESS_LOGIN_FACTOR),
            ),
            webhook: Quota::per_minute(config.webhook_alerts_per_minute),
            lockouts: Lockouts {
                first_ms: millis(LOGIN_BACKOFF.first),
                max_ms: millis(LOGIN_BACKOFF.max),
                kept_for_ms: millis(STRIKES_KEPT_FOR),
            },
        }
    }

    async fn count(&self, key: &str) -> ApiResult<()> {
        match self.store.rate_limit_count(key, self.webhook).await? {
            Ok(_) => Ok(()),
            Err(wait_ms) => refuse_after(wait_ms.max(1)),
        }
    }
}

#[async_trait::async_trait]
impl RateLimits for SharedLimits {
    async fn login_check(&self, username: &str, client: IpAddr) -> ApiResult<()> {
        let (pair, address) = (pair_key(username, client), address_key(client));
        let wait_ms = self.store.rate_limit_lockout(&[&pair, &address]).await?;
        refuse_after(wait_ms)
    }

    async fn login_failed(&self, username: &str, client: IpAddr) -> ApiResult<()> {
        let store = &self.store;
        store
            .rate_limit_failure(&pair_key(username, client), self.login_pair, self.lockouts)
            .await?;
        store
            .rate_limit_failure(&address_key(client), self.login_address, self.lockouts)
            .await?;
        Ok(())
    }

    async fn login_succeeded(&self, username: &str, client: IpAddr) -> ApiResult<()> {
        self.store
            .rate_limit_clear_strikes(&pair_key(username, client))
            .await?;
        Ok(())
    }

    async fn webhook_alert(&self, user_id: i64) -> ApiResult<()> {
        self.count(&key("webhook-alert", &[&user_id.to_string()]))
            .await
    }

    async fn webhook_unknown(&self, client: IpAddr) -> ApiResult<()> {
        self.count(&key("webhook-unknown", &[&client.to_string()]))
            .await
    }

    async fn housekeeping(&self) {
        match self.store.sweep_rate_limits(millis(STRIKES_KEPT_FOR)).await {
            Ok(swept) => tracing::debug!(swept, "expired rate limit rows deleted"),
            Err(e) => tracing::warn!(
                error = %e,
                every = ?HOUSEKEEPING_EVERY,
                "expired rate limit rows not deleted; trying again later"
            ),
        }
    }
}
