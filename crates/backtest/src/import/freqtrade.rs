//! A Freqtrade data directory's futures 1-minute candles, in Freqtrade's default feather
//! format and in its json format.
//!
//! Where Freqtrade puts them (freqtrade/data/history/datahandlers/idatahandler.py,
//! `_pair_data_filename`):
//!
//! ```python
//! pair_s = misc.pair_to_filename(pair)
//! ...
//! if candle_type != CandleType.SPOT:
//!     datadir = datadir.joinpath('futures')
//!     candle = f'-{candle_type}'
//! filename = datadir.joinpath(f'{pair_s}-{timeframe}{candle}.{cls._get_file_extension()}')
//! ```
//!
//! with `pair_to_filename` turning `/`, ` `, `.`, `@`, `$`, `+` and `:` into `_`, so Bybit's
//! USDT perpetual `BTC/USDT:USDT` is `futures/BTC_USDT_USDT-1m-futures.feather`, here
//! BTCUSDT. The same folder holds the `mark` and `funding_rate` candles and other
//! timeframes: those are skipped with a line saying why.
//!
//! What is in them (featherdatahandler.py and jsondatahandler.py):
//!
//! ```python
//! data.reset_index(drop=True).loc[:, self._columns].to_feather(
//!     filename, compression_level=9, compression="lz4"
//! )
//! ...
//! _data["date"] = _data["date"].dt.as_unit("ms").astype("int64")
//! _data.reset_index(drop=True).loc[:, get_candle_columns(candle_type)].to_json(
//!     filename, orient="values", compression="gzip" if self._use_zip else None
//! )
//! ```
//!
//! with the columns `date, open, high, low, close, volume`: the feather file is an Arrow IPC
//! file (lz4 frames) whose `date` is a UTC timestamp column (pandas writes nanoseconds; any
//! unit is read), the json file a list of `[ms, open, high, low, close, volume]`.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use arrow_array::{
    Array, ArrayRef, Float32Array, Float64Array, Int64Array, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray,
};
use arrow_schema::{DataType, TimeUnit};
use rust_decimal::Decimal;
use signaldesk_core::market::Candle;

use super::{checked_in_order, decimal_of_float, ImportError, Place};
use crate::request::is_symbol_name;

const COLUMNS: [&str; 6] = ["date", "open", "high", "low", "close", "volume"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Feather,
    Json,
}

/// A file of one symbol's futures 1-minute candles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFile {
    pub path: PathBuf,
    pub symbol: String,
    pub format: Format,
}

/// The files of a directory: those read, and the others' names with why not.
#[derive(Debug, Default)]
pub struct Listing {
    pub files: Vec<DataFile>,
    pub skipped: Vec<(String, String)>,
}

/// The futures 1-minute candle files of the Freqtrade data directory `dir` (its `futures`
/// folder; `dir` itself when it has none), by name.
pub fn list(dir: &Path) -> Result<Listing, ImportError> {
    let futures = dir.join("futures");
    let folder = if futures.is_dir() {
        futures
    } else {
        dir.to_path_buf()
    };
    let shown = folder.display().to_string();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&folder).map_err(|e| ImportError::file(&shown, e))? {
        let entry = entry.map_err(|e| ImportError::file(&shown, e))?;
        if entry.path().is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    let mut listing = Listing::default();
    for name in names {
        match kind_of(&name) {
            Ok((symbol, format)) => listing.files.push(DataFile {
                path: folder.join(&name),
                symbol,
                format,
            }),
            Err(why) => listing.skipped.push((name, why)),
        }
    }
    if listing.files.is_empty() {
        return Err(ImportError::file(
            &shown,
            "no Freqtrade futures 1-minute candles here (files like BTC_USDT_USDT-1m-futures.feather or .json)",
        ));
    }
    Ok(listing)
}

