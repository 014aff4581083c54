//! `signaldesk candles import`: a CSV file or a Freqtrade data directory of 1-minute candles
//! into the database (docs/backtesting.md, "Your own candles"), with a line of progress per
//! file and per chunk on standard error and a summary per symbol on standard output.

use std::path::PathBuf;

use anyhow::{bail, Context};
use signaldesk_backtest::import::{self, csv, freqtrade, time_text, ImportError};
use signaldesk_backtest::request::is_symbol_name;
use signaldesk_core::market::Candle;
use signaldesk_store::Store;

use crate::config::Config;

/// What to import.
pub enum Source {
    /// A CSV file of one symbol: `--symbol`, or the one its name starts with.
    Csv {
        file: PathBuf,
        symbol: Option<String>,
    },
    /// A Freqtrade data directory.
    Freqtrade { dir: PathBuf },
}

pub async fn run(config: &Config, source: Source) -> anyhow::Result<()> {
    // Which files, before the database is opened: a wrong name costs nothing.
    let files = match source {
        Source::Csv { file, symbol } => {
            let symbol = match symbol {
                Some(given) => {
                    let symbol = given.trim().to_uppercase();
                    if !is_symbol_name(&symbol) {
                        bail!("not a symbol: {given:?}");
                    }
                    symbol
                }
                None => csv::symbol_of_file_name(&file).with_context(|| {
                    format!(
                        "name the symbol with --symbol: the name of {} does not start with one (like BTCUSDT.csv)",
                        file.display()
                    )
                })?,
            };
            vec![(file, symbol, None)]
        }
        Source::Freqtrade { dir } => {
            let listing = freqtrade::list(&dir)?;
            for (name, why) in &listing.skipped {
                println!("{name}: skipped, {why}");
            }
            listing
                .files
                .into_iter()
                .map(|f| (f.path.clone(), f.symbol.clone(), Some(f)))
                .collect()
        }
    };
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    for (path, symbol, freqtrade_file) in files {
        eprintln!("{symbol}: reading {}", path.display());
        let candles = tokio::task::spawn_blocking(move || match freqtrade_file {
            Some(file) => freqtrade::read(&file),
            None => csv::read(&path),
        })
        .await??;
        import_one(&store, &symbol, &candles).await?;
    }
    store.close().await;
    Ok(())
}

/// Stores one file's candles of `symbol` and says how it went.
async fn import_one(store: &Store, symbol: &str, candles: &[Candle]) -> Result<(), ImportError> {
    let (Some(first), Some(last)) = (candles.first(), candles.last()) else {
        println!("{symbol}: no candle in the file");
        return Ok(());
    };
    let done = import::store_candles(store, symbol, candles, |done, total| {
        eprintln!("{symbol}: {done} of {total} candles compared with the store and stored");
    })
    .await?;
    let nothing = if done.new + done.replaced == 0 {
        ": nothing new to store"
    } else {
        ""
    };
    println!(
        "{symbol}: {} candles read from {} to {}, {} stored new, {} already stored, {} replaced{nothing}",
        done.read,
        time_text(first.open_time_ms),
        time_text(last.open_time_ms),
        done.new,
        done.unchanged,
        done.replaced,
    );
    if store.instrument(symbol).await?.is_none() {
        println!("{}", no_instrument(symbol, first, last));
    }
    Ok(())
}

/// A backtest needs the symbol's instrument, which only Bybit gives: the command that
/// stores it (and the funding rates of those days) and fetches only the minutes the import
/// left missing.
fn no_instrument(symbol: &str, first: &Candle, last: &Candle) -> String {
    let day = |ms: i64| time_text(ms)[..10].to_string();
    format!(
        "{symbol}: no instrument stored, so a backtest on it is refused until `signaldesk candles fetch --symbols {symbol} --from {} --to {}` stores Bybit's (it fetches only the minutes still missing in those days)",
        day(first.open_time_ms),
        day(last.open_time_ms)
    )
}
