//! `signaldesk parity`: the signals a user's bot acted on in a period replayed through a
//! backtest of the user's current settings on the account's market, and the two sets of
//! trades side by side (docs/parity.md). Exits with [`DIFFERENCES_EXIT`] when they differ.

use anyhow::{bail, Context};
use chrono::DateTime;
use chrono_tz::Tz;
use rust_decimal::Decimal;
use signaldesk_backtest::parity::{self, Report, Row, Side};
use signaldesk_backtest::BacktestError;
use signaldesk_store::Store;

use super::account_market;
use crate::app::now_ms;
use crate::config::Config;

/// The exit code when live and backtest differ (1 is an error, 2 a usage error).
pub const DIFFERENCES_EXIT: u8 = 3;

/// The two sides differ: how many rows.
#[derive(Debug, thiserror::Error)]
#[error("live and backtest differ in {0} trade(s)")]
pub struct Differences(pub usize);

pub struct Asked {
    pub username: String,
    pub from: String,
    pub to: String,
    pub json: bool,
}

pub async fn run(config: &Config, asked: Asked) -> anyhow::Result<()> {
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    let done = compare(config, &store, &asked).await;
    store.close().await;
    let report = done?;
    if asked.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    if report.differences > 0 {
        return Err(Differences(report.differences).into());
    }
    Ok(())
}

async fn compare(config: &Config, store: &Store, asked: &Asked) -> anyhow::Result<Report> {
    let Some(user) = store.user_by_username(asked.username.trim()).await? else {
        bail!("no user \"{}\"", asked.username);
    };
    let settings = store.settings_or_default(user.id, now_ms()).await?.settings;
    let tz = settings.timezone();
    let venue = store.account_venue(user.id).await?;
    let (market, market_now) = account_market(config, venue, now_ms())?;
    let (from_ms, to_ms) =
        parity::period(&asked.from, &asked.to, tz, market_now).map_err(BacktestError::Invalid)?;
    let report = parity::run(store, user.id, venue, &settings, &market, from_ms, to_ms).await?;
    if !asked.json {
        print!("{}", table(&user.username, tz, &report));
    }
    Ok(report)
}

fn time(ms: Option<i64>, tz: Tz) -> String {
    ms.and_then(DateTime::from_timestamp_millis)
        .map(|t| {
            t.with_timezone(&tz)
                .format("%Y-%m-%d %H:%M:%S%.3f")
                .to_string()
        })
        .unwrap_or_else(|| "-".into())
}

fn number(d: Option<Decimal>) -> String {
    d.map(|d| d.normalize().to_string())
        .unwrap_or_else(|| "-".into())
}

fn signed(d: Option<Decimal>) -> String {
    match d {
        Some(d) if d > Decimal::ZERO => format!("+{}", d.normalize()),
        Some(d) => d.normalize().to_string(),
        None => "-".into(),
    }
}

fn signed_ms(ms: Option<i64>) -> String {
    match ms {
        Some(ms) if ms > 0 => format!("+{ms} ms"),
        Some(ms) => format!("{ms} ms"),
        None => "-".into(),
    }
}

