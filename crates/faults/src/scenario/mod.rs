//! One database's run: a mixed process, a paper user and a Bybit demo user (on the fake Bybit
//! the harness runs, [`crate::bybit`]) each with a bot set up through the API; the SIGKILLs
//! (each followed by a restart, a graceful stop and an audit), the database outage (followed
//! by a recovery, a graceful stop and an audit), and the figures per user.

use std::time::{Duration, Instant};

use anyhow::Context;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::alerts::{Burst, Tallies, Target};
use crate::api::Api;
use crate::audit;
use crate::bybit::{Bybit, BYBIT_KEY, BYBIT_SECRET, PAPER_KEY, PAPER_SECRET};
use crate::database::Database;
use crate::options::{Backend, Options};
use crate::process::{Server, Signaldesk};
use crate::report::{Report, TraderReport};
use crate::wait;

mod failover;

pub use failover::FailoverReport;

const PASSWORD: &str = "faults-password-1";
/// How long the prices stand still before a graceful stop: a stop that fired on the fake
/// just before is booked by then. (A close on Bybit while the server is stopped is booked by
/// the next start, so an audit of a stopped server is exact only on a quiet market.) 1 s was
/// too short once: a trailing stop fired as the market paused was still unbooked 1.3 s later,
/// the worker waiting out Bybit's rate limit (10006) after the database outage.
const QUIET: Duration = Duration::from_secs(3);
/// The simulated market's speed: a 15-minute candle every 5 s, so signals, stops and take
/// profits come often.
const MARKET_SPEED: &str = "180";
/// How long the server may take to resume its bot, or the database to be reachable again.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the universe may take to get its first rated candles.
const SIGNALS_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the scenario on `backend` in a working folder of its own (kept when something
/// failed or an audit found differences) beside a fake Bybit of its own; the database is
/// removed whatever happens.
pub async fn run(options: &Options, backend: &Backend, seed: u64) -> anyhow::Result<Report> {
    let name = backend.name();
    let dir = tempfile::Builder::new()
        .prefix(&format!("signaldesk-faults-{name}-"))
        .tempdir()?;
    println!("[{name}] seed {seed}, working in {}", dir.path().display());
    let bybit = Bybit::start(seed).await?;
    let database = Database::create(backend, dir.path()).await?;
    let result = match Run::new(options, backend, seed, &database, &bybit, dir.path()) {
        Ok(run) => run.go().await,
        Err(e) => Err(e),
    };
    drop(bybit);
    let removed = database.remove().await;
    // Kept when something failed or an audit found differences (its log is named).
    let clean = result.as_ref().is_ok_and(Report::clean);
    if !clean || removed.is_err() || options.keep {
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

/// Which account a trader's key chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Account {
    Paper,
    BybitDemo,
}

impl Account {
    fn name(self) -> &'static str {
        match self {
            Account::Paper => "paper",
            Account::BybitDemo => "Bybit demo (fake)",
        }
    }

    /// The key on the fake Bybit that would carry this account's orders.
    fn fake_key(self) -> &'static str {
        match self {
            Account::Paper => PAPER_KEY,
            Account::BybitDemo => BYBIT_KEY,
        }
    }

    /// The Add Key form's body of the account's key.
    fn key_form(self) -> serde_json::Value {
        match self {
            Account::Paper => {
                json!({"key": PAPER_KEY, "secret": PAPER_SECRET, "is_demo": true, "exchange": "paper"})
            }
            Account::BybitDemo => {
                json!({"key": BYBIT_KEY, "secret": BYBIT_SECRET, "is_demo": true, "exchange": "bybit"})
            }
        }
    }

    /// The status's `venue` object once the key is active.
    fn venue(self) -> serde_json::Value {
        match self {
            Account::Paper => json!({"exchange": "paper", "environment": "paper"}),
            Account::BybitDemo => json!({"exchange": "bybit", "environment": "demo"}),
        }
    }
}

/// The users of the mixed process, in the order of [`Report::traders`] and of the bursts'
/// targets.
const TRADERS: [(&str, Account); 2] = [
    ("faults", Account::Paper),
    ("faults-bybit", Account::BybitDemo),
];

/// One user of the process and their bot.
struct Trader {
    username: &'static str,
    account: Account,
    user_id: i64,
    api: Api,
    webhook: String,
}

