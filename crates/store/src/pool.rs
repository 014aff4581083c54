//! The connection pool every repository runs its statements on: sqlx's pool, with each
//! statement's outcome reported to the store's [`StoreHealth`], and a failure to get a
//! connection always reported as an outage.
//!
//! Repositories write `.fetch_one(&self.pool)` as with a plain pool; `begin` opens a
//! transaction (statements inside it are not reported one by one, their errors still classify).

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream};
use futures::{StreamExt, TryStreamExt};
use sqlx::any::{AnyQueryResult, AnyRow, AnyTypeInfo};
use sqlx::{Any, AnyPool, Describe, Either, Execute, Executor, Transaction};

use crate::error::outage;
use crate::health::StoreHealth;
use crate::Backend;

#[derive(Clone)]
pub(crate) struct TrackedPool {
    pool: AnyPool,
    health: Arc<StoreHealth>,
    /// Set on a bot worker's store under a lease (`Store::fenced`): every write and every
    /// transaction first checks, in its own transaction, that the tenure still holds.
    fence: Option<Fence>,
    /// SQLite: transactions take the write lock when they begin (`BEGIN IMMEDIATE`).
    write_lock_first: bool,
}

/// A tenure of a user's lease (PostgreSQL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence {
    pub user_id: i64,
    pub token: i64,
}

/// The check a fenced write runs first. `FOR SHARE` holds the lease row until the write
/// commits, so a new tenure (which updates the row) cannot begin in the middle of it.
const FENCE_CHECK: &str = "SELECT 1 FROM bot_leases WHERE user_id = $1 AND token = $2
     AND expires_at >= (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT FOR SHARE";

/// What a fenced write fails with when its tenure is over: nothing was written.
#[derive(Debug, thiserror::Error)]
#[error("the lease on the user's bot ended: nothing is written under it")]
pub struct LeaseEnded;

async fn check_fence(conn: &mut sqlx::AnyConnection, fence: Fence) -> Result<(), sqlx::Error> {
    let held = sqlx::query(FENCE_CHECK)
        .bind(fence.user_id)
        .bind(fence.token)
        .fetch_optional(&mut *conn)
        .await?;
    match held {
        Some(_) => Ok(()),
        None => Err(sqlx::Error::Configuration(Box::new(LeaseEnded))),
    }
}

impl fmt::Debug for TrackedPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrackedPool").finish_non_exhaustive()
    }
}

impl TrackedPool {
    pub(crate) fn new(pool: AnyPool, backend: Backend) -> TrackedPool {
        TrackedPool {
            pool,
            health: Arc::new(StoreHealth::default()),
            fence: None,
            write_lock_first: backend == Backend::Sqlite,
        }
    }

    /// The same pool, its writes fenced by `fence`.
    pub(crate) fn fenced(&self, fence: Fence) -> TrackedPool {
        TrackedPool {
            fence: Some(fence),
            ..self.clone()
        }
    }

    pub(crate) fn health(&self) -> &Arc<StoreHealth> {
        &self.health
    }

    /// A transaction for a write. On SQLite it holds the write lock from its `BEGIN`: a
    /// deferred transaction that reads first and then writes fails at once with
    /// SQLITE_BUSY_SNAPSHOT when another connection committed in between (its snapshot is
    /// stale, so waiting cannot help: <https://www.sqlite.org/rescode.html#busy_snapshot>),
    /// where `BEGIN IMMEDIATE` waits its turn under the busy timeout instead.
    pub(crate) async fn begin(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        let outcome = if self.write_lock_first {
            self.pool.begin_with("BEGIN IMMEDIATE").await
        } else {
            self.pool.begin().await
        }
        .map_err(not_connected);
        self.health.record(&outcome, false);
        let mut tx = outcome?;
        if let Some(fence) = self.fence {
            check_fence(&mut tx, fence).await?;
        }
        Ok(tx)
    }

    /// Runs a write on `conn`, in a transaction behind the fence when there is one; its rows.
    async fn write<'q, E>(
        &self,
        conn: &mut sqlx::AnyConnection,
        query: E,
    ) -> Result<Vec<Either<AnyQueryResult, AnyRow>>, sqlx::Error>
    where
        E: 'q + Execute<'q, Any>,
    {
        let Some(fence) = self.fence else {
            return conn.fetch_many(query).try_collect().await;
        };
        let mut tx = sqlx::Connection::begin(conn).await?;
        check_fence(&mut tx, fence).await?;
        let steps = tx.fetch_many(query).try_collect().await?;
        tx.commit().await?;
        Ok(steps)
    }

    /// One connection for a few statements in a row (not reported one by one, as in a
    /// transaction; failing to get it is).
    pub(crate) async fn acquire(&self) -> Result<sqlx::pool::PoolConnection<Any>, sqlx::Error> {
        let outcome = self.pool.acquire().await.map_err(not_connected);
        self.health.record(&outcome, false);
        outcome
    }

    /// The plain pool, for test helpers that must reach every connection.
    #[cfg(feature = "test-support")]
    pub(crate) fn inner(&self) -> &AnyPool {
        &self.pool
    }

    pub(crate) async fn close(&self) {
        self.pool.close().await;
    }
}

