use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::AnyPool;
use sqlx::{Connection, Executor};

use crate::health::StoreHealth;
use crate::pool::TrackedPool;
use crate::repo::rollup::RollupCache;
use crate::StoreError;

// A database already migrated by a newer version is accepted: during a rolling upgrade the
// old instances keep running (and restarting) beside the new (docs/deploy.md, "Upgrades";
// every migration must leave the schema readable by the version before it).
static SQLITE_MIGRATIONS: Migrator = Migrator {
    ignore_missing: true,
    ..sqlx::migrate!("./migrations/sqlite")
};
static POSTGRES_MIGRATIONS: Migrator = Migrator {
    ignore_missing: true,
    ..sqlx::migrate!("./migrations/postgres")
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool to the project's database, migrated to the current schema.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: TrackedPool,
    pub(crate) backend: Backend,
    /// Shared by every clone of this store.
    pub(crate) rollups: Arc<RollupCache>,
    /// Where the store connected: a listener needs a connection of its own. Never shown.
    pub(crate) url: Arc<str>,
}

impl Store {
    /// Connects to `sqlite://path` (the file and its folder are created if missing) or
    /// `postgres://…`, and applies pending migrations.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::InvalidUrl(
                "expected sqlite://PATH or postgres://…".into(),
            ));
        };
        let url = match backend {
            Backend::Sqlite => prepare_sqlite_url(url)?,
            Backend::Postgres => url.to_string(),
        };
        let options =
            AnyConnectOptions::from_str(&url).map_err(|e| StoreError::InvalidUrl(e.to_string()))?;
        let pool = pool_options(backend, Lifetime::Replaceable)
            .max_connections(match backend {
                Backend::Sqlite => 8,
                Backend::Postgres => 16,
            })
            .connect_with(options)
            .await?;
        if backend == Backend::Sqlite {
            // WAL is a property of the file: readers never wait for the writer.
            pool.execute("PRAGMA journal_mode = WAL;").await?;
        }
        Store::migrated(pool, backend, &url).await
    }

    /// Books that live only as long as this store: an in-memory SQLite database on one
    /// connection that is never closed (a backtest's scratch books). The same schema and
    /// statements as a file, without a file's reads and writes, or other connections'
    /// changes to look for before each statement.
    pub async fn in_memory() -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let url = "sqlite::memory:";
        let options =
            AnyConnectOptions::from_str(url).map_err(|e| StoreError::InvalidUrl(e.to_string()))?;
        let pool = pool_options(Backend::Sqlite, Lifetime::WholeStore)
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options)
            .await?;
        Store::migrated(pool, Backend::Sqlite, url).await
    }

    async fn migrated(pool: AnyPool, backend: Backend, url: &str) -> Result<Store, StoreError> {
        let migrator = match backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator.run(&pool).await?;
        let store = Store {
            pool: TrackedPool::new(pool, backend),
            backend,
            rollups: Arc::default(),
            url: Arc::from(url),
        };
        // Migration 0029's data step: SQL alone cannot write the binary candle days.
        crate::repo::candles::move_text_rows(&store).await?;
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether the database is reachable, as the last statements found it (shared by every
    /// clone of this store).
    pub fn health(&self) -> &Arc<StoreHealth> {
        self.pool.health()
    }

    /// Asks the database for `SELECT 1`, giving up after `timeout`, and answers
    /// [`StoreHealth::is_up`] afterwards. A timeout counts as an outage.
    pub async fn check_health(&self, timeout: Duration) -> bool {
        let probe = sqlx::query("SELECT 1").execute(&self.pool);
        if tokio::time::timeout(timeout, probe).await.is_err() {
            self.health()
                .record(&Err::<(), _>(sqlx::Error::PoolTimedOut), false);
        }
        self.health().is_up()
    }

    /// Closes every connection; used on shutdown so SQLite checkpoints its WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Whether a connection may be closed and replaced by a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lifetime {
    Replaceable,
    /// The connection is the database (in memory): closing it would lose everything.
    WholeStore,
}

fn pool_options(backend: Backend, lifetime: Lifetime) -> AnyPoolOptions {
    AnyPoolOptions::new()
        .acquire_timeout(Duration::from_secs(10))
        // A ping before each lent connection finds a network connection that died; a
        // SQLite connection is a file handle in this process, and the ping a round trip to
        // its thread for every statement.
        .test_before_acquire(backend == Backend::Postgres)
        // A transaction that did not end with a COMMIT or ROLLBACK that succeeded (a COMMIT
        // failing on a full disk, a dropped transaction whose rollback failed) may still
        // hold SQLite's write lock, and every later statement on that connection would join
        // it and never commit. Such a connection is closed, which rolls it back, instead of
        // being lent again (seen once by `make faults` after the SQLite outage: "database
        // is locked" for every writer until the server stopped). An in-memory database has
        // no other writer to lock out, and closing its one connection would lose it.
        .after_release(move |conn, _| {
            Box::pin(async move {
                Ok(lifetime == Lifetime::WholeStore || !conn.is_in_transaction())
            })
        })
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    conn.execute("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;")
                        .await?;
                }
                Ok(())
            })
        })
}