/// The symbol and format of a file named like `BTC_USDT_USDT-1m-futures.feather`, or why
/// it is not read.
pub fn kind_of(name: &str) -> Result<(String, Format), String> {
    let (stem, format) = if let Some(stem) = name.strip_suffix(".feather") {
        (stem, Format::Feather)
    } else if let Some(stem) = name.strip_suffix(".json") {
        (stem, Format::Json)
    } else if name.ends_with(".json.gz") || name.ends_with(".parquet") {
        return Err(
            "a format not read here: convert it with `freqtrade convert-data --format-to feather`"
                .into(),
        );
    } else {
        return Err("not a Freqtrade candle file".into());
    };
    let mut parts = stem.rsplitn(3, '-');
    let (Some(candle_type), Some(timeframe), Some(pair)) =
        (parts.next(), parts.next(), parts.next())
    else {
        return Err("not a Freqtrade candle file".into());
    };
    if candle_type != "futures" {
        return Err(format!(
            "{candle_type} candles, not the contract's own (only -futures files are read)"
        ));
    }
    if timeframe != "1m" {
        return Err(format!(
            "{timeframe} candles (only 1-minute candles are read)"
        ));
    }
    let symbol = pair
        .strip_suffix("_USDT_USDT")
        .map(|base| format!("{base}USDT"))
        .filter(|symbol| symbol.len() > 4 && is_symbol_name(symbol))
        .ok_or_else(|| format!("{pair} is not a USDT perpetual (BASE_USDT_USDT)"))?;
    Ok((symbol, format))
}

/// The candles of `file`, checked, in time order.
pub fn read(file: &DataFile) -> Result<Vec<Candle>, ImportError> {
    let shown = file.path.display().to_string();
    let rows = match file.format {
        Format::Feather => feather_rows(&file.path),
        Format::Json => json_rows(&file.path),
    }
    .map_err(|problem| ImportError::file(&shown, problem))?;
    checked_in_order(&shown, rows)
}

/// A row's values as floats: `[time in ms, open, high, low, close, volume]`.
type Values = [Option<f64>; 6];

fn candle_of(
    number: usize,
    values: Values,
    time_ms: Option<i64>,
) -> Result<(Place, Candle), String> {
    let place = Place::Row(number);
    let missing = |i: usize| format!("{place}: {} is missing", COLUMNS[i]);
    let time_ms = time_ms.ok_or_else(|| missing(0))?;
    let price = |i: usize| -> Result<Decimal, String> {
        let value = values[i].ok_or_else(|| missing(i))?;
        decimal_of_float(value).ok_or_else(|| {
            format!(
                "{place}: {} {value} is not a number a price can be",
                COLUMNS[i]
            )
        })
    };
    let candle = Candle {
        open_time_ms: time_ms,
        open: price(1)?,
        high: price(2)?,
        low: price(3)?,
        close: price(4)?,
        volume: price(5)?,
    };
    Ok((place, candle))
}

fn json_rows(path: &Path) -> Result<Vec<(Place, Candle)>, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let rows: Vec<Vec<Option<f64>>> = serde_json::from_slice(&bytes).map_err(|e| {
        format!("not a list of [date, open, high, low, close, volume] number lists: {e}")
    })?;
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let number = i + 1;
            let Ok(values) = <Values>::try_from(row.as_slice()) else {
                return Err(format!(
                    "row {number}: {} values where 6 are expected (date, open, high, low, close, volume)",
                    row.len()
                ));
            };
            let time_ms = values[0]
                .map(|ms| {
                    // Freqtrade writes whole milliseconds; an i64 holds every one as a float.
                    if ms.fract() == 0.0 && ms.abs() < 9.0e15 {
                        Ok(ms as i64)
                    } else {
                        Err(format!("row {number}: date {ms} is not whole milliseconds"))
                    }
                })
                .transpose()?;
            candle_of(number, values, time_ms)
        })
        .collect()
}

