//! Isolated databases for integration tests: a fresh SQLite file, and a fresh PostgreSQL
//! schema on the server named by `TEST_DATABASE_URL` when that variable is set.

use rand::Rng;

/// A database URL for one test. Keep the value alive as long as the database is used:
/// it owns the temporary folder of the SQLite file.
pub struct TestDatabase {
    pub url: String,
    pub label: &'static str,
    _dir: Option<TempDir>,
    _schema: Option<PgSchema>,
}

/// A PostgreSQL schema dropped when the test is done with it.
struct PgSchema {
    base_url: String,
    name: String,
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        let (url, name) = (self.base_url.clone(), self.name.clone());
        // Drop may run inside an async test: use a thread with its own small runtime.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                if let Ok(mut conn) = <sqlx::AnyConnection as sqlx::Connection>::connect(&url).await
                {
                    // Never wait long for a lock the blocked test thread might hold: a
                    // schema left behind is harmless, a hung test is not.
                    let sql =
                        format!("SET lock_timeout = '2s'; DROP SCHEMA IF EXISTS {name} CASCADE");
                    let _ = sqlx::Executor::execute(&mut conn, sql.as_str()).await;
                }
            });
        })
        .join();
    }
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
        })
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
