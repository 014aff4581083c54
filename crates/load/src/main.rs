//! `signaldesk-load`: the load test (docs/benchmarks.md, "Many users").
//!
//! On a fresh database (a temporary SQLite file, or a new PostgreSQL database on
//! `TEST_DATABASE_URL`'s server, dropped afterwards) it creates `--users` accounts (the first
//! with `signaldesk user create`, the others as rows with the same password hash: N argon2
//! hashes would only time the setup), starts `--instances` (1 or 2) `signaldesk serve`
//! processes on free ports of that database, as behind a load balancer (user or socket `i` goes
//! to instance `i % instances`), then runs one scenario:
//!
//! - `users`: each simulated user starts at its point of the `--ramp` (evenly spread), logs in
//!   (`POST /api/auth/login/`), opens `/ws/dashboard/` and authenticates as the web app does
//!   (`authenticate` with the token, `get_signals` after `authenticated`, `ping` every 30 s),
//!   loads the dashboard page's calls once, then every 5 s polls `GET /api/bot-settings/` (the
//!   Bot Status card, on every page), and on every 6th tick `GET /api/dashboard/` (30 s), on
//!   the 12th `GET /api/stats/?period=month` and 6 ticks later `GET /api/statistics/?period=30d`
//!   (60 s each: someone going back and forth between the dashboard and the statistics pages).
//!   Measured over `--duration` after the ramp: count, throughput, p50, p99 and max of each
//!   call, and the errors of the whole run.
//! - `sockets`: logs the accounts in, then opens `--sockets` websockets over the ramp (socket
//!   `i` on account `i % users`), each authenticated and asking `get_signals` once, then idle,
//!   held for `--duration`; server RSS before and after, and every socket that failed or closed.
//!
//! Login failures are rate-limited per client address, and a real deployment's clients come
//! from many addresses: every client binds its sockets to one of 127.0.0.2 … 127.0.0.254
//! (Linux routes all of 127.0.0.0/8 to the loopback; the server, with no trusted proxy, takes
//! the peer address as the client's). RSS is the server's `VmRSS` sampled every 250 ms and
//! `VmHWM` (its peak since start); CPU from `/proc/PID/stat`. The generator runs on one tokio
//! runtime on the same 2 cores as the servers, which it competes with: its own CPU is printed
//! too. Prints Markdown table rows. Every phase is bounded in time. Not part of `make test`:
//! `make load` runs the three set-ups against the release binary.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::bail;
use clap::{Parser, ValueEnum};
use futures::{SinkExt, StreamExt};
use signaldesk_bench_harness::{signaldesk, Database, Server};
use tokio::net::TcpSocket;
use tokio::time::{sleep_until, timeout, Instant};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scenario {
    Users,
    Sockets,
}

#[derive(Parser)]
struct Args {
    /// The signaldesk binary to load (build it with --release).
    #[arg(long, default_value = "target/release/signaldesk")]
    bin: PathBuf,
    /// `sqlite` or `postgres` (needs TEST_DATABASE_URL).
    #[arg(long, default_value = "sqlite")]
    database: String,
    /// `signaldesk serve` processes on the one database (1 or 2).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    instances: u8,
    #[arg(long, value_enum, default_value = "users")]
    scenario: Scenario,
    /// Accounts (and, in the users scenario, simulated users).
    #[arg(long, default_value_t = 1000)]
    users: usize,
    /// Websockets of the sockets scenario, spread over the accounts.
    #[arg(long, default_value_t = 10_000)]
    sockets: usize,
    /// Seconds over which users start (users) or sockets open (sockets), evenly spread.
    #[arg(long, default_value_t = 30)]
    ramp: u64,
    /// Seconds measured after the ramp (users), or the sockets are held (sockets).
    #[arg(long, default_value_t = 60)]
    duration: u64,
}

const PASSWORD: &str = "load-password-1234";
/// The Bot Status card's polling period (web: BOT_SETTINGS_POLL_INTERVAL_MS).
const TICK: Duration = Duration::from_secs(5);
/// Every HTTP call and websocket step gives up after this (and counts as an error).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// Source addresses: 127.0.0.2 … 127.0.0.254.
const SOURCES: usize = 253;

fn source(i: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (i % SOURCES) as u8))
}

/// The calls measured, in the order printed.
#[derive(Clone, Copy)]
enum Call {
    Login,
    WsOpen,
    Settings,
    Dashboard,
    Stats,
    Statistics,
    WsPing,
}