/// Creates the SQLite file's folder and asks for the file to be created if missing.
fn prepare_sqlite_url(url: &str) -> Result<String, StoreError> {
    let rest = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if path.is_empty() || path == ":memory:" {
        return Err(StoreError::InvalidUrl(
            "an in-memory SQLite database would lose everything on restart; give a file path"
                .into(),
        ));
    }
    if let Some(parent) = Path::new(path).parent() {
        if !parent.as_os_str().is_empty() {
            std::fs::create_dir_all(parent)?;
        }
    }
    let mut params: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
    if !params.iter().any(|p| p.starts_with("mode=")) {
        params.push("mode=rwc");
    }
    Ok(format!("sqlite://{path}?{}", params.join("&")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_url_gets_create_mode() {
        let dir = std::env::temp_dir().join("sd-store-url-test");
        let url = format!("sqlite://{}/x.db", dir.display());
        let prepared = prepare_sqlite_url(&url).expect("valid url");
        assert!(prepared.ends_with("x.db?mode=rwc"), "{prepared}");
        assert!(dir.exists());
    }

    #[test]
    fn memory_sqlite_is_refused() {
        assert!(matches!(
            prepare_sqlite_url("sqlite::memory:"),
            Err(StoreError::InvalidUrl(_))
        ));
    }
    /// Migration 0033 writes SQLite's `fills` anew: every fill of a trade is kept with its id,
    /// one left with no trade goes, and new fills keep counting from where they were.
    #[tokio::test]
    async fn sqlite_fills_keep_their_ids_through_migration_0033() {
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir().unwrap();
        let url = prepare_sqlite_url(&format!(
            "sqlite://{}",
            dir.path().join("upgrade.db").display()
        ))
        .unwrap();
        let before = Migrator {
            migrations: SQLITE_MIGRATIONS
                .migrations
                .iter()
                .filter(|m| m.version < 33)
                .cloned()
                .collect(),
            ..Migrator::DEFAULT
        };
        let pool = AnyPool::connect(&url).await.unwrap();
        before.run(&pool).await.unwrap();
        for sql in [
            "INSERT INTO users (id, username, password_hash, created_at) VALUES (1, 'a', 'h', 0)",
            "INSERT INTO trades (id, user_id, symbol, side, status, client_order_id, leverage,
                 margin, qty, open_qty, closed_qty, exit_value, pnl, fees, volume, tp_step,
                 created_at)
             VALUES (7, 1, 'BTCUSDT', 'long', 'OPEN', 'o-7', 1, '10', '1', '1', '0', '0', '0',
                 '0', '0', 0, 0)",
            "INSERT INTO fills (id, user_id, trade_id, notional, filled_at, venue_id)
             VALUES (3, 1, 7, '100', 1000, 'paper-1'), (5, 1, NULL, '5', 2000, NULL),
                    (9, 1, 7, '7', 3000, NULL)",
            "DELETE FROM fills WHERE id = 9",
        ] {
            sqlx::query(sql).execute(&pool).await.unwrap();
        }
        pool.close().await;

        let store = Store::connect(&url).await.unwrap();
        let kept: Vec<(i64, i64, String, Option<String>)> =
            sqlx::query_as("SELECT id, trade_id, notional, venue_id FROM fills ORDER BY id")
                .fetch_all(&store.pool)
                .await
                .unwrap();
        assert_eq!(
            kept,
            [(3, 7, "100".to_string(), Some("paper-1".to_string()))]
        );
        store
            .insert_fill(1, 7, rust_decimal::Decimal::ONE, 4000)
            .await
            .unwrap();
        let newest: i64 = sqlx::query_scalar("SELECT MAX(id) FROM fills")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(newest, 10, "the deleted fill's id is not given again");
        store.close().await;
    }
}
