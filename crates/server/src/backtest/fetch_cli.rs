//! `signaldesk candles fetch`: Bybit's instruments of the symbols, then their 1-minute
//! candles and funding rates of the days, into the database (docs/backtesting.md, "Bybit's history"), with a
//! line of progress per page.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Context};
use chrono::NaiveDate;
use signaldesk_backtest::fetch::{fetch_candles, fetch_funding};
use signaldesk_backtest::fetch_instruments::fetch_instruments;
use signaldesk_backtest::request::is_symbol_name;
use signaldesk_core::stats::local_dates_range;
use signaldesk_store::Store;
use signaldesk_venue::bybit::http::BybitHttpClient;

use crate::config::Config;

/// The pause between two kline requests: 10 a second, far inside Bybit's public limit of
/// 600 requests in 5 seconds per IP address.
const PACE: Duration = Duration::from_millis(100);
const TIMEOUT: Duration = Duration::from_secs(15);

pub async fn run(
    config: &Config,
    symbols: Vec<String>,
    from: NaiveDate,
    to: NaiveDate,
) -> anyhow::Result<()> {
    if to < from {
        bail!("--to must not be before --from");
    }
    let symbols: Vec<String> = symbols.iter().map(|s| s.trim().to_uppercase()).collect();
    if symbols.is_empty() {
        bail!("--symbols names at least one symbol");
    }
    if let Some(bad) = symbols.iter().find(|s| !is_symbol_name(s)) {
        bail!("not a symbol: {bad:?}");
    }
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    let client = BybitHttpClient::new(&config.market.bybit_rest_url, TIMEOUT)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // Every symbol's instrument first: one Bybit does not trade stops the fetch before
    // anything is stored.
    for stored in fetch_instruments(&client, &store, &symbols, PACE).await? {
        let i = &stored.instrument;
        println!(
            "{}: Bybit's instrument stored: tick size {}, quantity step {}, minimum quantity {}, minimum value {} USDT, leverage up to {}x, maintenance margin {} in the first of {} risk tiers",
            i.symbol,
            i.tick_size,
            i.qty_step,
            i.min_qty,
            i.min_notional,
            i.max_leverage,
            stored.maintenance_margin_rate().unwrap_or_default(),
            stored.risk_tiers.len()
        );
    }
    // Whole UTC days.
    let (from_ms, to_ms) = local_dates_range(from, to, chrono_tz::UTC);
    for symbol in &symbols {
        let mut stderr = std::io::stderr();
        let done = fetch_candles(
            &client,
            &store,
            symbol,
            from_ms,
            to_ms,
            PACE,
            |have, total| {
                let _ = write!(stderr, "\r{symbol}: {have} of {total} minutes stored");
                let _ = stderr.flush();
            },
        )
        .await;
        eprintln!();
        let done = done?;
        println!(
            "{symbol}: {} minutes stored before, {} fetched in {} requests, {} with no candle at Bybit",
            done.stored_before, done.stored_now, done.requests, done.missing
        );
        let funding = fetch_funding(&client, &store, symbol, from_ms, to_ms, PACE).await?;
        println!(
            "{symbol}: {} funding rates stored before, {} fetched in {} requests",
            funding.stored_before, funding.stored_now, funding.requests
        );
    }
    store.close().await;
    Ok(())
}
