//! Isolated databases for integration tests: a fresh SQLite file, and a fresh PostgreSQL
//! schema (or a whole database, for tests that cut it off) on the server named by
//! `TEST_DATABASE_URL` when that variable is set; and the means to make a database
//! unreachable for degraded-mode tests.

use rand::Rng;

/// A database URL for one test. Keep the value alive as long as the database is used:
/// it owns the temporary folder of the SQLite file.
pub struct TestDatabase {
    pub url: String,
    pub label: &'static str,
    _dir: Option<TempDir>,
    _schema: Option<PgSchema>,
    database: Option<PgDatabase>,
}

/// A PostgreSQL database of the test's own, dropped when the test is done with it.
struct PgDatabase {
    base_url: String,
    name: String,
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        run_detached(self.base_url.clone(), sql);
    }
}

/// A PostgreSQL schema dropped when the test is done with it.
struct PgSchema {
    base_url: String,
    name: String,
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        // Never wait long for a lock the blocked test thread might hold: a schema left
        // behind is harmless, a hung test is not.
        let sql = format!(
            "SET lock_timeout = '2s'; DROP SCHEMA IF EXISTS {} CASCADE",
            self.name
        );
        run_detached(self.base_url.clone(), sql);
    }
}

/// Runs `sql` on `url`, ignoring failures. Drop may run inside an async test: this uses a
/// thread with its own small runtime.
fn run_detached(url: String, sql: String) {
    let _ = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            if let Ok(mut conn) = <sqlx::AnyConnection as sqlx::Connection>::connect(&url).await {
                let _ = sqlx::Executor::execute(&mut conn, sql.as_str()).await;
            }
        });
    })
    .join();
}

/// A folder removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn unique_name() -> String {
    let n: u64 = rand::thread_rng().gen();
    format!("t{n:016x}")
}

impl TestDatabase {
    pub fn sqlite() -> TestDatabase {
        let dir = std::env::temp_dir().join(format!("signaldesk-test-{}", unique_name()));
        let url = format!("sqlite://{}/test.db", dir.display());
        TestDatabase {
            url,
            label: "sqlite",
            _dir: Some(TempDir(dir)),
            _schema: None,
            database: None,
        }
    }

    /// A fresh schema on `TEST_DATABASE_URL`, or `None` when the variable is unset.
    pub async fn postgres() -> Option<TestDatabase> {
        let base = std::env::var("TEST_DATABASE_URL").ok()?;
        let schema = unique_name();
        sqlx::any::install_default_drivers();
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&base)
            .await
            .expect("TEST_DATABASE_URL must point at a reachable PostgreSQL");
        sqlx::Executor::execute(&mut conn, format!("CREATE SCHEMA {schema}").as_str())
            .await
            .expect("create test schema");
        let sep = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{sep}options=-c%20search_path%3D{schema}");
        Some(TestDatabase {
            url,
            label: "postgres",
            _dir: None,
            _schema: Some(PgSchema {
                base_url: base,
                name: schema,
            }),
            database: None,
        })
    }

    /// A fresh database on the server of `TEST_DATABASE_URL` (which must allow `CREATE
    /// DATABASE`), or `None` when the variable is unset. Only such a database can be cut off
    /// with [`TestDatabase::allow_connections`] without touching the other tests'.
    pub async fn postgres_database() -> Option<TestDatabase> {
        let base = std::env::var("TEST_DATABASE_URL").ok()?;
        let name = format!("signaldesk_{}", unique_name());
        admin(&base, &format!("CREATE DATABASE {name}")).await;
        let (location, query) = base.split_once('?').unwrap_or((base.as_str(), ""));
        let server = location
            .rsplit_once('/')
            .map_or(location, |(server, _)| server);
        let url = match query {
            "" => format!("{server}/{name}"),
            query => format!("{server}/{name}?{query}"),
        };
        Some(TestDatabase {
            url,
            label: "postgres",
            _dir: None,
            _schema: None,
            database: Some(PgDatabase {
                base_url: base,
                name,
            }),
        })
    }

    /// Refuses (`false`) or accepts again (`true`) connections to a
    /// [`TestDatabase::postgres_database`], as an administrator would; refusing also ends the
    /// open ones, so the server in front of it loses its database at once.
    ///
    /// # Panics
    /// On any other kind of test database: that is a mistake in the test.
    pub async fn allow_connections(&self, allowed: bool) {
        let db = self
            .database
            .as_ref()
            .expect("allow_connections needs TestDatabase::postgres_database");
        admin(
            &db.base_url,
            &format!("ALTER DATABASE {} ALLOW_CONNECTIONS {allowed}", db.name),
        )
        .await;
        if !allowed {
            admin(
                &db.base_url,
                &format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = '{}' AND pid <> pg_backend_pid()",
                    db.name
                ),
            )
            .await;
        }
    }

    /// [`TestDatabase::all`], each connected and migrated.
    pub async fn all_connected() -> Vec<(TestDatabase, crate::Store)> {
        let mut out = Vec::new();
        for db in TestDatabase::all().await {
            let store = crate::Store::connect(&db.url)
                .await
                .expect("connect and migrate");
            out.push((db, store));
        }
        out
    }

    /// SQLite always, PostgreSQL too when `TEST_DATABASE_URL` is set.
    pub async fn all() -> Vec<TestDatabase> {
        let mut all = vec![TestDatabase::sqlite()];
        all.extend(TestDatabase::postgres().await);
        all
    }
}

/// Runs one administrative statement on the server of `TEST_DATABASE_URL`.
async fn admin(base_url: &str, sql: &str) {
    sqlx::any::install_default_drivers();
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(base_url)
        .await
        .expect("TEST_DATABASE_URL must point at a reachable PostgreSQL");
    sqlx::Executor::execute(&mut conn, sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

impl crate::Store {
    /// Runs `sql`, a per-connection setting such as `PRAGMA query_only = 1`, on every
    /// connection the pool can hand out: it holds all of them at once, opening the missing
    /// ones, so no statement runs without the setting afterwards.
    pub async fn on_every_connection(&self, sql: &str) -> Result<(), sqlx::Error> {
        let pool = self.pool.inner();
        let mut held = Vec::new();
        for _ in 0..pool.options().get_max_connections() {
            let mut conn = pool.acquire().await?;
            sqlx::Executor::execute(&mut *conn, sql).await?;
            held.push(conn);
        }
        Ok(())
    }
}
