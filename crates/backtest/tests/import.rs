//! `candles import` on every database: a CSV file in any order with gaps, a Freqtrade
//! directory's feather (Arrow IPC, lz4, written here with the same crate) and json files
//! with the files it does not read skipped, a re-import storing nothing new, bad rows
//! refused naming the file and the row before anything is stored, and a backtest on
//! imported candles: refused where they do not cover the period (the message of fetched
//! ones), run where they do.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, TimestampNanosecondArray};
use arrow_ipc::writer::{FileWriter, IpcWriteOptions};
use arrow_ipc::CompressionType;
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use chrono::{NaiveDate, TimeZone, Utc};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_backtest::data::simulated_minutes;
use signaldesk_backtest::import::{self, csv, freqtrade, Stored};
use signaldesk_backtest::{BacktestError, Data, Market, Progress, Request, Source};
use signaldesk_core::market::{Candle, RiskTier};
use signaldesk_core::settings::BotSettings;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, StoredInstrument};
use signaldesk_venue::market::sim::default_symbols;
use signaldesk_venue::paper::PaperConfig;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 1440 * MINUTE_MS;

fn start_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis()
}

/// `count` minutes from the start but for minutes 100 to 109 (a gap), prices moving.
fn minutes(count: i64) -> Vec<Candle> {
    (0..count)
        .filter(|m| !(100..110).contains(m))
        .map(|m| {
            let open = Decimal::from(20_000 + m % 53) + dec!(0.5);
            Candle {
                open_time_ms: start_ms() + m * MINUTE_MS,
                open,
                high: open + dec!(3.25),
                low: open - dec!(2),
                close: open + dec!(1.1),
                volume: Decimal::from(m) / dec!(4),
            }
        })
        .collect()
}

fn csv_text(candles: &[Candle], time: impl Fn(i64) -> String) -> String {
    let mut text = String::from("time,open,high,low,close,volume\n");
    for c in candles {
        text += &format!(
            "{},{},{},{},{},{}\n",
            time(c.open_time_ms),
            c.open,
            c.high,
            c.low,
            c.close,
            c.volume
        );
    }
    text
}

/// Newest first, then the odd ones: any order.
fn shuffled(candles: &[Candle]) -> Vec<Candle> {
    let mut out: Vec<Candle> = candles.iter().rev().step_by(2).cloned().collect();
    out.extend(candles.iter().rev().skip(1).step_by(2).cloned());
    out
}

async fn stored(store: &Store, symbol: &str) -> Vec<Candle> {
    store
        .candles_between(symbol, 0, i64::MAX / 2)
        .await
        .unwrap()
}

async fn store_all(store: &Store, symbol: &str, candles: &[Candle]) -> Stored {
    let mut said = Vec::new();
    let done = import::store_candles(store, symbol, candles, |done, total| {
        said.push((done, total))
    })
    .await
    .unwrap();
    assert_eq!(said.last(), Some(&(candles.len(), candles.len())));
    done
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_csv_file_in_any_order_with_gaps_is_imported_and_again_stores_nothing_new() {
    let history = minutes(2 * 1440);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("BTCUSDT.csv");
    // Unix seconds, newest first and shuffled.
    std::fs::write(
        &path,
        csv_text(&shuffled(&history), |ms| (ms / 1000).to_string()),
    )
    .unwrap();
    assert_eq!(csv::symbol_of_file_name(&path).as_deref(), Some("BTCUSDT"));
    let read = csv::read(&path).unwrap();
    assert_eq!(read, history, "in time order, the gap kept");

    for (db, store) in TestDatabase::all_connected().await {
        let first = store_all(&store, "BTCUSDT", &read).await;
        assert_eq!(
            first,
            Stored {
                read: 2870,
                new: 2870,
                unchanged: 0,
                replaced: 0
            },
            "{}",
            db.url
        );
        assert_eq!(stored(&store, "BTCUSDT").await, history, "{}", db.url);

        let again = store_all(&store, "BTCUSDT", &read).await;
        assert_eq!(
            (again.new, again.unchanged, again.replaced),
            (0, 2870, 0),
            "{}",
            db.url
        );

        // Milliseconds and RFC 3339 times read as the same minutes; one corrected candle
        // replaces the stored one, and filling the gap adds its minutes.
        let mut corrected = minutes(2 * 1440 + 5);
        corrected[7].close = corrected[7].open;
        let mut filling: Vec<Candle> = corrected.clone();
        filling.extend((100..110).map(|m| Candle {
            open_time_ms: start_ms() + m * MINUTE_MS,
            ..corrected[0].clone()
        }));
        let rfc = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms)
                .unwrap()
                .to_rfc3339()
        };
        let text = csv_text(&filling, rfc);
        let read = csv::parse("fix.csv", &text).unwrap();
        let done = store_all(&store, "BTCUSDT", &read).await;
        assert_eq!(
            (done.new, done.unchanged, done.replaced),
            (15, 2869, 1),
            "{}",
            db.url
        );
        assert_eq!(stored(&store, "BTCUSDT").await.len(), 2885, "{}", db.url);
        let ms_text = csv_text(&filling, |ms| ms.to_string());
        let done = store_all(&store, "BTCUSDT", &csv::parse("ms.csv", &ms_text).unwrap()).await;
        assert_eq!(done.unchanged, 2885, "{}", db.url);
    }
}

