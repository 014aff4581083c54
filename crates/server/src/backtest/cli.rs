//! `signaldesk backtest`: a user's bot, with their saved settings (and any `--set` changes),
//! over the simulated market's history or stored Bybit candles; prints the summary, or JSON
//! with `--json`.

use anyhow::{bail, Context};
use chrono::NaiveDate;
use serde_json::{Map, Value};
use signaldesk_backtest::sweep::{sweep as sweep_runs, Axis, Cell};
use signaldesk_backtest::walk_forward::{walk_forward, Layout, Metric, WalkForward};
use signaldesk_backtest::{Backtest, Data, Outcome, Progress, Request, Source};
use signaldesk_store::Store;

use super::market_of;
use super::no_trades::NoTradesView;
use super::view::{BacktestResult, HistoryView, WalkForwardResult};
use crate::app::now_ms;
use crate::config::Config;

/// What the command was asked.
pub struct Asked {
    pub username: String,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    pub symbols: Vec<String>,
    pub source: Source,
    pub data: Data,
    /// `key=value` settings changes; a value that is not JSON is taken as text.
    pub set: Vec<String>,
    pub json: bool,
    /// `key=v1,v2,…`: a sweep over these values (at most two keys).
    pub sweep: Vec<String>,
    /// `N:M`: a walk-forward of the sweep, N training days, M test days.
    pub walk_forward: Option<String>,
    /// The walk-forward's metric, by name.
    pub metric: String,
}

/// The 30 days up to yesterday when no dates are given.
const DEFAULT_DAYS: i64 = 30;

pub async fn run(config: &Config, asked: Asked) -> anyhow::Result<()> {
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    let Some(user) = store.user_by_username(asked.username.trim()).await? else {
        bail!("no user \"{}\"", asked.username);
    };
    let saved = store.settings_or_default(user.id, now_ms()).await?.settings;
    let today = chrono::Utc::now()
        .with_timezone(&saved.timezone())
        .date_naive();
    let to = asked.to.unwrap_or(today - chrono::Days::new(1));
    let from = asked
        .from
        .unwrap_or(to - chrono::Days::new(DEFAULT_DAYS as u64 - 1));
    let request = Request {
        date_from: from,
        date_to: to,
        symbols: asked.symbols,
        source: asked.source,
        data: asked.data,
        overrides: overrides(&asked.set)?,
        sweep: sweep_axes(&asked.sweep)?,
        walk_forward: walk_forward_of(asked.walk_forward.as_deref(), &asked.metric)?,
    };
    let market = market_of(config);
    let checked = request.check(&saved, today)?;
    let axes = checked.sweep.clone();
    let walk = checked.walk_forward.clone();
    let tz = checked.settings.timezone();
    let run = checked.load(&market, &store, user.id).await?;
    // Stored candles are read through the store as the run goes: it closes once it is done.
    let done = if let Some((plan, layout)) = walk {
        run_walk_forward(run, axes, plan, layout, tz, asked.json).await
    } else if axes.is_empty() {
        let heading = Heading {
            username: &user.username,
            from,
            to,
            interval_minutes: market.interval_minutes,
        };
        run_once(run, heading, asked.json).await
    } else {
        run_sweep(run, axes, asked.json).await
    };
    store.close().await;
    done
}

/// Who and what a run's summary is about.
struct Heading<'a> {
    username: &'a str,
    from: NaiveDate,
    to: NaiveDate,
    interval_minutes: u32,
}

/// Runs the backtest and prints its summary, or its result as JSON.
async fn run_once(run: Backtest, heading: Heading<'_>, json: bool) -> anyhow::Result<()> {
    let run = std::sync::Arc::new(run);
    let outcome = {
        let run = run.clone();
        tokio::task::spawn_blocking(move || run.run_on_a_core(&Progress::default())).await??
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&BacktestResult::of(&run, outcome, usize::MAX))?
        );
    } else {
        print_summary(&heading, run.candles.symbols().len(), &outcome);
        let history = HistoryView::of(&run.candles);
        if let Some(why) = NoTradesView::of(&outcome, &run.signals, &history) {
            println!("no trades: {}", why.text);
        }
    }
    Ok(())
}

/// `key=v1,v2,…` for each swept setting (checked with the request: at most two keys, values
/// the settings accept).
fn sweep_axes(sweep: &[String]) -> anyhow::Result<Vec<Axis>> {
    let mut axes = Vec::new();
    for spec in sweep {
        let Some((field, values)) = spec.split_once('=') else {
            bail!("--sweep takes key=v1,v2,…, not \"{spec}\"");
        };
        axes.push(Axis {
            field: field.trim().to_string(),
            values: values.split(',').map(|v| json_or_text(v.trim())).collect(),
        });
    }
    Ok(axes)
}

/// Runs every combination on all cores and prints each cell's total pnl and max drawdown
/// (a table with rows for the first key's values and columns for the second's), or JSON.
async fn run_sweep(run: Backtest, axes: Vec<Axis>, json: bool) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let for_threads = axes.clone();
    let cells = tokio::task::spawn_blocking(move || {
        sweep_runs(&run, &for_threads, threads, &Progress::default())
    })
    .await??;
    if json {
        println!("{}", serde_json::to_string_pretty(&cells)?);
        return Ok(());
    }
    let cell_text = |cell: &Cell| match &cell.outcome {
        Ok(s) => format!("{:.2} / {:.2} %", s.stats.total_pnl, s.max_drawdown_pct),
        Err(e) => format!("refused: {e}"),
    };
    println!(
        "total pnl (USDT) / max drawdown, per {}",
        axes.iter()
            .map(|a| a.field.as_str())
            .collect::<Vec<_>>()
            .join(" x ")
    );
    let columns = axes.get(1).map_or(1, |a| a.values.len());
    for (row, chunk) in cells.chunks(columns).enumerate() {
        let label = &axes[0].values[row];
        let line: Vec<String> = chunk
            .iter()
            .map(|cell| match axes.get(1) {
                Some(axis) => format!(
                    "{}={}: {}",
                    axis.field,
                    cell.values[&axis.field],
                    cell_text(cell)
                ),
                None => cell_text(cell),
            })
            .collect();
        println!("{}={label}: {}", axes[0].field, line.join(" | "));
    }
    Ok(())
}

