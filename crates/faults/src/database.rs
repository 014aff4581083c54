//! The harness's own database, and how it takes it away and gives it back.
//!
//! * SQLite: the database file lives on a small tmpfs the harness mounts; the outage fills
//!   that file system with a filler file (every write that needs a new page fails with "disk
//!   full"; file permissions would not stop root) and the recovery deletes the filler.
//! * PostgreSQL: a database `faults_<pid>` made beside the given one; the outage refuses new
//!   connections (`ALLOW CONNECTIONS false`) and ends the open ones, the recovery allows them
//!   again. The shared server itself is never stopped.
//!
//! [`Database::remove`] unmounts or drops it; call it whatever the scenario's outcome.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use reqwest::Url;
use sqlx::{Connection, PgConnection, Row, SqliteConnection};

use crate::options::Backend;

/// Size of the SQLite tmpfs: room for the run's database many times over, little enough to
/// fill in a moment.
const TMPFS_SIZE: &str = "64m";

pub enum Database {
    Sqlite {
        mount: PathBuf,
    },
    Postgres {
        admin_url: String,
        name: String,
        url: String,
    },
}

impl Database {
    /// Makes the database for `backend` under `dir`.
    pub async fn create(backend: &Backend, dir: &Path) -> anyhow::Result<Database> {
        match backend {
            Backend::Sqlite => {
                let mount = dir.join("sqlite-tmpfs");
                std::fs::create_dir_all(&mount)?;
                run_tool(
                    "mount",
                    &[
                        "-t",
                        "tmpfs",
                        "-o",
                        &format!("size={TMPFS_SIZE}"),
                        "tmpfs",
                        path_str(&mount)?,
                    ],
                )
                .context("the SQLite outage needs a tmpfs of its own (run as root)")?;
                Ok(Database::Sqlite { mount })
            }
            Backend::Postgres { server_url } => {
                let name = format!("faults_{}", std::process::id());
                let mut url = Url::parse(server_url).context("--postgres is not a URL")?;
                let mut admin = PgConnection::connect(server_url)
                    .await
                    .with_context(|| format!("cannot connect to {server_url}"))?;
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut admin)
                    .await?;
                sqlx::query(&format!("CREATE DATABASE {name}"))
                    .execute(&mut admin)
                    .await
                    .with_context(|| format!("cannot create database {name}"))?;
                admin.close().await?;
                url.set_path(&format!("/{name}"));
                Ok(Database::Postgres {
                    admin_url: server_url.clone(),
                    name,
                    url: url.to_string(),
                })
            }
        }
    }

    /// The `--database` URL of the server.
    pub fn url(&self) -> String {
        match self {
            Database::Sqlite { mount } => {
                format!("sqlite://{}", mount.join("signaldesk.db").display())
            }
            Database::Postgres { url, .. } => url.clone(),
        }
    }

    /// The executions booked for `user_id` (`fills` rows carrying the venue's id: each
    /// opening fill and each close, every one an order on the venue).
    pub async fn booked_executions(&self, user_id: i64) -> anyhow::Result<usize> {
        self.count(
            "SELECT COUNT(*) AS n FROM fills WHERE user_id = $1 AND venue_id IS NOT NULL",
            user_id,
        )
        .await
    }

    /// The webhook alerts of `user_id` stored as signals, and those kept and not yet acted
    /// on (docs/alerts.md: every accepted alert is kept until acted on).
    pub async fn webhook_alerts(&self, user_id: i64) -> anyhow::Result<(usize, usize)> {
        let stored = self
            .count(
                "SELECT COUNT(*) AS n FROM signals WHERE user_id = $1 AND source = 'webhook'",
                user_id,
            )
            .await?;
        let waiting = self
            .count(
                "SELECT COUNT(*) AS n FROM webhook_deliveries
                 WHERE user_id = $1 AND acted_at IS NULL",
                user_id,
            )
            .await?;
        Ok((stored, waiting))
    }

    /// `sql`'s `n` for `user_id`, on a connection of its own.
    async fn count(&self, sql: &str, user_id: i64) -> anyhow::Result<usize> {
        let n: i64 = match self {
            Database::Sqlite { .. } => {
                let mut conn = SqliteConnection::connect(&self.url()).await?;
                let n = sqlx::query(sql)
                    .bind(user_id)
                    .fetch_one(&mut conn)
                    .await?
                    .try_get("n")?;
                conn.close().await?;
                n
            }
            Database::Postgres { url, .. } => {
                let mut conn = PgConnection::connect(url).await?;
                let n = sqlx::query(sql)
                    .bind(user_id)
                    .fetch_one(&mut conn)
                    .await?
                    .try_get("n")?;
                conn.close().await?;
                n
            }
        };
        usize::try_from(n).context("a negative count")
    }

    /// Takes the database away.
    pub async fn break_down(&self) -> anyhow::Result<()> {
        match self {
            Database::Sqlite { mount } => fill(&filler(mount)),
            Database::Postgres {
                admin_url, name, ..
            } => {
                let mut admin = PgConnection::connect(admin_url).await?;
                sqlx::query(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false"))
                    .execute(&mut admin)
                    .await?;
                sqlx::query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = $1 AND pid <> pg_backend_pid()",
                )
                .bind(name)
                .execute(&mut admin)
                .await?;
                admin.close().await?;
                Ok(())
            }
        }
    }

    /// Gives the database back.
    pub async fn recover(&self) -> anyhow::Result<()> {
        match self {
            Database::Sqlite { mount } => {
                std::fs::remove_file(filler(mount)).context("cannot remove the filler file")
            }
            Database::Postgres {
                admin_url, name, ..
            } => {
                let mut admin = PgConnection::connect(admin_url).await?;
                sqlx::query(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
                    .execute(&mut admin)
                    .await?;
                admin.close().await?;
                Ok(())
            }
        }
    }

    /// Unmounts the tmpfs or drops the database.
    pub async fn remove(self) -> anyhow::Result<()> {
        match self {
            // Lazy: a server killed on the way out may still hold the file for a moment.
            Database::Sqlite { mount } => run_tool("umount", &["--lazy", path_str(&mount)?]),
            Database::Postgres {
                admin_url, name, ..
            } => {
                let mut admin = PgConnection::connect(&admin_url).await?;
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut admin)
                    .await
                    .with_context(|| format!("cannot drop database {name}"))?;
                admin.close().await?;
                Ok(())
            }
        }
    }
}

fn filler(mount: &Path) -> PathBuf {
    mount.join("filler")
}

/// Writes `path` until the file system is full.
fn fill(path: &Path) -> anyhow::Result<()> {
    let mut file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let chunk = vec![0u8; 1 << 20];
    loop {
        match file.write(&chunk) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::StorageFull => return Ok(()),
            Err(e) => return Err(e).context("cannot fill the tmpfs"),
        }
    }
}

fn path_str(path: &Path) -> anyhow::Result<&str> {
    path.to_str()
        .with_context(|| format!("{} is not UTF-8", path.display()))
}

/// Runs a system tool (mount, umount) and fails with its message.
fn run_tool(tool: &str, args: &[&str]) -> anyhow::Result<()> {
    let out = std::process::Command::new(tool)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {tool}"))?;
    if !out.status.success() {
        bail!(
            "`{tool} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}
