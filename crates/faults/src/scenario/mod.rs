//! One database's run: a trader's paper bot set up through the API, the SIGKILLs (each
//! followed by a restart, a graceful stop and an audit), the database outage (followed by a
//! recovery, a graceful stop and an audit), and the figures.

use std::time::{Duration, Instant};

use anyhow::Context;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::alerts::{Burst, Tally};
use crate::api::Api;
use crate::audit;
use crate::database::Database;
use crate::options::{Backend, Options};
use crate::process::{Server, Signaldesk};
use crate::report::Report;
use crate::wait;

mod failover;

pub use failover::FailoverReport;

const USERNAME: &str = "faults";
const PASSWORD: &str = "faults-password-1";
/// The simulated market's speed: a 15-minute candle every 5 s, so signals, stops and take
/// profits come often.
const MARKET_SPEED: &str = "180";
/// How long the server may take to resume its bot, or the database to be reachable again.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the universe may take to get its first rated candles.
const SIGNALS_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the scenario on `backend` in a working folder of its own (kept when something
/// failed); the database is removed whatever happens.
pub async fn run(options: &Options, backend: &Backend, seed: u64) -> anyhow::Result<Report> {
    let name = backend.name();
    let dir = tempfile::Builder::new()
        .prefix(&format!("signaldesk-faults-{name}-"))
        .tempdir()?;
    println!("[{name}] seed {seed}, working in {}", dir.path().display());
    let database = Database::create(backend, dir.path()).await?;
    let result = match Run::new(options, backend, seed, &database, dir.path()) {
        Ok(run) => run.go().await,
        Err(e) => Err(e),
    };
    let removed = database.remove().await;
    if result.is_err() || removed.is_err() || options.keep {
        let kept = dir.keep();
        println!("[{name}] logs kept in {}", kept.display());
    }
    let report = result?;
    removed?;
    Ok(report)
}

/// How a SIGKILL meets the bot.
#[derive(Debug, Clone, Copy)]
enum Moment {
    /// While a burst of alerts is being posted, `after` its start.
    MidBurst { after: Duration },
    /// Right after the last alert of a burst was accepted: entries in flight.
    AfterBurst,
    /// Nothing posted just then: the bot manages its positions on the market's ticks.
    Idle,
}

impl std::fmt::Display for Moment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Moment::MidBurst { after } => {
                write!(f, "{} ms into a burst of alerts", after.as_millis())
            }
            Moment::AfterBurst => write!(f, "right after a burst of alerts"),
            Moment::Idle => write!(f, "no alert in flight"),
        }
    }
}

impl Moment {
    fn choose(rng: &mut StdRng) -> Moment {
        match rng.gen_range(0..3) {
            0 => Moment::MidBurst {
                after: Duration::from_millis(rng.gen_range(0..400)),
            },
            1 => Moment::AfterBurst,
            _ => Moment::Idle,
        }
    }
}

struct Run<'a> {
    options: &'a Options,
    database: &'a Database,
    backend: &'a Backend,
    /// The working folder: data dirs and logs.
    dir: std::path::PathBuf,
    name: &'static str,
    signaldesk: Signaldesk,
    rng: StdRng,
    starts: u32,
    report: Report,
}