const CALLS: [(Call, &str); 7] = [
    (Call::Login, "`POST /api/auth/login/`"),
    (
        Call::WsOpen,
        "websocket open (`/ws/dashboard/` to `authenticated`)",
    ),
    (Call::Settings, "`GET /api/bot-settings/`"),
    (Call::Dashboard, "`GET /api/dashboard/`"),
    (Call::Stats, "`GET /api/stats/?period=month`"),
    (Call::Statistics, "`GET /api/statistics/?period=30d`"),
    (Call::WsPing, "websocket `ping` to `pong`"),
];

/// One task's measurements: call times in microseconds, and errors.
#[derive(Default)]
struct Tally {
    times: [Vec<u32>; 7],
    errors: [u64; 7],
    /// Measured over the whole run (login, websocket open) rather than the window.
    all: [Vec<u32>; 7],
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        let calls = other.times.into_iter().zip(other.all).zip(other.errors);
        for (i, ((times, all), errors)) in calls.enumerate() {
            self.times[i].extend(times);
            self.all[i].extend(all);
            self.errors[i] += errors;
        }
    }
}

/// What every task shares: where the servers are, when the window is, the first errors.
struct Plan {
    bases: Vec<String>,
    ports: Vec<u16>,
    /// One HTTP client per source address (a keep-alive pool each).
    clients: Vec<reqwest::Client>,
    window_start: Instant,
    end: Instant,
    first_errors: Mutex<Vec<String>>,
    error_count: AtomicU64,
}

impl Plan {
    fn record(&self, tally: &mut Tally, call: Call, started: Instant, outcome: Result<(), String>) {
        let i = call as usize;
        match outcome {
            Ok(()) => {
                let micros = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
                tally.all[i].push(micros);
                if started >= self.window_start && started < self.end {
                    tally.times[i].push(micros);
                }
            }
            Err(e) => {
                tally.errors[i] += 1;
                self.error_count.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_errors.lock().unwrap_or_else(|p| p.into_inner());
                if first.len() < 10 {
                    first.push(format!("{}: {e}", CALLS[i].1));
                }
            }
        }
    }
}

/// An error with its causes ("error sending request: … connection reset").
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