/// A feather file as Freqtrade writes one (`to_feather(compression="lz4")`): `date` a UTC
/// timestamp in nanoseconds, the rest floats; `compressed` or not.
fn write_feather(path: &Path, candles: &[Candle], compressed: bool) {
    let float = |name: &str| Field::new(name, DataType::Float64, true);
    let schema = Arc::new(Schema::new(vec![
        Field::new(
            "date",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
        float("open"),
        float("high"),
        float("low"),
        float("close"),
        float("volume"),
    ]));
    let column = |f: fn(&Candle) -> Decimal| -> ArrayRef {
        Arc::new(Float64Array::from(
            candles
                .iter()
                .map(|c| f(c).to_f64().unwrap())
                .collect::<Vec<_>>(),
        ))
    };
    let dates = TimestampNanosecondArray::from(
        candles
            .iter()
            .map(|c| c.open_time_ms * 1_000_000)
            .collect::<Vec<_>>(),
    )
    .with_timezone("UTC");
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(dates),
            column(|c| c.open),
            column(|c| c.high),
            column(|c| c.low),
            column(|c| c.close),
            column(|c| c.volume),
        ],
    )
    .unwrap();
    let compression = compressed.then_some(CompressionType::LZ4_FRAME);
    let options = IpcWriteOptions::default()
        .try_with_compression(compression)
        .unwrap();
    let mut writer =
        FileWriter::try_new_with_options(File::create(path).unwrap(), &schema, options).unwrap();
    // Two batches, as a long file has.
    let half = batch.num_rows() / 2;
    writer.write(&batch.slice(0, half)).unwrap();
    writer
        .write(&batch.slice(half, batch.num_rows() - half))
        .unwrap();
    writer.finish().unwrap();
}

/// A json file as Freqtrade writes one (`to_json(orient="values")`).
fn json_text(candles: &[Candle]) -> String {
    let rows: Vec<serde_json::Value> = candles
        .iter()
        .map(|c| {
            let f = |d: Decimal| d.to_f64().unwrap();
            serde_json::json!([
                c.open_time_ms,
                f(c.open),
                f(c.high),
                f(c.low),
                f(c.close),
                f(c.volume)
            ])
        })
        .collect();
    serde_json::to_string(&rows).unwrap()
}

