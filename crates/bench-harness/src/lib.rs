//! What the out-of-process benchmarks (`signaldesk-history-bench`, `signaldesk-load`) share:
//! a fresh database of the run's own ([`Database`]: a temporary SQLite file, or a new
//! PostgreSQL database on `TEST_DATABASE_URL`'s server, dropped afterwards), the `signaldesk`
//! command line ([`signaldesk`]) and `signaldesk serve` on a free port, killed by its own pid
//! when dropped ([`Server`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rand::Rng;

/// A PostgreSQL database of the run's own, dropped when done with.
pub struct PgDatabase {
    admin_url: String,
    name: String,
}

impl PgDatabase {
    /// Creates `sd_<prefix>_<random>` on `base`'s server; returns it and its URL.
    pub async fn create(base: &str, prefix: &str) -> anyhow::Result<(PgDatabase, String)> {
        let name = format!("sd_{prefix}_{:08x}", rand::thread_rng().gen::<u32>());
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(base).await?;
        sqlx::Executor::execute(&mut conn, format!("CREATE DATABASE {name}").as_str()).await?;
        let url = match base.rfind('/') {
            Some(slash) if slash > "postgres://".len() => format!("{}/{name}", &base[..slash]),
            _ => bail!("TEST_DATABASE_URL must name a database: postgres://…/db"),
        };
        let db = PgDatabase {
            admin_url: base.to_string(),
            name,
        };
        Ok((db, url))
    }

    pub async fn drop_now(self) -> anyhow::Result<()> {
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&self.admin_url).await?;
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        sqlx::Executor::execute(&mut conn, sql.as_str()).await?;
        Ok(())
    }
}

/// `sqlite` or `postgres`: a fresh database and a temporary folder (the data dir, logs).
pub struct Database {
    pub backend: &'static str,
    pub url: String,
    pub dir: tempfile::TempDir,
    pg: Option<PgDatabase>,
}

impl Database {
    /// `sqlite`: a file in a new temporary folder; `postgres`: a new database on
    /// `TEST_DATABASE_URL`'s server (call [`Database::drop_now`] when done).
    pub async fn create(backend: &str, prefix: &str) -> anyhow::Result<Database> {
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir()?;
        match backend {
            "sqlite" => Ok(Database {
                backend: "sqlite",
                url: format!("sqlite://{}", dir.path().join("bench.db").display()),
                dir,
                pg: None,
            }),
            "postgres" => {
                let base = std::env::var("TEST_DATABASE_URL")
                    .context("postgres needs TEST_DATABASE_URL (postgres://…/db)")?;
                let (pg, url) = PgDatabase::create(&base, prefix).await?;
                Ok(Database {
                    backend: "postgres",
                    url,
                    dir,
                    pg: Some(pg),
                })
            }
            other => bail!("a database is sqlite or postgres, not {other}"),
        }
    }

    /// The data dir (master key) every command and server of the run shares.
    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Drops the PostgreSQL database (the temporary folder goes when `self` is dropped).
    pub async fn drop_now(self) -> anyhow::Result<()> {
        if let Some(pg) = self.pg {
            pg.drop_now().await?;
        }
        Ok(())
    }
}

/// Runs `signaldesk ARGS --database URL --data-dir DATA`; returns how long it took.
pub fn signaldesk(bin: &Path, args: &[&str], url: &str, data: &Path) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let out = Command::new(bin)
        .args(args)
        .args(["--database", url, "--data-dir"])
        .arg(data)
        .output()
        .with_context(|| format!("cannot run {}", bin.display()))?;
    if !out.status.success() {
        bail!(
            "signaldesk {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(started.elapsed())
}

pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// `signaldesk serve`, killed (by its own pid) when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub port: u16,
}

impl Server {
    /// Starts `signaldesk serve` on a free port of 127.0.0.1 with the database and data dir,
    /// its log lines to `log` (none when `None`), and waits until `/healthz` answers 200.
    pub async fn start(
        bin: &Path,
        url: &str,
        data: &Path,
        log: Option<&Path>,
    ) -> anyhow::Result<Server> {
        let port = free_port()?;
        let addr = format!("127.0.0.1:{port}");
        let stderr = match log {
            Some(path) => Stdio::from(std::fs::File::create(path)?),
            None => Stdio::null(),
        };
        let child = Command::new(bin)
            .args(["serve", "--addr", &addr, "--database", url, "--data-dir"])
            .arg(data)
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("cannot run {}", bin.display()))?;
        let server = Server {
            child,
            base: format!("http://{addr}"),
            port,
        };
        let client = reqwest::Client::new();
        let ready = Instant::now();
        loop {
            let up = client.get(format!("{}/healthz", server.base)).send().await;
            if up.is_ok_and(|r| r.status().is_success()) {
                return Ok(server);
            }
            if ready.elapsed() > Duration::from_secs(60) {
                bail!("the server did not answer /healthz within 60 s");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How the process ended, if it has.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