fn feather_rows(path: &Path) -> Result<Vec<(Place, Candle)>, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let reader = arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None)
        .map_err(|e| format!("not a feather (Arrow IPC) file: {e}"))?;
    let schema = reader.schema();
    let index = COLUMNS
        .iter()
        .map(|name| {
            schema.index_of(name).map_err(|_| {
                let have: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                format!("no column {name} (it has {})", have.join(", "))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| format!("after row {}: {e}", rows.len()))?;
        let times = times_ms(batch.column(index[0]))?;
        let columns = (1..6)
            .map(|i| floats(COLUMNS[i], batch.column(index[i])))
            .collect::<Result<Vec<_>, _>>()?;
        for r in 0..batch.num_rows() {
            let number = rows.len() + 1;
            let time_ms = times[r]
                .clone()
                .map_err(|why| format!("row {number}: {why}"))?;
            let mut values: Values = [None; 6];
            for (i, column) in columns.iter().enumerate() {
                values[i + 1] = column[r];
            }
            rows.push(candle_of(number, values, time_ms)?);
        }
    }
    Ok(rows)
}

/// A feather date column in Unix milliseconds, each `None` when missing.
#[allow(clippy::type_complexity)]
fn times_ms(column: &ArrayRef) -> Result<Vec<Result<Option<i64>, String>>, String> {
    fn each<A: Array>(
        array: &A,
        value: impl Fn(usize) -> i64,
        per_ms: i64,
        scale: i64,
    ) -> Vec<Result<Option<i64>, String>> {
        (0..array.len())
            .map(|i| {
                if array.is_null(i) {
                    return Ok(None);
                }
                let v = value(i);
                if v % per_ms != 0 {
                    return Err(format!("date {v} is not whole milliseconds"));
                }
                (v / per_ms)
                    .checked_mul(scale)
                    .map(Some)
                    .ok_or_else(|| format!("date {v} is out of range"))
            })
            .collect()
    }
    let any = column.as_any();
    let wrong = || format!("date is a {} column, not a time", column.data_type());
    Ok(match column.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => {
            let a = any
                .downcast_ref::<TimestampSecondArray>()
                .ok_or_else(wrong)?;
            each(a, |i| a.value(i), 1, 1000)
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            let a = any
                .downcast_ref::<TimestampMillisecondArray>()
                .ok_or_else(wrong)?;
            each(a, |i| a.value(i), 1, 1)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let a = any
                .downcast_ref::<TimestampMicrosecondArray>()
                .ok_or_else(wrong)?;
            each(a, |i| a.value(i), 1000, 1)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            let a = any
                .downcast_ref::<TimestampNanosecondArray>()
                .ok_or_else(wrong)?;
            each(a, |i| a.value(i), 1_000_000, 1)
        }
        // Milliseconds, as Freqtrade's json date.
        DataType::Int64 => {
            let a = any.downcast_ref::<Int64Array>().ok_or_else(wrong)?;
            each(a, |i| a.value(i), 1, 1)
        }
        _ => return Err(wrong()),
    })
}

/// A feather price or volume column as floats, each `None` when missing.
fn floats(name: &str, column: &ArrayRef) -> Result<Vec<Option<f64>>, String> {
    fn each<A: Array>(array: &A, value: impl Fn(usize) -> f64) -> Vec<Option<f64>> {
        (0..array.len())
            .map(|i| (!array.is_null(i)).then(|| value(i)))
            .collect()
    }
    let any = column.as_any();
    let wrong = || format!("{name} is a {} column, not numbers", column.data_type());
    Ok(match column.data_type() {
        DataType::Float64 => {
            let a = any.downcast_ref::<Float64Array>().ok_or_else(wrong)?;
            each(a, |i| a.value(i))
        }
        DataType::Float32 => {
            // Through its own shortest text, not f64's longer one of the same bits.
            let a = any.downcast_ref::<Float32Array>().ok_or_else(wrong)?;
            each(a, |i| a.value(i).to_string().parse().unwrap_or(f64::NAN))
        }
        DataType::Int64 => {
            let a = any.downcast_ref::<Int64Array>().ok_or_else(wrong)?;
            each(a, |i| a.value(i) as f64)
        }
        _ => return Err(wrong()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_usdt_perpetual_1_minute_futures_files_are_read() {
        assert_eq!(
            kind_of("BTC_USDT_USDT-1m-futures.feather"),
            Ok(("BTCUSDT".into(), Format::Feather))
        );
        assert_eq!(
            kind_of("1000PEPE_USDT_USDT-1m-futures.json"),
            Ok(("1000PEPEUSDT".into(), Format::Json))
        );
        for (name, why) in [
            ("BTC_USDT_USDT-1h-mark.feather", "mark candles"),
            (
                "BTC_USDT_USDT-8h-funding_rate.feather",
                "funding_rate candles",
            ),
            ("BTC_USDT_USDT-5m-futures.feather", "5m candles"),
            ("BTC_USD_BTC-1m-futures.feather", "not a USDT perpetual"),
            ("BTC_USDT_USDT-1m-futures.json.gz", "convert-data"),
            ("notes.txt", "not a Freqtrade candle file"),
        ] {
            let said = kind_of(name).unwrap_err();
            assert!(said.contains(why), "{name}: {said}");
        }
    }
}
