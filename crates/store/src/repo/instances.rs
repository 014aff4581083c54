//! The running processes of a deployment, one per instance id (migration 0023). A process
//! registers its id at start and renews it with its leases; a lease is taken, renewed or
//! inherited from a same-id predecessor only by the process registered for the id
//! (`repo::leases`), so two processes given the same id can never run the same bots.
//! Times are the database's clock.

use sqlx::Row;

use crate::repo::leases::LeaseHolder;
use crate::{Store, StoreError};

/// Where a process runs: its host (with its process namespace) and its process id, enough
/// for a process on the same host to see whether it is still alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessPlace {
    pub host: String,
    pub pid: i64,
}

/// The process registered for an instance id, as another process finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    pub process: String,
    pub place: ProcessPlace,
    /// How long ago it last renewed, and how long until it runs out (ms).
    pub seen_ms_ago: i64,
    pub expires_in_ms: i64,
}

/// SQL: the lease holder `$owner` of instance `$instance` is the process registered for it.
pub(crate) fn registered(instance: &str, owner: &str) -> String {
    format!(
        "EXISTS (SELECT 1 FROM instances
                 WHERE instances.instance = {instance} AND instances.process = {owner})"
    )
}

impl Store {
    /// Registers `holder`'s process for its instance id for `ttl_ms`, when the id is free,
    /// run out, or already this process's; otherwise answers the process registered.
    pub async fn register_instance(
        &self,
        holder: &LeaseHolder,
        place: &ProcessPlace,
        ttl_ms: i64,
    ) -> Result<Option<Registered>, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "INSERT INTO instances (instance, process, host, pid, started_at, seen_at, expires_at)
             VALUES ($1, $2, $3, $4, {now}, {now}, {now} + $5)
             ON CONFLICT (instance) DO UPDATE SET
                 process = excluded.process,
                 host = excluded.host,
                 pid = excluded.pid,
                 started_at = CASE WHEN instances.process = excluded.process
                                   THEN instances.started_at ELSE excluded.started_at END,
                 seen_at = excluded.seen_at,
                 expires_at = excluded.expires_at
             WHERE instances.process = excluded.process OR instances.expires_at < {now}
             RETURNING instance"
        );
        let taken = sqlx::query(&sql)
            .bind(&holder.instance)
            .bind(&holder.process)
            .bind(&place.host)
            .bind(place.pid)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
        if taken.is_some() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT process, host, pid, {now} - seen_at AS seen_ago, expires_at - {now} AS left_ms
             FROM instances WHERE instance = $1"
        );
        let row = sqlx::query(&sql)
            .bind(&holder.instance)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else {
            // Deregistered between the two statements: free now.
            return Box::pin(self.register_instance(holder, place, ttl_ms)).await;
        };
        Ok(Some(Registered {
            process: row.try_get("process")?,
            place: ProcessPlace {
                host: row.try_get("host")?,
                pid: row.try_get("pid")?,
            },
            seen_ms_ago: row.try_get("seen_ago")?,
            expires_in_ms: row.try_get("left_ms")?,
        }))
    }

    /// Registers `holder` in place of `dead`, a process the caller saw is no longer alive;
    /// false when the registration changed meanwhile.
    pub async fn take_over_instance(
        &self,
        holder: &LeaseHolder,
        place: &ProcessPlace,
        dead: &str,
        ttl_ms: i64,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "UPDATE instances SET process = $2, host = $3, pid = $4, started_at = {now},
                 seen_at = {now}, expires_at = {now} + $5
             WHERE instance = $1 AND process = $6"
        );
        let done = sqlx::query(&sql)
            .bind(&holder.instance)
            .bind(&holder.process)
            .bind(&place.host)
            .bind(place.pid)
            .bind(ttl_ms)
            .bind(dead)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Extends `holder`'s registration by `ttl_ms`; false when another process registered
    /// the id (this one's ran out): it must stop acting for any bot at once.
    pub async fn renew_instance(
        &self,
        holder: &LeaseHolder,
        ttl_ms: i64,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let sql = format!(
            "UPDATE instances SET seen_at = {now}, expires_at = {now} + $3
             WHERE instance = $1 AND process = $2"
        );
        let done = sqlx::query(&sql)
            .bind(&holder.instance)
            .bind(&holder.process)
            .bind(ttl_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Ends `holder`'s registration (a clean stop), so a process of the same id may start
    /// at once.
    pub async fn deregister_instance(&self, holder: &LeaseHolder) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM instances WHERE instance = $1 AND process = $2")
            .bind(&holder.instance)
            .bind(&holder.process)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
