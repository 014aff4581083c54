//! Bot leases (migration 0012): which instance runs each user's workers, for how long, and
//! under which fencing token. Every time is read from the database's clock in the statement
//! that uses it, so instances whose clocks differ still agree on who holds a lease.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Backend, Store, StoreError};

/// A lease held: the fencing token of this tenure and when it runs out (database clock, ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    pub token: i64,
    pub expires_at: i64,
}

fn lease(row: &AnyRow) -> Result<Lease, StoreError> {
    Ok(Lease {
        token: row.try_get("token")?,
        expires_at: row.try_get("expires_at")?,
    })
}

impl Store {
    /// Now on the database's clock, in Unix ms, as an SQL expression.
    fn clock_ms(&self) -> &'static str {
        match self.backend() {
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
            Backend::Postgres => "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT",
        }
    }

    /// Takes the user's lease for `owner` for `ttl_ms` when it is free, run out, or already
    /// `owner`'s; None while another instance holds it. A new tenure (a new owner, or the
    /// same owner after its lease ran out) gets the next fencing token.
    pub async fn acquire_lease(
        &self,
        user_id: i64,
        owner: &str,
        ttl_ms: i64,
    ) -> Result<Option<Lease>, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "INSERT INTO bot_leases (user_id, owner, token, expires_at)
             VALUES ($1, $2, 1, {now} + $3)
             ON CONFLICT (user_id) DO UPDATE SET
                 token = CASE WHEN bot_leases.owner = excluded.owner
                                   AND bot_leases.expires_at >= {now}
                              THEN bot_leases.token ELSE bot_leases.token + 1 END,
                 owner = excluded.owner,
                 expires_at = excluded.expires_at
             WHERE bot_leases.owner = excluded.owner OR bot_leases.expires_at < {now}
             RETURNING token, expires_at"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(owner)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(lease).transpose()
    }

    /// Extends `owner`'s tenure `token` by `ttl_ms` from now; None when it ran out or another
    /// tenure began: the caller must stop acting for the user at once.
    pub async fn renew_lease(
        &self,
        user_id: i64,
        owner: &str,
        token: i64,
        ttl_ms: i64,
    ) -> Result<Option<Lease>, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "UPDATE bot_leases SET expires_at = {now} + $4
             WHERE user_id = $1 AND owner = $2 AND token = $3 AND expires_at >= {now}
             RETURNING token, expires_at"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(owner)
            .bind(token)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(lease).transpose()
    }

    /// Ends `owner`'s tenure `token` now (a clean stop), so another instance may take the
    /// bot at once. The row stays, so tokens keep growing.
    pub async fn release_lease(
        &self,
        user_id: i64,
        owner: &str,
        token: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE bot_leases SET expires_at = 0
             WHERE user_id = $1 AND owner = $2 AND token = $3",
        )
        .bind(user_id)
        .bind(owner)
        .bind(token)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Whether tenure `token` of the user's lease is the current one and has not run out:
    /// the fencing check before a write or an order made under it.
    pub async fn lease_holds(&self, user_id: i64, token: i64) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "SELECT COUNT(*) AS n FROM bot_leases
             WHERE user_id = $1 AND token = $2 AND expires_at >= {now}"
        );
        let n: i64 = sqlx::query(&sql)
            .bind(user_id)
            .bind(token)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?;
        Ok(n > 0)
    }

    /// The instance named on the user's lease, whether or not it ran out.
    pub async fn lease_owner(&self, user_id: i64) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT owner FROM bot_leases WHERE user_id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("owner")).transpose()?)
    }
}
