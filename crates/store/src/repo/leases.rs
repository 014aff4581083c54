//! Bot leases (migration 0012): which instance runs each user's workers, for how long, and
//! under which fencing token. Every time is read from the database's clock in the statement
//! that uses it, so instances whose clocks differ still agree on who holds a lease.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::pool::Fence;
use crate::repo::instances::registered;
use crate::{Backend, Store, StoreError};

/// A lease held: the fencing token of this tenure and when it runs out (database clock, ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    pub token: i64,
    pub expires_at: i64,
}

/// Who asks for a lease: the instance id (unique among running processes) and the process,
/// told apart by a number drawn at its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseHolder {
    pub instance: String,
    pub process: String,
}

impl LeaseHolder {
    pub fn new(instance: &str) -> LeaseHolder {
        LeaseHolder {
            instance: instance.to_string(),
            process: format!("{instance}#{:016x}", rand::random::<u64>()),
        }
    }
}

/// A user's lease as another instance sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseState {
    /// The process named on it, and its instance id.
    pub owner: String,
    pub instance: String,
    /// How long until it runs out, on the database's clock (ms); negative when it has.
    pub expires_in_ms: i64,
}

/// One line of the fence log: an action a worker took under a tenure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceEntry {
    pub id: i64,
    pub token: i64,
    pub owner: String,
    pub action: String,
    pub at: i64,
}

fn lease(row: &AnyRow) -> Result<Lease, StoreError> {
    Ok(Lease {
        token: row.try_get("token")?,
        expires_at: row.try_get("expires_at")?,
    })
}

impl Store {
    /// This store with every write fenced by tenure `token` of the user's lease: each write
    /// and transaction first checks, in its own transaction, that the tenure holds, and fails
    /// with [`StoreError::LeaseEnded`] (writing nothing) when it does not. PostgreSQL only.
    pub fn fenced(&self, user_id: i64, token: i64) -> Store {
        Store {
            pool: self.pool.fenced(Fence { user_id, token }),
            ..self.clone()
        }
    }

    /// Now on the database's clock, in Unix ms, as an SQL expression.
    pub(crate) fn clock_ms(&self) -> &'static str {
        match self.backend() {
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
            Backend::Postgres => "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT",
        }
    }

    /// Takes the user's lease for `holder` for `ttl_ms` when it is free, run out, already
    /// `holder`'s, or held by an earlier process of the same instance id (which is dead: only
    /// the process registered for an instance id may take a lease, `repo::instances`); None
    /// while another instance holds it or `holder` is not registered. A new tenure gets the
    /// next fencing token.
    pub async fn acquire_lease(
        &self,
        user_id: i64,
        holder: &LeaseHolder,
        ttl_ms: i64,
    ) -> Result<Option<Lease>, StoreError> {
        let now = self.clock_ms();
        let registered = registered("$3", "$2");
        let sql = format!(
            "INSERT INTO bot_leases (user_id, owner, instance, token, expires_at)
             SELECT $1, $2, $3, 1, {now} + $4 WHERE {registered}
             ON CONFLICT (user_id) DO UPDATE SET
                 token = CASE WHEN bot_leases.owner = excluded.owner
                                   AND bot_leases.expires_at >= {now}
                              THEN bot_leases.token ELSE bot_leases.token + 1 END,
                 owner = excluded.owner,
                 instance = excluded.instance,
                 expires_at = excluded.expires_at
             WHERE bot_leases.owner = excluded.owner
                OR bot_leases.instance = excluded.instance
                OR bot_leases.expires_at < {now}
             RETURNING token, expires_at"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(&holder.process)
            .bind(&holder.instance)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(lease).transpose()
    }

    /// Extends every tenure `holder` holds by `ttl_ms` from now, in one statement; answers
    /// the `(user_id, token)` pairs renewed. A tenure of the holder's missing from the answer
    /// ran out or was taken over, or the holder's registration was taken by another process
    /// of its instance id: the holder must stop acting for that user at once.
    pub async fn renew_leases(
        &self,
        holder: &LeaseHolder,
        ttl_ms: i64,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let now = self.clock_ms();
        let registered = registered("bot_leases.instance", "$1");
        let sql = format!(
            "UPDATE bot_leases SET expires_at = {now} + $2
             WHERE owner = $1 AND expires_at >= {now} AND {registered}
             RETURNING user_id, token"
        );
        let rows = sqlx::query(&sql)
            .bind(&holder.process)
            .bind(ttl_ms)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("user_id")?, r.try_get("token")?)))
            .collect()
    }

    /// Ends `holder`'s tenure `token` now (a clean stop), so another instance may take the
    /// bot at once. The row stays, so tokens keep growing.
    pub async fn release_lease(
        &self,
        user_id: i64,
        holder: &LeaseHolder,
        token: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE bot_leases SET expires_at = 0
             WHERE user_id = $1 AND owner = $2 AND token = $3",
        )
        .bind(user_id)
        .bind(&holder.process)
        .bind(token)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Records `action` under tenure `token` if that tenure still holds, in one statement, so
    /// the check and the record cannot be told apart: false means the tenure is over and the
    /// action must not be taken.
    pub async fn fence(&self, user_id: i64, token: i64, action: &str) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "INSERT INTO lease_fences (user_id, token, owner, action, at)
             SELECT user_id, token, owner, $3, {now} FROM bot_leases
             WHERE user_id = $1 AND token = $2 AND expires_at >= {now}
             RETURNING id"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(token)
            .bind(action)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// The user's fence log, oldest first.
    pub async fn fence_log(&self, user_id: i64) -> Result<Vec<FenceEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, token, owner, action, at FROM lease_fences WHERE user_id = $1 ORDER BY id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(FenceEntry {
                    id: r.try_get("id")?,
                    token: r.try_get("token")?,
                    owner: r.try_get("owner")?,
                    action: r.try_get("action")?,
                    at: r.try_get("at")?,
                })
            })
            .collect()
    }

    /// The users whose lease a process of another instance id holds now (a lease of the
    /// holder's own instance id is its own, or its dead predecessor's, to take).
    pub async fn leases_held_elsewhere(
        &self,
        holder: &LeaseHolder,
    ) -> Result<std::collections::HashSet<i64>, StoreError> {
        let now = self.clock_ms();
        let rows = sqlx::query(&format!(
            "SELECT user_id FROM bot_leases WHERE expires_at >= {now} AND instance <> $1"
        ))
        .bind(&holder.instance)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok(r.try_get("user_id")?)).collect()
    }

    /// The process named on the user's lease and whether its tenure still holds.
    pub async fn lease_owner(&self, user_id: i64) -> Result<Option<(String, bool)>, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "SELECT owner, CAST(CASE WHEN expires_at >= {now} THEN 1 ELSE 0 END AS BIGINT) AS live
             FROM bot_leases WHERE user_id = $1"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| -> Result<(String, bool), StoreError> {
            let live: i64 = r.try_get("live")?;
            Ok((r.try_get("owner")?, live == 1))
        })
        .transpose()
    }

    /// The user's lease, whoever holds it and whether it still holds; None when no instance
    /// ever ran the bot.
    pub async fn lease_state(&self, user_id: i64) -> Result<Option<LeaseState>, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "SELECT owner, instance, expires_at - {now} AS left_ms FROM bot_leases WHERE user_id = $1"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| -> Result<LeaseState, StoreError> {
            Ok(LeaseState {
                owner: r.try_get("owner")?,
                instance: r.try_get("instance")?,
                expires_in_ms: r.try_get("left_ms")?,
            })
        })
        .transpose()
    }
}