#[test]
fn the_feather_files_of_the_tests_are_lz4_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, lz4) = (dir.path().join("plain"), dir.path().join("lz4"));
    let history = minutes(1440);
    write_feather(&plain, &history, false);
    write_feather(&lz4, &history, true);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert!(
        size(&lz4) < size(&plain) * 3 / 4,
        "{} vs {}",
        size(&lz4),
        size(&plain)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_freqtrade_directory_s_feather_and_json_files_are_imported_and_the_others_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let futures = dir.path().join("futures");
    std::fs::create_dir(&futures).unwrap();
    let btc = minutes(1440);
    let eth: Vec<Candle> = shuffled(&minutes(700));
    write_feather(
        &futures.join("BTC_USDT_USDT-1m-futures.feather"),
        &btc,
        true,
    );
    std::fs::write(
        futures.join("ETH_USDT_USDT-1m-futures.json"),
        json_text(&eth),
    )
    .unwrap();
    write_feather(&futures.join("BTC_USDT_USDT-1h-mark.feather"), &btc, true);
    write_feather(
        &futures.join("BTC_USDT_USDT-8h-funding_rate.feather"),
        &btc,
        true,
    );
    std::fs::write(futures.join("ETH_USDT_USDT-5m-futures.json"), "[]").unwrap();

    let listing = freqtrade::list(dir.path()).unwrap();
    let read: Vec<(&str, freqtrade::Format)> = listing
        .files
        .iter()
        .map(|f| (f.symbol.as_str(), f.format))
        .collect();
    assert_eq!(
        read,
        [
            ("BTCUSDT", freqtrade::Format::Feather),
            ("ETHUSDT", freqtrade::Format::Json)
        ]
    );
    let skipped: Vec<&str> = listing.skipped.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        skipped,
        [
            "BTC_USDT_USDT-1h-mark.feather",
            "BTC_USDT_USDT-8h-funding_rate.feather",
            "ETH_USDT_USDT-5m-futures.json"
        ]
    );
    // The futures folder itself is a data directory too.
    assert_eq!(freqtrade::list(&futures).unwrap().files, listing.files);

    let btc_read = freqtrade::read(&listing.files[0]).unwrap();
    assert_eq!(
        btc_read, btc,
        "the feather file's floats are the decimals written"
    );
    let eth_read = freqtrade::read(&listing.files[1]).unwrap();
    assert_eq!(eth_read, minutes(700), "the json file, in time order");

    for (db, store) in TestDatabase::all_connected().await {
        assert_eq!(
            store_all(&store, "BTCUSDT", &btc_read).await.new,
            1430,
            "{}",
            db.url
        );
        assert_eq!(
            store_all(&store, "ETHUSDT", &eth_read).await.new,
            690,
            "{}",
            db.url
        );
        assert_eq!(stored(&store, "BTCUSDT").await, btc, "{}", db.url);
        assert_eq!(stored(&store, "ETHUSDT").await, minutes(700), "{}", db.url);
        let again = store_all(&store, "BTCUSDT", &btc_read).await;
        assert_eq!((again.new, again.unchanged), (0, 1430), "{}", db.url);
    }
}

