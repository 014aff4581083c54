//! The harness's command line: which binary, which databases, how many faults, which seed.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use clap::{Parser, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "signaldesk-faults",
    about = "SIGKILLs, a database outage and (PostgreSQL) failovers between two instances against the real signaldesk binary running a paper user and a Bybit demo user (on a fake Bybit in the harness), each followed by `signaldesk audit`"
)]
pub struct Options {
    /// The `signaldesk` binary to drive (`cargo build -p signaldesk-server` makes
    /// target/debug/signaldesk).
    #[arg(long, env = "SIGNALDESK_BIN")]
    pub bin: PathBuf,
    /// Seed of the fault schedule; a fresh one (printed) when omitted.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Databases to run on.
    #[arg(long, value_enum, default_value = "both")]
    pub backend: BackendChoice,
    /// A PostgreSQL server to make the harness's own database on (any database of it that
    /// the user can connect to; the harness creates `faults_<pid>` beside it and drops it).
    /// Without it the PostgreSQL run is skipped, as the test suites skip theirs.
    #[arg(long, env = "TEST_DATABASE_URL")]
    pub postgres: Option<String>,
    /// SIGKILLs per database.
    #[arg(long, default_value_t = 20)]
    pub kills: u32,
    /// How long the database is away.
    #[arg(long, default_value_t = 30)]
    pub outage_secs: u64,
    /// How long the bot runs on after the database is back, before the last audit.
    #[arg(long, default_value_t = 20)]
    pub recovery_secs: u64,
    /// How long a restarted server runs before it is stopped gracefully and audited.
    #[arg(long, default_value_t = 2)]
    pub settle_secs: u64,
    /// PostgreSQL only: SIGKILLs of the instance running the bot while a second instance
    /// waits, each of which must hand the bot over within 15 s.
    #[arg(long, default_value_t = 3)]
    pub failovers: u32,
    /// Keep the working folder (logs, data dirs) even when everything passed.
    #[arg(long)]
    pub keep: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    Sqlite,
    Postgres,
    Both,
}

/// One database to run the scenario on.
#[derive(Clone, Debug)]
pub enum Backend {
    Sqlite,
    /// The server the harness makes its database on.
    Postgres {
        server_url: String,
    },
}

impl Backend {
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres { .. } => "postgres",
        }
    }
}

impl Options {
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        })
    }

    /// The backends to run, in order; PostgreSQL only with a server to run it on.
    pub fn backends(&self) -> anyhow::Result<Vec<Backend>> {
        let postgres = || {
            self.postgres
                .clone()
                .map(|server_url| Backend::Postgres { server_url })
        };
        Ok(match (self.backend, postgres()) {
            (BackendChoice::Sqlite, _) => vec![Backend::Sqlite],
            (BackendChoice::Postgres, Some(pg)) => vec![pg],
            (BackendChoice::Postgres, None) => {
                bail!("--backend postgres needs --postgres URL (or TEST_DATABASE_URL)")
            }
            (BackendChoice::Both, Some(pg)) => vec![Backend::Sqlite, pg],
            (BackendChoice::Both, None) => {
                println!(
                    "signaldesk-faults: no --postgres / TEST_DATABASE_URL: PostgreSQL is skipped"
                );
                vec![Backend::Sqlite]
            }
        })
    }

    pub fn outage(&self) -> Duration {
        Duration::from_secs(self.outage_secs)
    }

    pub fn recovery(&self) -> Duration {
        Duration::from_secs(self.recovery_secs)
    }

    pub fn settle(&self) -> Duration {
        Duration::from_secs(self.settle_secs)
    }
}
