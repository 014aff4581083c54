//! `signaldesk-history-bench`: how the product behaves with a long history, measured from
//! outside as a user sees it (docs/benchmarks.md, "A long history").
//!
//! For each database asked for, on a fresh database (a temporary SQLite file, or a new
//! PostgreSQL database on `TEST_DATABASE_URL`'s server, dropped afterwards): creates a user,
//! writes a history file of N closed trades (two years of closes up to an hour ago, in
//! docs/history-import.md's format), times `signaldesk history import` of it, starts
//! `signaldesk serve` on a free port and times `GET /api/stats/?period=all`,
//! `GET /api/statistics/?period=all` and `GET /api/dashboard/`: the first call, then p50, p95
//! and max of `--requests` calls one after another. Prints one Markdown table row per figure.
//! Not part of `make test`: `make bench-history` runs it against the release binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use signaldesk_bench_harness::{signaldesk, Database, Server};

#[derive(Parser)]
struct Args {
    /// The signaldesk binary to measure (build it with --release).
    #[arg(long, default_value = "target/release/signaldesk")]
    bin: PathBuf,
    /// Closed trades in the history.
    #[arg(long, default_value_t = 100_000)]
    trades: usize,
    /// `sqlite`, `postgres` (needs TEST_DATABASE_URL), or both (the default).
    #[arg(long, value_delimiter = ',', default_value = "sqlite,postgres")]
    database: Vec<String>,
    /// Timed calls per endpoint, after 10 unmeasured ones.
    #[arg(long, default_value_t = 200)]
    requests: usize,
}

const USER: &str = "bench";
const PASSWORD: &str = "bench-password-1234";
const ENDPOINTS: [&str; 3] = [
    "/api/stats/?period=all",
    "/api/statistics/?period=all",
    "/api/dashboard/",
];

/// Two years of closes, evenly spaced, the last an hour ago; pnl from -10.00 to +10.00,
/// summing to about zero (the paper wallet, which knows nothing of an imported history, then
/// stays above the curve's start), with many highs and falls.
fn write_history(path: &Path, trades: usize) -> anyhow::Result<()> {
    const MINUTE: i64 = 60_000;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis() as i64;
    let end = now - 60 * MINUTE;
    let span = 2 * 365 * 24 * 60 * MINUTE;
    let step = span / trades.max(1) as i64;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    write!(out, "{{\"trades\": [")?;
    for i in 0..trades as i64 {
        let closed = end - span + i * step;
        let opened = closed - 10 * MINUTE;
        let cents = (i * 7919) % 2001 - 1000;
        let pnl = format!(
            "{}{}.{:02}",
            if cents < 0 { "-" } else { "" },
            cents.abs() / 100,
            cents.abs() % 100
        );
        let rfc = chrono_free_rfc3339;
        if i > 0 {
            write!(out, ",")?;
        }
        write!(
            out,
            "\n{{\"symbol\":\"BTCUSDT\",\"side\":\"{}\",\"leverage\":10,\"margin\":\"100\",\
             \"qty\":\"0.01\",\"entry_price\":\"30000\",\"exit_price\":\"30010\",\
             \"pnl\":\"{pnl}\",\"fees\":\"0.3\",\"opened_at\":\"{}\",\"closed_at\":\"{}\"}}",
            if i % 2 == 0 { "long" } else { "short" },
            rfc(opened),
            rfc(closed)
        )?;
    }
    writeln!(out, "\n]}}")?;
    out.flush()?;
    Ok(())
}

/// `ms` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (civil-from-days, no date library needed).
fn chrono_free_rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms.rem_euclid(1000)
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn measure(args: &Args, backend: &str, url: &str, dir: &Path) -> anyhow::Result<()> {
    let data = dir.join("data");
    signaldesk(
        &args.bin,
        &["user", "create", "--username", USER, "--password", PASSWORD],
        url,
        &data,
    )?;
    let file = dir.join("history.json");
    write_history(&file, args.trades)?;
    let path = file.to_string_lossy().to_string();
    let took = signaldesk(
        &args.bin,
        &["history", "import", "--username", USER, "--file", &path],
        url,
        &data,
    )?;
    println!(
        "| {backend} | {} | `signaldesk history import` | {:.2} s | | |",
        args.trades,
        took.as_secs_f64()
    );
    if backend == "postgres" {
        // What autovacuum does within a minute of a bulk load; the figures are for a steady
        // state, not for the first minute after an import.
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(url).await?;
        sqlx::Executor::execute(&mut conn, "ANALYZE").await?;
    }

    let server = Server::start(&args.bin, url, &data, None).await?;
    let client = reqwest::Client::new();
    let base = server.base.clone();
    let login: serde_json::Value = client
        .post(format!("{base}/api/auth/login/"))
        .json(&serde_json::json!({"username": USER, "password": PASSWORD}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let token = login["token"].as_str().context("no token")?.to_string();
    for path in ENDPOINTS {
        let call = || async {
            let started = Instant::now();
            let res = client
                .get(format!("{base}{path}"))
                .header("Authorization", format!("Token {token}"))
                .send()
                .await?
                .error_for_status()?;
            let body = res.bytes().await?;
            anyhow::Ok((started.elapsed(), body.len()))
        };
        let (first, size) = call().await?;
        for _ in 0..10 {
            call().await?;
        }
        let mut times = Vec::with_capacity(args.requests);
        for _ in 0..args.requests {
            times.push(call().await?.0);
        }
        times.sort();
        let at =
            |q: f64| times[((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1];
        println!(
            "| {backend} | {} | `GET {path}` ({size} B) | **{:.2} ms** | {:.2} ms | first {:.1} ms, max {:.1} ms |",
            args.trades,
            ms(at(0.5)),
            ms(at(0.95)),
            ms(first),
            ms(*times.last().unwrap_or(&Duration::ZERO)),
        );
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    println!("| database | trades | measured | p50 | p95 | |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for backend in &args.database {
        let db = Database::create(backend, "bench").await?;
        let outcome = measure(&args, db.backend, &db.url, db.dir.path()).await;
        db.drop_now().await?;
        outcome?;
    }
    Ok(())
}