#[test]
fn bad_rows_are_refused_naming_the_file_and_the_row() {
    let header = "time,open,high,low,close,volume\n";
    let good = "1793491200,10,12,9,11,5\n";
    let cases = [
        ("open,high\n", "t.csv: line 1: the header must be"),
        ("", "t.csv: empty"),
        (
            "time,open,high,low,close,volume\n1793491200,10,12,9,11\n",
            "t.csv: line 2: 5 fields where 6",
        ),
        (
            "time,open,high,low,close,volume\nnoon,10,12,9,11,5\n",
            "t.csv: line 2: time \"noon\" is neither",
        ),
        (
            "time,open,high,low,close,volume\n\n1793491200,10,12,9,eleven,5\n",
            "t.csv: line 3: close \"eleven\" is not a number",
        ),
        (
            "time,open,high,low,close,volume\n1793491230,10,12,9,11,5\n",
            "t.csv: line 2: time 2026-11-01T00:00:30Z is not on a minute boundary",
        ),
        (
            "time,open,high,low,close,volume\n1793491200,10,10.5,9,11,5\n",
            "t.csv: line 2: high 10.5 is below the open 10 or the close 11",
        ),
        (
            "time,open,high,low,close,volume\n1793491200,10,12,10.5,11,5\n",
            "t.csv: line 2: low 10.5 is above",
        ),
        (
            "time,open,high,low,close,volume\n1793491200,-10,12,-11,11,5\n",
            "t.csv: line 2: open -10 is not a price above zero",
        ),
        (
            "time,open,high,low,close,volume\n1793491200,10,12,9,11,-5\n",
            "t.csv: line 2: volume -5 is negative",
        ),
    ];
    for (text, said) in cases {
        let error = csv::parse("t.csv", text).unwrap_err().to_string();
        assert!(error.starts_with(said), "{text:?}: {error}");
    }
    let twice = format!("{header}{good}1793491260,10,12,9,11,5\n{good}");
    assert_eq!(
        csv::parse("t.csv", &twice).unwrap_err().to_string(),
        "t.csv: line 2 and line 4 are both the candle of 2026-11-01T00:00:00Z"
    );

    let dir = tempfile::tempdir().unwrap();
    let futures = dir.path().join("futures");
    std::fs::create_dir(&futures).unwrap();
    let json = futures.join("SOL_USDT_USDT-1m-futures.json");
    let feather = futures.join("BTC_USDT_USDT-1m-futures.feather");
    let bad_json = [
        (
            "[[1793491200000,10,12,9,11,5],[1793491260000,10,12,9,11]]",
            "row 2: 5 values",
        ),
        (
            "[[1793491200000,10,12,9,11,5],[1793491260000,10,8,9,11,5]]",
            "row 2: high 8 is below",
        ),
        (
            "[[1793491200000,10,12,9,11,5],[1793491260000,null,12,9,11,5]]",
            "row 2: open is missing",
        ),
        (
            "[[1793491200000,\"10\",12,9,11,5]]",
            "not a list of [date, open, high, low, close, volume]",
        ),
        ("{\"date\": []}", "not a list of"),
    ];
    for (text, said) in bad_json {
        std::fs::write(&json, text).unwrap();
        let file = freqtrade::DataFile {
            path: json.clone(),
            symbol: "SOLUSDT".into(),
            format: freqtrade::Format::Json,
        };
        let error = freqtrade::read(&file).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("{}: {said}", json.display())),
            "{text}: {error}"
        );
    }
    let mut history = minutes(300);
    history[250].low = history[250].open + dec!(1);
    write_feather(&feather, &history, true);
    let file = freqtrade::DataFile {
        path: feather.clone(),
        symbol: "BTCUSDT".into(),
        format: freqtrade::Format::Feather,
    };
    let error = freqtrade::read(&file).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("{}: row 251: low", feather.display())),
        "{error}"
    );
    std::fs::write(&feather, "not arrow").unwrap();
    let error = freqtrade::read(&file).unwrap_err().to_string();
    assert!(error.contains("not a feather (Arrow IPC) file"), "{error}");
    let empty = tempfile::tempdir().unwrap();
    let error = freqtrade::list(empty.path()).unwrap_err().to_string();
    assert!(
        error.contains("no Freqtrade futures 1-minute candles"),
        "{error}"
    );
}

/// The traded days: the history starts three days before them (the warm-up's 75 hours).
fn traded_days() -> (NaiveDate, NaiveDate) {
    (
        NaiveDate::from_ymd_opt(2026, 11, 4).unwrap(),
        NaiveDate::from_ymd_opt(2026, 11, 5).unwrap(),
    )
}