/// `N:M` as a walk-forward of N training days and M test days with `metric` (the days'
/// bounds are checked with the request, as the API checks them).
fn walk_forward_of(spec: Option<&str>, metric: &str) -> anyhow::Result<Option<WalkForward>> {
    let Some(spec) = spec else {
        return Ok(None);
    };
    let days = spec
        .split_once(':')
        .and_then(|(n, m)| Some((n.trim().parse().ok()?, m.trim().parse().ok()?)));
    let Some((train_days, test_days)) = days else {
        bail!("--walk-forward takes TRAIN:TEST days, e.g. 30:10, not \"{spec}\"");
    };
    let metric = Metric::parse(metric).map_err(|why| anyhow::anyhow!("--metric: {why}"))?;
    Ok(Some(WalkForward {
        train_days,
        test_days,
        metric,
    }))
}

/// Runs the walk-forward and prints a line per window (the dates, the chosen values, the
/// in-sample and out-of-sample pnl) and the totals, or its result as JSON.
async fn run_walk_forward(
    run: Backtest,
    axes: Vec<Axis>,
    plan: WalkForward,
    layout: Layout,
    tz: chrono_tz::Tz,
    json: bool,
) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let run = std::sync::Arc::new(run);
    let (for_threads, for_axes, for_layout) = (run.clone(), axes.clone(), layout.clone());
    let outcome = tokio::task::spawn_blocking(move || {
        walk_forward(
            &for_threads,
            &for_axes,
            &plan,
            &for_layout,
            tz,
            threads,
            &Progress::default(),
        )
    })
    .await??;
    let view = WalkForwardResult::of(&run, &axes, &plan, &layout, outcome);
    if json {
        println!("{}", serde_json::to_string_pretty(&view)?);
        return Ok(());
    }
    let w = &view.walk_forward;
    println!(
        "walk-forward of {}: {} training days, {} test days, best by {}",
        axes.iter()
            .map(|a| a.field.as_str())
            .collect::<Vec<_>>()
            .join(" x "),
        w.train_days,
        w.test_days,
        w.metric
    );
    if let (Some(from), Some(to)) = (&w.unused_from, &w.unused_to) {
        println!("unused: {from} to {to} (less than a test window)");
    }
    for window in &w.windows {
        let dates = format!(
            "train {} to {}, test {} to {}",
            window.train_from, window.train_to, window.test_from, window.test_to
        );
        let (Some(chosen), Some(is), Some(oos)) =
            (&window.chosen, &window.in_sample, &window.out_of_sample)
        else {
            println!("{dates}: {}", window.error.as_deref().unwrap_or("no cell"));
            continue;
        };
        let values: Vec<String> = axes
            .iter()
            .zip(chosen)
            .map(|(a, v)| format!("{}={v}", a.field))
            .collect();
        println!(
            "{dates}: {}; in-sample {:.2} USDT ({:.2} a day); out-of-sample {:.2} USDT ({:.2} a day){}",
            values.join(" "),
            is.total_pnl,
            is.pnl_per_day,
            oos.total_pnl,
            oos.pnl_per_day,
            if window.far_below { "; far below in-sample" } else { "" }
        );
    }
    println!(
        "total: in-sample {:.2} USDT; out-of-sample {:.2} USDT{}",
        w.in_sample_pnl,
        w.out_of_sample_pnl,
        if w.far_below {
            "; far below in-sample"
        } else {
            ""
        }
    );
    Ok(())
}

/// A command-line value: JSON where it reads as JSON (`3`, `true`), text otherwise.
fn json_or_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()))
}

fn overrides(set: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut map = Map::new();
    for pair in set {
        let Some((key, value)) = pair.split_once('=') else {
            bail!("--set takes key=value, not \"{pair}\"");
        };
        let value = json_or_text(value);
        map.insert(key.trim().to_string(), value);
    }
    Ok(map)
}

fn print_summary(heading: &Heading<'_>, symbols: usize, outcome: &Outcome) {
    let Heading {
        username,
        from,
        to,
        interval_minutes,
    } = heading;
    let s = &outcome.summary;
    println!(
        "Backtest of \"{username}\" from {from} to {to}: {symbols} symbols, ratings on {interval_minutes}-minute candles, prices on 1-minute paths"
    );
    println!(
        "closed trades: {} ({} won, {} lost, win rate {:.1} %); open at the end: {}",
        s.stats.total_trades,
        s.stats.win_trades,
        s.stats.lose_trades,
        s.stats.win_rate,
        s.open_at_end
    );
    println!(
        "total pnl: {:.2} USDT (average {:.2}); fees {:.2} USDT; funding {:.2} USDT; volume {:.2} USDT",
        s.stats.total_pnl, s.stats.avg_pnl, s.fees, s.funding, s.volume
    );
    println!(
        "balance: {:.2} -> {:.2} USDT; max drawdown {:.2} %",
        s.starting_balance, s.final_balance, s.max_drawdown_pct
    );
}