/// A pool that cannot hand out a connection means the database is unreachable, whatever the
/// server said while refusing (PostgreSQL answers, for example, 55000 "database is not
/// currently accepting connections"): such errors become I/O errors, which classify as an
/// outage, keeping the original as their source.
fn not_connected(err: sqlx::Error) -> sqlx::Error {
    if outage(&err).is_some() {
        return err;
    }
    sqlx::Error::Io(std::io::Error::new(std::io::ErrorKind::NotConnected, err))
}

/// Whether a statement changes data: anything but a query.
fn is_write(sql: &str) -> bool {
    let first = sql.split_whitespace().next().unwrap_or("");
    !(first.eq_ignore_ascii_case("SELECT") || first.eq_ignore_ascii_case("WITH"))
}

impl<'p> Executor<'p> for &'p TrackedPool {
    type Database = Any;

    /// The rows are gathered before the connection goes back to the pool: every query of the
    /// store is bounded (`LIMIT`, one user's period), and the outcome is known in one place.
    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<AnyQueryResult, AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let write = is_write(query.sql());
        let all = async move {
            let outcome = async {
                let mut conn = self.pool.acquire().await.map_err(not_connected)?;
                if write {
                    return self.write(&mut conn, query).await;
                }
                conn.fetch_many(query).try_collect::<Vec<_>>().await
            }
            .await;
            self.health.record(&outcome, write);
            outcome
        };
        stream::once(all)
            .map_ok(|steps| stream::iter(steps.into_iter().map(Ok)))
            .try_flatten()
            .boxed()
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let write = is_write(query.sql());
        Box::pin(async move {
            let outcome = async {
                let mut conn = self.pool.acquire().await.map_err(not_connected)?;
                if !write {
                    return conn.fetch_optional(query).await;
                }
                // A write's rows (`RETURNING`) are read to its end. SQLite commits a statement
                // outside a transaction when it finishes, and a commit that fails (a full
                // disk) shows only at that last step: stopping at the first row answered
                // success for an INSERT the database had rolled back, and the trading worker
                // sent an order for a trade that was never stored.
                let steps = self.write(&mut conn, query).await?;
                Ok(steps.into_iter().find_map(|step| step.right()))
            }
            .await;
            self.health.record(&outcome, write);
            outcome
        })
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [AnyTypeInfo],
    ) -> BoxFuture<'e, Result<<Any as sqlx::Database>::Statement<'q>, sqlx::Error>>
    where
        'p: 'e,
    {
        (&self.pool).prepare_with(sql, parameters)
    }

    fn describe<'e, 'q: 'e>(self, sql: &'q str) -> BoxFuture<'e, Result<Describe<Any>, sqlx::Error>>
    where
        'p: 'e,
    {
        (&self.pool).describe(sql)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_everything_but_queries() {
        assert!(!is_write("SELECT 1"));
        assert!(!is_write("\n  select id FROM users"));
        assert!(!is_write("WITH x AS (SELECT 1) SELECT * FROM x"));
        assert!(is_write("INSERT INTO bot_logs VALUES (1)"));
        assert!(is_write("UPDATE users SET x = 1"));
        assert!(is_write(""));
    }

    /// A transaction that reads, then writes after another connection committed a write:
    /// under a deferred `BEGIN` SQLite refuses its write with SQLITE_BUSY_SNAPSHOT (an API
    /// 500); holding the write lock from its `BEGIN`, the other write waits for its commit.
    #[tokio::test]
    async fn a_sqlite_transaction_that_reads_first_still_writes() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("lock.db").display());
        let store = crate::Store::connect(&url).await.unwrap();
        let pool = store.pool.clone();
        sqlx::query("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO counters (id, n) VALUES (1, 0)")
            .execute(&pool)
            .await
            .unwrap();

        let mut tx = pool.begin().await.unwrap();
        let read: i64 = sqlx::query_scalar("SELECT n FROM counters WHERE id = 1")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        let other = {
            let pool = pool.clone();
            tokio::spawn(async move {
                sqlx::query("UPDATE counters SET n = n + 10 WHERE id = 1")
                    .execute(&pool)
                    .await
            })
        };
        // Time for the other write to commit, were it not made to wait.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        sqlx::query("UPDATE counters SET n = $1 WHERE id = 1")
            .bind(read + 1)
            .execute(&mut *tx)
            .await
            .expect("the transaction's write, after its read");
        tx.commit().await.unwrap();
        other
            .await
            .unwrap()
            .expect("the other write, after the commit");

        let n: i64 = sqlx::query_scalar("SELECT n FROM counters WHERE id = 1")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(n, 11, "the transaction's write, then the other one");
        store.close().await;
    }
}
