//! Rate limits kept in the database (migration 0010), so every server instance on one
//! PostgreSQL answers the same (docs/security.md, "Several instances"). PostgreSQL only:
//! SQLite serves one instance, whose limits stay in memory.
//!
//! Each key's row is read and updated in one statement (`INSERT … ON CONFLICT … DO UPDATE …
//! RETURNING`) on the database's clock, so concurrent events on any instance serialize on
//! the row and no two instances can both use the last event of a quota. The limits are
//! governor's GCRA, in milliseconds: a quota of `n` a minute lets `n` events come at once,
//! then one more every `60 s / n`.

use sqlx::Row;

use crate::{Store, StoreError};

/// Now on the database's clock, in Unix milliseconds (`now()` is fixed for the statement).
const NOW: &str = "(EXTRACT(EPOCH FROM now()) * 1000)::BIGINT";

/// A quota of `per_minute` events, in the GCRA's terms (milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    per_minute: i64,
    /// One event comes back every `interval` (rounded up: never looser than the quota).
    interval: i64,
}

impl Quota {
    pub fn per_minute(per_minute: u32) -> Quota {
        let per_minute = i64::from(per_minute.max(1));
        Quota {
            per_minute,
            interval: (60_000 + per_minute - 1) / per_minute,
        }
    }

    /// How far ahead of now the theoretical arrival time may be for an event to be allowed.
    fn tolerance(&self) -> i64 {
        self.interval * (self.per_minute - 1)
    }
}

/// Growing lockouts once a failure quota is used up: `first × 2^(strikes - 1)`, at most
/// `max`; strikes are forgotten `kept_for` after the last lockout ended. Milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lockouts {
    pub first_ms: i64,
    pub max_ms: i64,
    pub kept_for_ms: i64,
}

/// A counted event: `Ok(n)`, `n` more being allowed right away; or refused, nothing counted,
/// with the milliseconds to wait.
pub type Counted = Result<u32, i64>;

impl Store {
    /// Counts one event for `key` under `quota`, unless the key has used it up.
    pub async fn rate_limit_count(&self, key: &str, quota: Quota) -> Result<Counted, StoreError> {
        let sql = format!(
            "INSERT INTO rate_limits AS r (key, tat, counted) VALUES ($1, {NOW} + $2, 1)
             ON CONFLICT (key) DO UPDATE SET
               counted = CASE WHEN GREATEST(r.tat, {NOW}) - {NOW} <= $3 THEN 1 ELSE 0 END,
               tat = CASE WHEN GREATEST(r.tat, {NOW}) - {NOW} <= $3
                          THEN GREATEST(r.tat, {NOW}) + $2 ELSE r.tat END
             RETURNING r.tat, r.counted, {NOW} AS now"
        );
        let row = sqlx::query(&sql)
            .bind(key)
            .bind(quota.interval)
            .bind(quota.tolerance())
            .fetch_one(&self.pool)
            .await?;
        let tat: i64 = row.try_get("tat")?;
        let counted: i64 = row.try_get("counted")?;
        let now: i64 = row.try_get("now")?;
        Ok(if counted == 1 {
            let used = (tat - now).clamp(0, quota.per_minute * quota.interval);
            Ok(
                u32::try_from((quota.per_minute * quota.interval - used) / quota.interval)
                    .unwrap_or(0),
            )
        } else {
            Err((tat - quota.tolerance() - now).max(1))
        })
    }

    /// The longest lockout among `keys` still to run, in milliseconds (0: none).
    pub async fn rate_limit_lockout(&self, keys: &[&str]) -> Result<i64, StoreError> {
        let mut wait = 0;
        // Two keys at most in practice: one small query each keeps the SQL portable to the
        // `Any` driver (no arrays).
        for key in keys {
            let sql = format!(
                "SELECT COALESCE(MAX(locked_until), 0) - {NOW} AS wait
                 FROM rate_limits WHERE key = $1"
            );
            let row = sqlx::query(&sql).bind(*key).fetch_one(&self.pool).await?;
            wait = wait.max(row.try_get::<i64, _>("wait")?);
        }
        Ok(wait)
    }

    /// Counts a failure for `key` under `quota`; when it uses up the quota (or finds it used
    /// up), a strike, and a lockout of the strikes' length unless one runs longer already.
    pub async fn rate_limit_failure(
        &self,
        key: &str,
        quota: Quota,
        lockouts: Lockouts,
    ) -> Result<(), StoreError> {
        // The strikes that still count: forgotten `kept_for` after the last lockout ended.
        let strikes = format!("(CASE WHEN r.locked_until + $7 > {NOW} THEN r.strikes ELSE 0 END)");
        // After this failure no event would be left: the quota is used up.
        let strike = format!("GREATEST(r.tat, {NOW}) - {NOW} > $4");
        let sql = format!(
            "INSERT INTO rate_limits AS r (key, tat, counted, strikes, locked_until)
             VALUES ($1, {NOW} + $2, 1, $8, CASE WHEN $8 > 0 THEN {NOW} + $5 ELSE 0 END)
             ON CONFLICT (key) DO UPDATE SET
               counted = CASE WHEN GREATEST(r.tat, {NOW}) - {NOW} <= $3 THEN 1 ELSE 0 END,
               tat = CASE WHEN GREATEST(r.tat, {NOW}) - {NOW} <= $3
                          THEN GREATEST(r.tat, {NOW}) + $2 ELSE r.tat END,
               strikes = CASE WHEN {strike} THEN {strikes} + 1 ELSE {strikes} END,
               locked_until = CASE WHEN {strike}
                   THEN GREATEST(r.locked_until,
                                 {NOW} + LEAST($5 * (1::BIGINT << LEAST({strikes}, 32)::INT), $6))
                   ELSE r.locked_until END"
        );
        // A fresh key's first failure uses up a quota of one.
        let first_strikes: i64 = if quota.per_minute == 1 { 1 } else { 0 };
        sqlx::query(&sql)
            .bind(key)
            .bind(quota.interval)
            .bind(quota.tolerance())
            .bind(quota.interval * (quota.per_minute - 2))
            .bind(lockouts.first_ms)
            .bind(lockouts.max_ms)
            .bind(lockouts.kept_for_ms)
            .bind(first_strikes)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ends `key`'s lockout and forgets its strikes (its quota refills at its own pace).
    pub async fn rate_limit_clear_strikes(&self, key: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE rate_limits SET strikes = 0, locked_until = 0 WHERE key = $1")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Deletes the rows indistinguishable from no row: quota full again, and no lockout or
    /// strikes still remembered `kept_for_ms` after it. Returns how many went.
    pub async fn sweep_rate_limits(&self, kept_for_ms: i64) -> Result<u64, StoreError> {
        let sql =
            format!("DELETE FROM rate_limits WHERE tat <= {NOW} AND locked_until + $1 <= {NOW}");
        let done = sqlx::query(&sql)
            .bind(kept_for_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}