async fn run_on(
    store: &Store,
    symbol: &str,
) -> Result<signaldesk_backtest::Outcome, BacktestError> {
    let (date_from, date_to) = traded_days();
    let mut overrides = serde_json::Map::new();
    overrides.insert("user_timezone".into(), "UTC".into());
    let request = Request {
        date_from,
        date_to,
        symbols: vec![symbol.to_string()],
        source: Source::Ratings,
        data: Data::Bybit,
        overrides,
        sweep: Vec::new(),
        walk_forward: None,
    };
    let today = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
    let checked = request.check(&BotSettings::default(), today)?;
    checked.check_stored(store).await?;
    let market = Market {
        seed: 0,
        interval_minutes: 15,
        paper: PaperConfig::default(),
    };
    let backtest = checked.load(&market, store, 1).await?;
    tokio::task::spawn_blocking(move || backtest.run_on_a_core(&Progress::default()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backtest_on_imported_candles_is_refused_where_they_do_not_cover_the_period() {
    let symbols = ["ETHUSDT".to_string()];
    let end = start_ms() + 5 * DAY_MS;
    let (_, simulated) = simulated_minutes(5, &symbols, start_ms(), end).unwrap();
    let history = &simulated["ETHUSDT"];
    // The file stops half way through the last traded day.
    let short: Vec<Candle> = history
        .iter()
        .filter(|c| c.open_time_ms < end - DAY_MS / 2)
        .cloned()
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ETHUSDT-1m.csv");
    std::fs::write(&path, csv_text(&short, |ms| ms.to_string())).unwrap();
    let eth = default_symbols()
        .into_iter()
        .find(|s| s.instrument.symbol == "ETHUSDT")
        .unwrap()
        .instrument;

    for (db, store) in TestDatabase::all_connected().await {
        store_all(&store, "ETHUSDT", &csv::read(&path).unwrap()).await;
        let refused = run_on(&store, "ETHUSDT").await;
        let Err(BacktestError::Invalid(fields)) = &refused else {
            panic!("{}: {refused:?}", db.url);
        };
        let said = fields["data"].join(" ");
        assert!(
            said.contains("The stored Bybit candles do not cover the period for ETHUSDT"),
            "{}: {said}",
            db.url
        );

        // The rest of the day imported: refused for want of the instrument, then run.
        store_all(&store, "ETHUSDT", history).await;
        let refused = run_on(&store, "ETHUSDT").await;
        let Err(BacktestError::Invalid(fields)) = &refused else {
            panic!("{}: {refused:?}", db.url);
        };
        let said = fields["data"].join(" ");
        assert!(said.contains("No Bybit instrument"), "{}: {said}", db.url);
        store
            .save_instrument(&StoredInstrument {
                instrument: eth.clone(),
                risk_tiers: vec![RiskTier {
                    risk_limit_value: dec!(1000000),
                    maintenance_margin_rate: dec!(0.005),
                    mm_deduction: dec!(0),
                    max_leverage: dec!(100),
                }],
                fetched_at: 0,
            })
            .await
            .unwrap();
        let outcome = run_on(&store, "ETHUSDT").await.unwrap();
        assert!(!outcome.trades.is_empty(), "{}: {:#?}", db.url, outcome.log);
    }
}

/// `tests/data/BTC_USDT_USDT-1m-futures.feather` was written by pandas 3.1.1 with pyarrow
/// 26.0.1 as Freqtrade's `FeatherDataHandler.ohlcv_store` does (its `date` came out in
/// microseconds):
///
/// ```python
/// ms = [1793491200000 + i * 60000 for i in range(20)]
/// df = pd.DataFrame({"date": pd.to_datetime(ms, unit="ms", utc=True),
///     "open": [43250.1 + i for i in range(20)], "high": [43260.2 + i for i in range(20)],
///     "low": [43240.3 + i for i in range(20)], "close": [43255.4 + i for i in range(20)],
///     "volume": [0.001 * i for i in range(20)]})
/// df.reset_index(drop=True).loc[:, COLUMNS].to_feather(path, compression_level=9, compression="lz4")
/// ```
#[test]
fn a_feather_file_written_by_pandas_as_freqtrade_writes_one_is_read() {
    let file = freqtrade::DataFile {
        path: Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/BTC_USDT_USDT-1m-futures.feather"),
        symbol: "BTCUSDT".into(),
        format: freqtrade::Format::Feather,
    };
    let candles = freqtrade::read(&file).unwrap();
    assert_eq!(candles.len(), 20);
    assert_eq!(
        candles[3],
        Candle {
            open_time_ms: start_ms() + 3 * MINUTE_MS,
            open: dec!(43253.1),
            high: dec!(43263.2),
            low: dec!(43243.3),
            close: dec!(43258.4),
            volume: dec!(0.003),
        }
    );
    assert_eq!(candles[19].open_time_ms, start_ms() + 19 * MINUTE_MS);
}