impl<'a> Run<'a> {
    fn new(
        options: &'a Options,
        backend: &'a Backend,
        seed: u64,
        database: &'a Database,
        dir: &std::path::Path,
    ) -> anyhow::Result<Run<'a>> {
        let name = backend.name();
        let env = vec![
            ("SIGNALDESK_DATABASE_URL".into(), database.url()),
            (
                "SIGNALDESK_DATA_DIR".into(),
                dir.join("data").display().to_string(),
            ),
            ("SIGNALDESK_MARKET__SPEED".into(), MARKET_SPEED.into()),
            // One instance id across restarts: a restarted server takes its dead
            // predecessor's lease at once (PostgreSQL) rather than wait for it to run out.
            ("SIGNALDESK_INSTANCE_ID".into(), "faults".into()),
            // The bursts post far more than a person's alerts.
            (
                "SIGNALDESK_WEBHOOK_ALERTS_PER_MINUTE".into(),
                "100000".into(),
            ),
        ];
        Ok(Run {
            options,
            database,
            backend,
            dir: dir.to_path_buf(),
            name,
            signaldesk: Signaldesk::new(&options.bin, env, dir)?,
            rng: StdRng::seed_from_u64(seed),
            starts: 0,
            report: Report {
                backend: name,
                seed,
                ..Report::default()
            },
        })
    }

    fn say(&self, line: impl std::fmt::Display) {
        println!("[{}] {line}", self.name);
    }

    /// Starts `serve`.
    async fn start(&mut self) -> anyhow::Result<Server> {
        self.starts += 1;
        let log = self
            .signaldesk
            .log_path(&format!("serve-{:02}.log", self.starts));
        self.signaldesk.serve(log).await
    }

    /// Starts `serve` again and waits until it has resumed the bot of `api`'s user.
    async fn restart(&mut self, api: &Api) -> anyhow::Result<Server> {
        let server = self.start().await?;
        let api = api.at(&server.addr);
        wait::until("the bot resuming", READY_TIMEOUT, || {
            let api = api.clone();
            async move { Ok(api.bot_running().await?.then_some(())) }
        })
        .await
        .with_context(|| format!("log: {}", server.log.display()))?;
        Ok(server)
    }

    /// Stops `server` gracefully and audits.
    async fn stop_and_audit(&mut self, server: Server) -> anyhow::Result<()> {
        server.terminate().await?;
        self.audit().await
    }

    /// Audits the stopped deployment and records what it found.
    async fn audit(&mut self) -> anyhow::Result<()> {
        let n = self.report.audit_differences.len() + 1;
        let audit = audit::run(&self.signaldesk, &format!("audit-{n:02}")).await?;
        self.say(format_args!(
            "audit {n}: {}",
            match audit.differences {
                0 => "no differences".to_string(),
                d => format!("{d} DIFFERENCES ({})", audit.log.display()),
            }
        ));
        self.report.audit_differences.push(audit.differences);
        Ok(())
    }

    async fn go(mut self) -> anyhow::Result<Report> {
        let began = Instant::now();
        let (mut server, api, webhook, universe) = self.set_up().await?;
        for i in 1..=self.options.kills {
            server = self.kill(i, server, &api, &webhook, &universe).await?;
        }
        self.outage(server, &api, &webhook, &universe).await?;
        if matches!(self.backend, Backend::Postgres { .. }) && self.options.failovers > 0 {
            let dir = self.dir.clone();
            self.failover(&api, &webhook, &universe, &dir).await?;
        }
        self.report.elapsed = began.elapsed();
        Ok(self.report)
    }

    /// A user, a server, the bot set up and running, and the symbols it trades.
    async fn set_up(&mut self) -> anyhow::Result<(Server, Api, String, Vec<String>)> {
        let created = self
            .signaldesk
            .run(
                &[
                    "user",
                    "create",
                    "--username",
                    USERNAME,
                    "--password",
                    PASSWORD,
                ],
                Duration::from_secs(60),
            )
            .await?;
        anyhow::ensure!(
            created.status.success(),
            "`signaldesk user create` failed: {}",
            String::from_utf8_lossy(&created.stderr).trim()
        );
        let server = self.start().await?;
        let api = Api::login(&server.addr, USERNAME, PASSWORD).await?;
        // Small positions, tight stops and take profits: many entries and many closes.
        let settings = json!({
            "bot_mode": "classic", "max_trades": 30, "max_trade_usdt": 10, "max_total_usdt": 1000,
            "leverage": 10, "initial_stop_loss_pct": 0.3, "take_profit_first_pct": 0.3,
            "take_profit_next_pct": 0.3, "use_trailing_stop": true,
            "trail_activation_pct": 0.2, "trail_step_pct": 0.1,
        });
        let webhook = api.set_up_bot(settings).await?;
        let universe = universe(&api).await?;
        self.say(format_args!(
            "bot running on {} symbols; {} SIGKILLs to come",
            universe.len(),
            self.options.kills
        ));
        Ok((server, api, webhook, universe))
    }

    /// The `i`th SIGKILL, the restart, the graceful stop and the audit; returns the server
    /// started for what comes next.
    async fn kill(
        &mut self,
        i: u32,
        server: Server,
        api: &Api,
        webhook: &str,
        universe: &[String],
    ) -> anyhow::Result<Server> {
        let running = Duration::from_millis(self.rng.gen_range(300..2500));
        let moment = Moment::choose(&mut self.rng);
        let burst = Burst::choose(&mut self.rng, universe);
        let api_now = api.at(&server.addr);
        tokio::time::sleep(running).await;
        let tally = match moment {
            Moment::MidBurst { after } => {
                let posting = tokio::spawn(burst.post(api_now, webhook.to_string()));
                tokio::time::sleep(after).await;
                server.sigkill().await?;
                posting.await?
            }
            Moment::AfterBurst => {
                let tally = burst.post(api_now, webhook.to_string()).await;
                server.sigkill().await?;
                tally
            }
            Moment::Idle => {
                server.sigkill().await?;
                Tally::default()
            }
        };
        self.report.alerts.add(tally);
        self.report.kills += 1;
        self.say(format_args!(
            "SIGKILL {i}/{}, {} ms after the server was up, {moment} ({} alerts accepted)",
            self.options.kills,
            running.as_millis(),
            tally.accepted
        ));
        let server = self.restart(api).await?;
        tokio::time::sleep(self.options.settle()).await;
        self.stop_and_audit(server).await?;
        self.restart(api).await
    }

    /// The database outage with alerts coming all along, the recovery, the last figures,
    /// the graceful stop and the audit.
    async fn outage(
        &mut self,
        server: Server,
        api: &Api,
        webhook: &str,
        universe: &[String],
    ) -> anyhow::Result<()> {
        let api = api.at(&server.addr);
        let window = self.options.outage() + self.options.recovery();
        // One burst a second, through the outage and the recovery.
        let bursts: Vec<Burst> = (0..window.as_secs())
            .map(|_| Burst::choose(&mut self.rng, universe))
            .collect();
        let posting = tokio::spawn(post_every_second(bursts, api.clone(), webhook.to_string()));
        self.say(format_args!(
            "database outage for {} s",
            self.options.outage_secs
        ));
        self.report.outages += 1;
        self.database_away_and_back(&api).await?;
        self.say(format_args!(
            "database back; the bot runs on for {} s",
            self.options.recovery_secs
        ));
        tokio::time::sleep(self.options.recovery()).await;
        let tally = tokio::time::timeout(Duration::from_secs(60), posting)
            .await
            .context("the alerts did not stop")??;
        self.report.alerts.add(tally);
        let t = api.trade_counts().await?;
        self.say(format_args!(
            "trades: {} open, {} closed, {} pending, {} cancelled",
            t.open, t.closed, t.pending, t.cancelled
        ));
        self.report.trades = t;
        self.stop_and_audit(server).await
    }

    async fn database_away_and_back(&self, api: &Api) -> anyhow::Result<()> {
        self.database.break_down().await?;
        tokio::time::sleep(self.options.outage()).await;
        self.database.recover().await?;
        wait::until("the database reachable again", READY_TIMEOUT, || {
            let api = api.clone();
            async move { Ok(api.healthy().await.then_some(())) }
        })
        .await?;
        Ok(())
    }
}

/// Posts one burst a second (a slow answer delays the next burst, never doubles it).
async fn post_every_second(bursts: Vec<Burst>, api: Api, webhook: String) -> Tally {
    let mut tally = Tally::default();
    let mut timer = tokio::time::interval(Duration::from_secs(1));
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    for burst in bursts {
        timer.tick().await;
        tally.add(burst.post(api.clone(), webhook.clone()).await);
    }
    tally
}

/// The symbols the server trades: its signals list, once two reads a second apart agree (a
/// closing candle stores the symbols' ratings one after the other).
async fn universe(api: &Api) -> anyhow::Result<Vec<String>> {
    let deadline = Instant::now() + SIGNALS_TIMEOUT;
    let mut seen = Vec::new();
    loop {
        let now = api.universe().await?;
        if !now.is_empty() && now.len() == seen.len() {
            return Ok(now);
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "the server rated no candles within {SIGNALS_TIMEOUT:?}"
        );
        seen = now;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}