/// The report as text: a block per trade (Live | Backtest | Difference), then the totals.
pub fn table(username: &str, tz: Tz, report: &Report) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "Parity of \"{username}\" from {} up to {} ({tz}, the end excluded): {} signals replayed with the user's current settings on the {} market\n\n",
        time(Some(report.from_ms), tz),
        time(Some(report.to_ms), tz),
        report.signals,
        match report.data {
            signaldesk_backtest::Data::Simulated => "simulated",
            signaldesk_backtest::Data::Bybit => "stored Bybit",
        },
    ));
    for row in &report.rows {
        out.push_str(&block(row, tz));
        out.push('\n');
    }
    let t = &report.totals;
    out.push_str(&format!(
        "{:<10} {:>12} {:>14} {:>14} {:>14}\n",
        "totals", "trades", "fees", "funding", "pnl"
    ));
    for (label, trades, fees, funding, pnl) in [
        (
            "live",
            t.live.trades.to_string(),
            t.live.fees,
            t.live.funding,
            t.live.pnl,
        ),
        (
            "backtest",
            t.backtest.trades.to_string(),
            t.backtest.fees,
            t.backtest.funding,
            t.backtest.pnl,
        ),
    ] {
        out.push_str(&format!(
            "{label:<10} {trades:>12} {:>14} {:>14} {:>14}\n",
            number(Some(fees)),
            number(Some(funding)),
            number(Some(pnl))
        ));
    }
    let d = &t.difference;
    out.push_str(&format!(
        "{:<10} {:>12} {:>14} {:>14} {:>14}\n",
        "difference",
        if d.trades > 0 {
            format!("+{}", d.trades)
        } else {
            d.trades.to_string()
        },
        signed(Some(d.fees)),
        signed(Some(d.funding)),
        signed(Some(d.pnl))
    ));
    out.push_str(&match report.differences {
        0 => "\nNo differences: live and backtest agree trade for trade.\n".to_string(),
        n => format!("\n{n} trade(s) differ.\n"),
    });
    out
}

fn block(row: &Row, tz: Tz) -> String {
    let side = row
        .live
        .as_ref()
        .or(row.backtest.as_ref())
        .map_or("", |s| s.side.as_str());
    let signal = row
        .signal_id
        .map_or_else(|| "no signal".to_string(), |id| format!("signal #{id}"));
    let verdict = if row.agrees { "agrees" } else { "DIFFERS" };
    let mut out = format!(
        "{} {side} ({signal}, step {}): {verdict}\n",
        row.symbol, row.step
    );
    if let Some(reason) = &row.reason {
        out.push_str(&format!("  {reason}\n"));
    }
    let l = row.live.as_ref();
    let b = row.backtest.as_ref();
    let d = row.difference.as_ref();
    let get = |s: Option<&Side>, f: &dyn Fn(&Side) -> String| s.map_or("-".to_string(), f);
    let lines: [(&str, String, String, String); 7] = [
        (
            "entry time",
            get(l, &|s| time(s.entry_at, tz)),
            get(b, &|s| time(s.entry_at, tz)),
            d.map_or("-".into(), |d| signed_ms(d.entry_at_ms)),
        ),
        (
            "entry price",
            get(l, &|s| number(s.entry_price)),
            get(b, &|s| number(s.entry_price)),
            d.map_or("-".into(), |d| signed(d.entry_price)),
        ),
        (
            "exit time",
            get(l, &|s| time(s.exit_at, tz)),
            get(b, &|s| time(s.exit_at, tz)),
            d.map_or("-".into(), |d| signed_ms(d.exit_at_ms)),
        ),
        (
            "exit price",
            get(l, &|s| number(s.exit_price)),
            get(b, &|s| number(s.exit_price)),
            d.map_or("-".into(), |d| signed(d.exit_price)),
        ),
        (
            "fees",
            get(l, &|s| number(Some(s.fees))),
            get(b, &|s| number(Some(s.fees))),
            d.map_or("-".into(), |d| signed(Some(d.fees))),
        ),
        (
            "funding",
            get(l, &|s| number(Some(s.funding))),
            get(b, &|s| number(Some(s.funding))),
            d.map_or("-".into(), |d| signed(Some(d.funding))),
        ),
        (
            "pnl",
            get(l, &|s| number(Some(s.pnl))),
            get(b, &|s| number(Some(s.pnl))),
            d.map_or("-".into(), |d| signed(Some(d.pnl))),
        ),
    ];
    out.push_str(&format!(
        "  {:<12} {:<24} {:<24} {}\n",
        "", "live", "backtest", "difference"
    ));
    for (label, live, back, diff) in lines {
        out.push_str(&format!("  {label:<12} {live:<24} {back:<24} {diff}\n"));
    }
    out
}