async fn get(client: &reqwest::Client, url: &str, token: &str) -> Result<(), String> {
    let res = client
        .get(url)
        .header("Authorization", format!("Token {token}"))
        .send()
        .await
        .map_err(|e| chain(&e))?;
    let status = res.status();
    let body = res.bytes().await.map_err(|e| chain(&e))?;
    if !status.is_success() {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    Ok(())
}

async fn login(client: &reqwest::Client, base: &str, username: &str) -> Result<String, String> {
    let res = client
        .post(format!("{base}/api/auth/login/"))
        .json(&serde_json::json!({"username": username, "password": PASSWORD}))
        .send()
        .await
        .map_err(|e| chain(&e))?;
    let status = res.status();
    let body = res.bytes().await.map_err(|e| chain(&e))?;
    if !status.is_success() {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    value["token"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "no token in the answer".to_string())
}

type Ws = WebSocketStream<tokio::net::TcpStream>;

fn message_type(message: &Message) -> Option<String> {
    let Message::Text(text) = message else {
        return None;
    };
    let value: serde_json::Value = serde_json::from_str(text.as_str()).ok()?;
    value["type"].as_str().map(str::to_string)
}

/// Connects from `from`, upgrades, sends `authenticate` and waits for `authenticated`, then
/// sends `get_signals` as the web app does.
async fn open_socket(port: u16, from: IpAddr, token: &str) -> Result<Ws, String> {
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(SocketAddr::new(from, 0))
        .map_err(|e| format!("bind {from}: {e}"))?;
    let stream = socket
        .connect(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .map_err(|e| format!("connect: {e}"))?;
    // Small buffers: ten thousand clients in one process.
    let config = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0);
    let url = format!("ws://127.0.0.1:{port}/ws/dashboard/");
    let (mut ws, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(config))
        .await
        .map_err(|e| format!("upgrade: {e}"))?;
    let hello = serde_json::json!({"action": "authenticate", "token": token}).to_string();
    ws.send(Message::text(hello))
        .await
        .map_err(|e| e.to_string())?;
    loop {
        match ws.next().await {
            Some(Ok(message)) => match message_type(&message).as_deref() {
                Some("authenticated") => break,
                Some("error") => return Err(format!("refused: {message}")),
                _ if matches!(message, Message::Close(_)) => {
                    return Err(format!("closed: {message}"))
                }
                _ => {}
            },
            Some(Err(e)) => return Err(e.to_string()),
            None => return Err("closed before authenticated".into()),
        }
    }
    ws.send(Message::text(r#"{"action":"get_signals"}"#))
        .await
        .map_err(|e| e.to_string())?;
    Ok(ws)
}

/// Reads what the server sends until `until`; an error or a close before then is an error.
/// Returns the socket, or `None` when it failed.
async fn hold(mut ws: Ws, until: Instant) -> Result<Ws, String> {
    loop {
        tokio::select! {
            _ = sleep_until(until) => return Ok(ws),
            frame = ws.next() => match frame {
                Some(Ok(Message::Close(c))) => return Err(format!("closed by the server: {c:?}")),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("closed".into()),
            },
        }
    }
}

async fn close(mut ws: Ws) {
    let _ = timeout(Duration::from_secs(2), ws.close(None)).await;
}

/// One simulated user of the users scenario.
async fn user(plan: Arc<Plan>, index: usize, start: Instant) -> Tally {
    let mut tally = Tally::default();
    sleep_until(start).await;
    let instance = index % plan.bases.len();
    let base = &plan.bases[instance];
    let client = &plan.clients[index % SOURCES];
    let username = format!("load{index}");

    let started = Instant::now();
    let token = match timeout(CALL_TIMEOUT, login(client, base, &username)).await {
        Ok(Ok(token)) => {
            plan.record(&mut tally, Call::Login, started, Ok(()));
            token
        }
        Ok(Err(e)) => {
            plan.record(&mut tally, Call::Login, started, Err(e));
            return tally;
        }
        Err(_) => {
            plan.record(&mut tally, Call::Login, started, Err("timeout".into()));
            return tally;
        }
    };
    let started = Instant::now();
    let opened = timeout(
        CALL_TIMEOUT,
        open_socket(plan.ports[instance], source(index), &token),
    )
    .await
    .unwrap_or_else(|_| Err("timeout".into()));
    let mut ws = match opened {
        Ok(ws) => {
            plan.record(&mut tally, Call::WsOpen, started, Ok(()));
            Some(ws)
        }
        Err(e) => {
            plan.record(&mut tally, Call::WsOpen, started, Err(e));
            None
        }
    };

    let url = |path: &str| format!("{base}{path}");
    let (settings, dashboard) = (url("/api/bot-settings/"), url("/api/dashboard/"));
    let (stats, statistics) = (
        url("/api/stats/?period=month"),
        url("/api/statistics/?period=30d"),
    );
    let call = |path: &str, what: Call| {
        let path = path.to_string();
        let token = token.clone();
        async move {
            let started = Instant::now();
            let outcome = timeout(CALL_TIMEOUT, get(client, &path, &token))
                .await
                .unwrap_or_else(|_| Err("timeout".into()));
            (what, started, outcome)
        }
    };
    // The dashboard page after the login: the card's settings and the dashboard.
    for (path, what) in [(&settings, Call::Settings), (&dashboard, Call::Dashboard)] {
        let (what, started, outcome) = call(path, what).await;
        plan.record(&mut tally, what, started, outcome);
    }

    let mut ticks = tokio::time::interval_at(Instant::now() + TICK, TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut tick: u64 = 0;
    let mut ping_sent: Option<Instant> = None;
    loop {
        let frame = async {
            match ws.as_mut() {
                Some(ws) => ws.next().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = sleep_until(plan.end) => break,
            _ = ticks.tick() => {
                tick += 1;
                let mut due = vec![(&settings, Call::Settings)];
                if tick.is_multiple_of(6) {
                    due.push((&dashboard, Call::Dashboard));
                }
                if tick.is_multiple_of(12) {
                    due.push((&stats, Call::Stats));
                }
                if tick % 12 == 6 {
                    due.push((&statistics, Call::Statistics));
                }
                for (path, what) in due {
                    let (what, started, outcome) = call(path, what).await;
                    plan.record(&mut tally, what, started, outcome);
                }
                if tick % 6 == 3 {
                    if let Some(socket) = ws.as_mut() {
                        if let Some(sent) = ping_sent.take() {
                            plan.record(&mut tally, Call::WsPing, sent, Err("no pong within 30 s".into()));
                        }
                        match socket.send(Message::text(r#"{"action":"ping"}"#)).await {
                            Ok(()) => ping_sent = Some(Instant::now()),
                            Err(e) => {
                                plan.record(&mut tally, Call::WsPing, Instant::now(), Err(e.to_string()));
                                ws = None;
                            }
                        }
                    }
                }
            }
            frame = frame => match frame {
                Some(Ok(message)) => {
                    if matches!(message, Message::Close(_)) {
                        plan.record(&mut tally, Call::WsOpen, Instant::now(), Err(format!("closed by the server: {message}")));
                        ws = None;
                    } else if message_type(&message).as_deref() == Some("pong") {
                        if let Some(sent) = ping_sent.take() {
                            plan.record(&mut tally, Call::WsPing, sent, Ok(()));
                        }
                    }
                }
                other => {
                    let e = match other {
                        Some(Err(e)) => e.to_string(),
                        _ => "closed".to_string(),
                    };
                    plan.record(&mut tally, Call::WsOpen, Instant::now(), Err(format!("socket lost: {e}")));
                    ws = None;
                }
            },
        }
    }
    if let Some(ws) = ws {
        close(ws).await;
    }
    tally
}

/// `VmRSS` and `VmHWM` of a process, in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// User plus system CPU time of a process, in seconds.
fn cpu_secs(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name's closing parenthesis: state is field 3; utime and stime
    // are fields 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    ticks as f64 / rustix::param::clock_ticks_per_second() as f64
}

fn mib(kib: u64) -> String {
    format!("{:.0} MB", kib as f64 / 1024.0)
}

/// The highest `VmRSS` of each process seen between `start` and `stop`, sampled every 250 ms.
struct RssWatch {
    peaks: Arc<Vec<AtomicU64>>,
    task: tokio::task::JoinHandle<()>,
}

impl RssWatch {
    fn start(pids: Vec<u32>) -> RssWatch {
        let peaks: Arc<Vec<AtomicU64>> = Arc::new(pids.iter().map(|_| AtomicU64::new(0)).collect());
        let shared = peaks.clone();
        let task = tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(250));
            loop {
                every.tick().await;
                for (pid, peak) in pids.iter().zip(shared.iter()) {
                    peak.fetch_max(memory_kib(*pid).0, Ordering::Relaxed);
                }
            }
        });
        RssWatch { peaks, task }
    }

    fn stop(self) -> Vec<u64> {
        self.task.abort();
        self.peaks
            .iter()
            .map(|p| p.load(Ordering::Relaxed))
            .collect()
    }
}

fn quantile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1000.0
}

/// Raises the soft limit on open files to the hard one; the servers started afterwards
/// inherit it. Returns the limit now in force.
fn raise_fd_limit() -> u64 {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        let _ = setrlimit(Resource::Nofile, limit);
    }
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

/// Account `load0` with `signaldesk user create`, `load1` … with its password hash.
async fn create_users(bin: &Path, db: &Database, users: usize) -> anyhow::Result<()> {
    let data = db.data_dir();
    signaldesk(
        bin,
        &[
            "user",
            "create",
            "--username",
            "load0",
            "--password",
            PASSWORD,
        ],
        &db.url,
        &data,
    )?;
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url).await?;
    let hash: String =
        sqlx::query_scalar("SELECT password_hash FROM users WHERE username = 'load0'")
            .fetch_one(&mut conn)
            .await?;
    if hash.contains('\'') {
        bail!("unexpected password hash {hash}");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis();
    let ids: Vec<usize> = (1..users).collect();
    for chunk in ids.chunks(500) {
        let values: Vec<String> = chunk
            .iter()
            .map(|i| format!("('load{i}', '{hash}', {now})"))
            .collect();
        let sql = format!(
            "INSERT INTO users (username, password_hash, created_at) VALUES {}",
            values.join(", ")
        );
        sqlx::Executor::execute(&mut conn, sql.as_str()).await?;
    }
    sqlx::Connection::close(conn).await?;
    Ok(())
}

/// Prints the lines of a server's log that are warnings or errors (the first few) and
/// returns how many there were.
fn log_problems(log: &Path, instance: usize) -> usize {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let problems: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("ERROR") || l.contains(" WARN"))
        .filter(|l| !l.contains("the web app is not built"))
        .collect();
    for line in problems.iter().take(5) {
        eprintln!("instance {}: {line}", instance + 1);
    }
    problems.len()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.users == 0 {
        bail!("--users must be at least 1");
    }
    let fd_limit = raise_fd_limit();
    let db = Database::create(&args.database, "load").await?;
    let outcome = run(&args, &db, fd_limit).await;
    let dropped = db.drop_now().await;
    outcome?;
    dropped
}

async fn run(args: &Args, db: &Database, fd_limit: u64) -> anyhow::Result<()> {
    let setup = Instant::now();
    create_users(&args.bin, db, args.users).await?;
    let setup_secs = setup.elapsed().as_secs_f64();
    let data = db.data_dir();
    let mut servers = Vec::new();
    let mut logs = Vec::new();
    // One after the other: the first creates the master key file the second reads.
    for k in 0..args.instances as usize {
        let log = db.dir.path().join(format!("server-{k}.log"));
        servers.push(Server::start(&args.bin, &db.url, &data, Some(&log)).await?);
        logs.push(log);
    }
    let pids: Vec<u32> = servers.iter().map(Server::pid).collect();
    let clients = (0..SOURCES)
        .map(|i| {
            reqwest::Client::builder()
                .local_address(source(i))
                .timeout(CALL_TIMEOUT)
                .build()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let setup_name = format!(
        "{} × {}",
        args.instances,
        if db.backend == "sqlite" {
            "SQLite"
        } else {
            "PostgreSQL"
        }
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!(
        "{setup_name}: {} accounts created in {setup_secs:.1} s; open-file limit {fd_limit}; \
         load average before: {}",
        args.users,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle: Vec<u64> = pids.iter().map(|&p| memory_kib(p).0).collect();

    let now = Instant::now();
    let ramp = Duration::from_secs(args.ramp);
    let window_start = now + ramp;
    let end = window_start + Duration::from_secs(args.duration);
    let plan = Arc::new(Plan {
        bases: servers.iter().map(|s| s.base.clone()).collect(),
        ports: servers.iter().map(|s| s.port).collect(),
        clients,
        window_start,
        end,
        first_errors: Mutex::new(Vec::new()),
        error_count: AtomicU64::new(0),
    });
    // Everything below ends by `end` plus the calls' own timeouts; this is the backstop.
    let deadline = Duration::from_secs(args.ramp + args.duration + 180);
    let result = timeout(
        deadline,
        scenario(args, &plan, &pids, &idle, &setup_name, now),
    )
    .await;
    for (k, log) in logs.iter().enumerate() {
        let problems = log_problems(log, k);
        if problems > 0 {
            eprintln!(
                "instance {}: {problems} warning or error lines in its log",
                k + 1
            );
        }
    }
    for (k, server) in servers.iter_mut().enumerate() {
        if let Some(status) = server.exited() {
            eprintln!("instance {} exited during the run: {status}", k + 1);
        }
    }
    let first = plan.first_errors.lock().unwrap_or_else(|p| p.into_inner());
    for e in first.iter() {
        eprintln!("error: {e}");
    }
    match result {
        Ok(outcome) => outcome,
        Err(_) => bail!("the run did not end within {} s", deadline.as_secs()),
    }
}

async fn scenario(
    args: &Args,
    plan: &Arc<Plan>,
    pids: &[u32],
    idle: &[u64],
    setup_name: &str,
    now: Instant,
) -> anyhow::Result<()> {
    let me = std::process::id();
    match args.scenario {
        Scenario::Users => {
            let ramp = plan.window_start - now;
            let mut tasks = Vec::with_capacity(args.users);
            for i in 0..args.users {
                let start = now + ramp.mul_f64(i as f64 / args.users as f64);
                tasks.push(tokio::spawn(user(plan.clone(), i, start)));
            }
            sleep_until(plan.window_start).await;
            let cpu_before: Vec<f64> = pids.iter().map(|&p| cpu_secs(p)).collect();
            let my_cpu_before = cpu_secs(me);
            let watch = RssWatch::start(pids.to_vec());
            sleep_until(plan.end).await;
            let cpu_after: Vec<f64> = pids.iter().map(|&p| cpu_secs(p)).collect();
            let my_cpu = cpu_secs(me) - my_cpu_before;
            let peaks = watch.stop();
            let mut tally = Tally::default();
            for task in tasks {
                tally.merge(task.await?);
            }
            let window = plan.end - plan.window_start;
            print_calls(setup_name, args, &mut tally, window);
            println!();
            println!("| set-up | instance | RSS idle | RSS peak in the window | VmHWM (peak since start) | CPU in the window |");
            println!("| --- | --- | --- | --- | --- | --- |");
            for (k, &pid) in pids.iter().enumerate() {
                let cpu = (cpu_after[k] - cpu_before[k]) / window.as_secs_f64();
                println!(
                    "| {setup_name} | {} | {} | **{}** | {} | {:.0} % |",
                    k + 1,
                    mib(idle[k]),
                    mib(peaks[k]),
                    mib(memory_kib(pid).1),
                    cpu * 100.0
                );
            }
            println!(
                "| {setup_name} | the generator | | {} | | {:.0} % |",
                mib(memory_kib(me).0),
                my_cpu / window.as_secs_f64() * 100.0
            );
        }
        Scenario::Sockets => {
            // The logins first, four at a time (argon2 takes 19 MiB and tens of ms each).
            let logins = Arc::new(tokio::sync::Semaphore::new(4));
            let mut tasks = Vec::with_capacity(args.users);
            for i in 0..args.users {
                let (plan, logins) = (plan.clone(), logins.clone());
                tasks.push(tokio::spawn(async move {
                    let _permit = logins.acquire().await;
                    let instance = i % plan.bases.len();
                    let client = &plan.clients[i % SOURCES];
                    let started = Instant::now();
                    let mut tally = Tally::default();
                    let outcome = login(client, &plan.bases[instance], &format!("load{i}")).await;
                    let token = outcome.as_ref().ok().cloned();
                    plan.record(&mut tally, Call::Login, started, outcome.map(|_| ()));
                    (token, tally)
                }));
            }
            let mut tokens = Vec::with_capacity(args.users);
            let mut tally = Tally::default();
            for task in tasks {
                let (token, t) = task.await?;
                tokens.push(token);
                tally.merge(t);
            }
            let logged_in = Instant::now();
            let before: Vec<u64> = pids.iter().map(|&p| memory_kib(p).0).collect();
            // The sockets' ramp and hold start now (the logins took their own time).
            let ramp = Duration::from_secs(args.ramp);
            let hold_until = logged_in + ramp + Duration::from_secs(args.duration);
            let watch = RssWatch::start(pids.to_vec());
            let tokens = Arc::new(tokens);
            let instances = plan.bases.len();
            let mut sockets = Vec::with_capacity(args.sockets);
            for j in 0..args.sockets {
                let start = logged_in + ramp.mul_f64(j as f64 / args.sockets as f64);
                let (plan, tokens) = (plan.clone(), tokens.clone());
                // Socket j belongs to account j % users, which logged in on instance
                // (j % users) % instances; with an even account count that is j % instances.
                let account = j % args.users;
                let instance = account % instances;
                sockets.push(tokio::spawn(async move {
                    let mut tally = Tally::default();
                    sleep_until(start).await;
                    let Some(token) = tokens[account].as_deref() else {
                        return (tally, None);
                    };
                    let started = Instant::now();
                    let opened = timeout(
                        CALL_TIMEOUT,
                        open_socket(plan.ports[instance], source(j), token),
                    )
                    .await
                    .unwrap_or_else(|_| Err("timeout".into()));
                    let ws = match opened {
                        Ok(ws) => ws,
                        Err(e) => {
                            plan.record(&mut tally, Call::WsOpen, started, Err(e));
                            return (tally, None);
                        }
                    };
                    plan.record(&mut tally, Call::WsOpen, started, Ok(()));
                    match hold(ws, hold_until).await {
                        Ok(ws) => (tally, Some(ws)),
                        Err(e) => {
                            plan.record(&mut tally, Call::WsOpen, Instant::now(), Err(e));
                            (tally, None)
                        }
                    }
                }));
            }
            sleep_until(logged_in + ramp + Duration::from_secs(2)).await;
            let after_ramp: Vec<u64> = pids.iter().map(|&p| memory_kib(p).0).collect();
            let counted = websocket_clients(plan).await;
            let mut held = Vec::with_capacity(args.sockets);
            for task in sockets {
                let (t, ws) = task.await?;
                tally.merge(t);
                held.extend(ws);
            }
            let at_end: Vec<u64> = pids.iter().map(|&p| memory_kib(p).0).collect();
            let peaks = watch.stop();
            let still_open = held.len();
            futures::future::join_all(held.into_iter().map(close)).await;
            let (ws, login) = (Call::WsOpen as usize, Call::Login as usize);
            tally.all[ws].sort_unstable();
            tally.all[login].sort_unstable();
            let opens = &tally.all[ws];
            println!("| set-up | sockets | held to the end | errors | open p50 / p99 | logins (errors) | login p50 / p99 |");
            println!("| --- | --- | --- | --- | --- | --- | --- |");
            println!(
                "| {setup_name} | {} | {still_open} | {} | {:.1} / {:.1} ms | {} ({}) | {:.0} / {:.0} ms |",
                args.sockets,
                tally.errors[ws],
                quantile(opens, 0.5),
                quantile(opens, 0.99),
                tally.all[login].len(),
                tally.errors[login],
                quantile(&tally.all[login], 0.5),
                quantile(&tally.all[login], 0.99),
            );
            println!();
            println!("| set-up | instance | sockets counted by /metrics | RSS idle | RSS after logins | RSS with the sockets (after the ramp / end of hold) | RSS peak | VmHWM |");
            println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
            for (k, &pid) in pids.iter().enumerate() {
                println!(
                    "| {setup_name} | {} | {} | {} | {} | **{}** / {} | {} | {} |",
                    k + 1,
                    counted
                        .get(k)
                        .copied()
                        .flatten()
                        .map_or("?".into(), |n| n.to_string()),
                    mib(idle[k]),
                    mib(before[k]),
                    mib(after_ramp[k]),
                    mib(at_end[k]),
                    mib(peaks[k]),
                    mib(memory_kib(pid).1),
                );
            }
            println!(
                "| {setup_name} | the generator | | | | {} | | |",
                mib(memory_kib(me).0)
            );
        }
    }
    Ok(())
}

/// `signaldesk_websocket_clients` of each instance's `/metrics`.
async fn websocket_clients(plan: &Plan) -> Vec<Option<u64>> {
    let mut counts = Vec::new();
    for base in &plan.bases {
        let text = async {
            plan.clients[0]
                .get(format!("{base}/metrics"))
                .send()
                .await
                .ok()?
                .text()
                .await
                .ok()
        }
        .await
        .unwrap_or_default();
        counts.push(text.lines().find_map(websocket_clients_in));
    }
    counts
}

/// The value of a `signaldesk_websocket_clients` line, with or without labels (every series
/// carries `instance="…"`): `signaldesk_websocket_clients{instance="a-1"} 10000`.
fn websocket_clients_in(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("signaldesk_websocket_clients")?;
    if !(rest.starts_with(' ') || rest.starts_with('{')) {
        return None;
    }
    let (_, value) = rest.rsplit_once(' ')?;
    value.trim().parse::<f64>().ok().map(|n| n as u64)
}

fn print_calls(setup_name: &str, args: &Args, tally: &mut Tally, window: Duration) {
    println!("| set-up | call | count | per second | p50 | p99 | max | errors (whole run) |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (call, name) in CALLS {
        let i = call as usize;
        // Logins and websocket opens happen during the ramp: all of them are counted.
        let (times, over) = match call {
            Call::Login | Call::WsOpen => (&mut tally.all[i], "ramp"),
            _ => (&mut tally.times[i], "window"),
        };
        times.sort_unstable();
        let per_second = match over {
            "ramp" => times.len() as f64 / args.ramp.max(1) as f64,
            _ => times.len() as f64 / window.as_secs_f64(),
        };
        println!(
            "| {setup_name} | {name} | {} | {per_second:.1} | **{:.1} ms** | **{:.1} ms** | {:.1} ms | {} |",
            times.len(),
            quantile(times, 0.5),
            quantile(times, 0.99),
            times.last().map_or(0.0, |&m| m as f64 / 1000.0),
            tally.errors[i],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::websocket_clients_in;

    #[test]
    fn reads_the_socket_count_with_or_without_labels() {
        let labelled = "signaldesk_websocket_clients{instance=\"a-1\"} 10000";
        assert_eq!(websocket_clients_in(labelled), Some(10000));
        assert_eq!(
            websocket_clients_in("signaldesk_websocket_clients 5000"),
            Some(5000)
        );
        assert_eq!(
            websocket_clients_in("signaldesk_websocket_clients_total 3"),
            None
        );
        assert_eq!(
            websocket_clients_in("# HELP signaldesk_websocket_clients x"),
            None
        );
    }
}
