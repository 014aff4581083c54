//! A CSV file of one symbol's 1-minute candles: the header `time,open,high,low,close,volume`,
//! then a candle a line in any order, gaps allowed. The time is Unix seconds (up to 11
//! digits), Unix milliseconds (12 digits or more) or an RFC 3339 time with its zone
//! (`2026-11-01T00:00:00Z`, `2026-11-01 00:00:00+00:00`).

use std::path::Path;

use chrono::DateTime;
use rust_decimal::Decimal;
use signaldesk_core::market::Candle;

use super::{checked_in_order, decimal, ImportError, Place};
use crate::request::is_symbol_name;

const HEADER: [&str; 6] = ["time", "open", "high", "low", "close", "volume"];
/// Below this a Unix time is in seconds (11 digits reach the year 5138), from it in
/// milliseconds (from March 1973).
const MS_FROM: i64 = 100_000_000_000;

/// The candles of the CSV file at `path`, checked, in time order.
pub fn read(path: &Path) -> Result<Vec<Candle>, ImportError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ImportError::file(&file, e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ImportError::file(&file, "not a text file (UTF-8)"))?;
    parse(&file, &text)
}

/// The candles of CSV `text` from `file`, checked, in time order.
pub fn parse(file: &str, text: &str) -> Result<Vec<Candle>, ImportError> {
    let mut lines = text
        .trim_start_matches('\u{feff}')
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty());
    let Some((number, header)) = lines.next() else {
        return Err(ImportError::file(file, "empty: no header and no candle"));
    };
    let names: Vec<String> = header.split(',').map(|f| f.trim().to_lowercase()).collect();
    if names != HEADER {
        return Err(ImportError::file(
            file,
            format!(
                "line {number}: the header must be `{}`, not `{header}`",
                HEADER.join(",")
            ),
        ));
    }
    let rows = lines
        .map(|(number, line)| {
            candle_of_line(line)
                .map(|c| (Place::Line(number), c))
                .map_err(|problem| ImportError::file(file, format!("line {number}: {problem}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    checked_in_order(file, rows)
}

fn candle_of_line(line: &str) -> Result<Candle, String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [time, open, high, low, close, volume] = fields[..] else {
        return Err(format!(
            "{} fields where 6 are expected ({})",
            fields.len(),
            HEADER.join(",")
        ));
    };
    let number = |name: &str, text: &str| -> Result<Decimal, String> {
        decimal(text).ok_or_else(|| format!("{name} {text:?} is not a number"))
    };
    Ok(Candle {
        open_time_ms: time_ms(time)?,
        open: number("open", open)?,
        high: number("high", high)?,
        low: number("low", low)?,
        close: number("close", close)?,
        volume: number("volume", volume)?,
    })
}

/// A CSV time in Unix milliseconds.
fn time_ms(text: &str) -> Result<i64, String> {
    if let Ok(number) = text.parse::<i64>() {
        return if number.abs() < MS_FROM {
            number
                .checked_mul(1000)
                .ok_or_else(|| format!("time {text} is out of range"))
        } else {
            Ok(number)
        };
    }
    let with_t = text.replacen(' ', "T", 1);
    DateTime::parse_from_rfc3339(&with_t)
        .map(|t| t.timestamp_millis())
        .map_err(|_| {
            format!(
                "time {text:?} is neither Unix seconds or milliseconds nor an RFC 3339 time with its zone (2026-11-01T00:00:00Z)"
            )
        })
}

/// The symbol a CSV file's name says: its name up to the first `.`, `-` or `_`
/// (`BTCUSDT.csv`, `BTCUSDT-1m.csv`), when that is a symbol in capitals ending in USDT.
pub fn symbol_of_file_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let symbol = name.split(['.', '-', '_']).next()?;
    (symbol.ends_with("USDT") && symbol.len() > 4 && is_symbol_name(symbol))
        .then(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn seconds_milliseconds_and_rfc_3339_are_one_time() {
        let ms = 1_793_491_200_000; // 2026-11-01T00:00:00Z
        for text in [
            "1793491200",
            "1793491200000",
            "2026-11-01T00:00:00Z",
            "2026-11-01 00:00:00+00:00",
            "2026-11-01T01:00:00+01:00",
        ] {
            assert_eq!(time_ms(text), Ok(ms), "{text}");
        }
        for bad in ["2026-11-01 00:00:00", "yesterday", "1.5"] {
            assert!(time_ms(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_header_of_other_columns_is_refused_on_line_1() {
        let error = parse("f.csv", "date,open,high,low,close,volume\n").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("f.csv: line 1: the header must be"),
            "{error}"
        );
        let fine = parse(
            "f.csv",
            "\u{feff}Time, Open,high,low,close,volume\r\n60,1,2,0.5,1.5,0\r\n\n",
        )
        .unwrap();
        assert_eq!(fine[0].close, dec!(1.5));
    }

    #[test]
    fn the_symbol_comes_from_the_file_name_when_it_says_one() {
        let of = |name: &str| symbol_of_file_name(Path::new(name));
        assert_eq!(of("/data/BTCUSDT.csv").as_deref(), Some("BTCUSDT"));
        assert_eq!(of("1000PEPEUSDT-1m.csv").as_deref(), Some("1000PEPEUSDT"));
        assert_eq!(of("btcusdt.csv"), None);
        assert_eq!(of("candles.csv"), None);
        assert_eq!(of("USDT.csv"), None);
    }
}