struct Run<'a> {
    options: &'a Options,
    database: &'a Database,
    backend: &'a Backend,
    bybit: &'a Bybit,
    /// Set up by [`Run::set_up`].
    traders: Vec<Trader>,
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
        bybit: &'a Bybit,
        dir: &std::path::Path,
    ) -> anyhow::Result<Run<'a>> {
        let name = backend.name();
        let mut env = vec![
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
        // The Bybit user's demo account and Bybit's public market: the fake.
        env.extend(bybit.env());
        Ok(Run {
            options,
            database,
            backend,
            bybit,
            traders: Vec::new(),
            dir: dir.to_path_buf(),
            name,
            signaldesk: Signaldesk::new(&options.bin, env, dir)?,
            rng: StdRng::seed_from_u64(seed),
            starts: 0,
            report: Report {
                backend: name,
                seed,
                traders: TRADERS
                    .iter()
                    .map(|(username, account)| TraderReport {
                        username,
                        account: account.name(),
                        ..TraderReport::default()
                    })
                    .collect(),
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

    /// Where each trader's alerts go on the server at `addr`.
    fn targets(&self, addr: &str) -> Vec<Target> {
        self.traders
            .iter()
            .map(|t| Target {
                api: t.api.at(addr),
                webhook: t.webhook.clone(),
            })
            .collect()
    }

    fn add_alerts(&mut self, tallies: &Tallies) {
        for (trader, tally) in self.report.traders.iter_mut().zip(&tallies.0) {
            trader.alerts.add(*tally);
        }
    }

    /// Starts `serve` again and waits until it has resumed every trader's bot.
    async fn restart(&mut self) -> anyhow::Result<Server> {
        let server = self.start().await?;
        self.wait_for_bots(&server).await?;
        Ok(server)
    }

    /// Waits until `server` runs every trader's bot.
    async fn wait_for_bots(&self, server: &Server) -> anyhow::Result<()> {
        for trader in &self.traders {
            let api = trader.api.at(&server.addr);
            wait::until(
                &format!("{}'s bot resuming", trader.username),
                READY_TIMEOUT,
                || {
                    let api = api.clone();
                    async move { Ok(api.bot_running().await?.then_some(())) }
                },
            )
            .await
            .with_context(|| format!("log: {}", server.log.display()))?;
        }
        Ok(())
    }

    /// Quiets the fake's market, stops `server` gracefully and audits.
    async fn stop_and_audit(&mut self, server: Server) -> anyhow::Result<()> {
        self.bybit.pause();
        tokio::time::sleep(QUIET).await;
        server.terminate().await?;
        self.audit().await
    }

    /// Audits the stopped deployment (the fake's prices standing still) and records what it
    /// found for each user, then checks the fake's orders against the books and lets the
    /// prices move again.
    async fn audit(&mut self) -> anyhow::Result<()> {
        let n = self.report.audit_differences.len() + 1;
        let audit = audit::run(&self.signaldesk, &format!("audit-{n:02}")).await?;
        let mut differences = audit.differences;
        let mut per_user = Vec::new();
        for (trader, report) in self.traders.iter().zip(self.report.traders.iter_mut()) {
            let mut found = audit.of_user(trader.username);
            let orders = self.bybit.orders(trader.account.fake_key());
            let booked = self.database.booked_executions(trader.user_id).await?;
            report.fake_orders = orders;
            report.booked_executions = booked;
            let expected = match trader.account {
                // A paper user's orders never leave the server.
                Account::Paper => 0,
                Account::BybitDemo => booked,
            };
            if orders != expected {
                found += 1;
                differences += 1;
                println!(
                    "[{}] ORDERS: the fake Bybit holds {orders} orders on {}'s key ({}), \
                     expected {expected} ({booked} executions in the books)",
                    self.name,
                    trader.username,
                    trader.account.fake_key()
                );
            }
            // Every alert answered 202 is acted on, whatever was killed or away meanwhile.
            let (stored, waiting) = self.database.webhook_alerts(trader.user_id).await?;
            report.alerts_stored = stored;
            let accepted = usize::try_from(report.alerts.accepted)?;
            if stored < accepted || waiting > 0 {
                found += 1;
                differences += 1;
                println!(
                    "[{}] ALERTS: {accepted} alerts accepted for {}, {stored} stored as \
                     signals, {waiting} still waiting",
                    self.name, trader.username
                );
            }
            report.audit_differences += found;
            per_user.push(format!("{} {found}", trader.username));
        }
        self.bybit.resume();
        self.say(format_args!(
            "audit {n}: {} ({})",
            match differences {
                0 => "no differences".to_string(),
                d => format!("{d} DIFFERENCES ({})", audit.log.display()),
            },
            per_user.join(", ")
        ));
        self.report.audit_differences.push(differences);
        Ok(())
    }

    async fn go(mut self) -> anyhow::Result<Report> {
        let began = Instant::now();
        let (mut server, universe) = self.set_up().await?;
        for i in 1..=self.options.kills {
            server = self.kill(i, server, &universe).await?;
        }
        self.outage(server, &universe).await?;
        if matches!(self.backend, Backend::Postgres { .. }) && self.options.failovers > 0 {
            let dir = self.dir.clone();
            self.failover(&universe, &dir).await?;
        }
        self.report.price_moves = self.bybit.moves();
        self.report.elapsed = began.elapsed();
        Ok(self.report)
    }

    /// The users, a server, each user's bot set up and running on the account their key
    /// chooses, and the symbols they trade.
    async fn set_up(&mut self) -> anyhow::Result<(Server, Vec<String>)> {
        for (username, _) in TRADERS {
            let created = self
                .signaldesk
                .run(
                    &[
                        "user",
                        "create",
                        "--username",
                        username,
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
        }
        let server = self.start().await?;
        // Small positions, tight stops and take profits: many entries and many closes.
        let settings = json!({
            "bot_mode": "classic", "max_trades": 30, "max_trade_usdt": 10, "max_total_usdt": 1000,
            "leverage": 10, "initial_stop_loss_pct": 0.3, "take_profit_first_pct": 0.3,
            "take_profit_next_pct": 0.3, "use_trailing_stop": true,
            "trail_activation_pct": 0.2, "trail_step_pct": 0.1,
        });
        for (username, account) in TRADERS {
            let api = Api::login(&server.addr, username, PASSWORD).await?;
            let webhook = api
                .set_up_bot(settings.clone(), account.key_form())
                .await
                .with_context(|| format!("setting up {username}'s bot"))?;
            let venue = api.venue().await?;
            anyhow::ensure!(
                venue == account.venue(),
                "{username}'s bot trades on {venue}, not on {}",
                account.venue()
            );
            self.traders.push(Trader {
                username,
                account,
                user_id: api.user_id().await?,
                api,
                webhook,
            });
        }
        self.wait_for_bots(&server).await?;
        let universe = universe(&self.traders[0].api).await?;
        if let Some(missing) = universe.iter().find(|s| !self.bybit.lists(s)) {
            anyhow::bail!("the fake Bybit does not list {missing}, which the alerts use");
        }
        self.say(format_args!(
            "bots running on {} symbols for {}; {} SIGKILLs to come",
            universe.len(),
            self.traders
                .iter()
                .map(|t| format!("{} ({})", t.username, t.account.name()))
                .collect::<Vec<_>>()
                .join(" and "),
            self.options.kills
        ));
        Ok((server, universe))
    }

    /// The `i`th SIGKILL, the restart, the graceful stop and the audit; returns the server
    /// started for what comes next.
    async fn kill(
        &mut self,
        i: u32,
        server: Server,
        universe: &[String],
    ) -> anyhow::Result<Server> {
        let running = Duration::from_millis(self.rng.gen_range(300..2500));
        let moment = Moment::choose(&mut self.rng);
        let burst = Burst::choose(&mut self.rng, universe, self.traders.len());
        let targets = self.targets(&server.addr);
        tokio::time::sleep(running).await;
        let tallies = match moment {
            Moment::MidBurst { after } => {
                let posting = tokio::spawn(burst.post(targets));
                tokio::time::sleep(after).await;
                server.sigkill().await?;
                posting.await?
            }
            Moment::AfterBurst => {
                let tallies = burst.post(targets).await;
                server.sigkill().await?;
                tallies
            }
            Moment::Idle => {
                server.sigkill().await?;
                Tallies::default()
            }
        };
        self.add_alerts(&tallies);
        self.report.kills += 1;
        self.say(format_args!(
            "SIGKILL {i}/{}, {} ms after the server was up, {moment} ({} alerts accepted)",
            self.options.kills,
            running.as_millis(),
            tallies.accepted()
        ));
        let server = self.restart().await?;
        tokio::time::sleep(self.options.settle()).await;
        self.stop_and_audit(server).await?;
        self.restart().await
    }

    /// The database outage with alerts coming all along, the recovery, the last figures,
    /// the graceful stop and the audit.
    async fn outage(&mut self, server: Server, universe: &[String]) -> anyhow::Result<()> {
        let window = self.options.outage() + self.options.recovery();
        // One burst a second, through the outage and the recovery.
        let bursts: Vec<Burst> = (0..window.as_secs())
            .map(|_| Burst::choose(&mut self.rng, universe, self.traders.len()))
            .collect();
        let posting = tokio::spawn(post_every_second(bursts, self.targets(&server.addr)));
        self.say(format_args!(
            "database outage for {} s",
            self.options.outage_secs
        ));
        self.report.outages += 1;
        let api = self.traders[0].api.at(&server.addr);
        self.database_away_and_back(&api).await?;
        self.say(format_args!(
            "database back; the bots run on for {} s",
            self.options.recovery_secs
        ));
        tokio::time::sleep(self.options.recovery()).await;
        let tallies = tokio::time::timeout(Duration::from_secs(60), posting)
            .await
            .context("the alerts did not stop")??;
        self.add_alerts(&tallies);
        for (trader, report) in self.traders.iter().zip(self.report.traders.iter_mut()) {
            let t = trader.api.at(&server.addr).trade_counts().await?;
            println!(
                "[{}] {}'s trades: {} open, {} closed, {} pending, {} cancelled",
                self.name, trader.username, t.open, t.closed, t.pending, t.cancelled
            );
            report.trades = t;
        }
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
async fn post_every_second(bursts: Vec<Burst>, targets: Vec<Target>) -> Tallies {
    let mut tallies = Tallies::default();
    let mut timer = tokio::time::interval(Duration::from_secs(1));
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    for burst in bursts {
        timer.tick().await;
        tallies.add(&burst.post(targets.clone()).await);
    }
    tallies
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
