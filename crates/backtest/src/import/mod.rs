//! `signaldesk candles import`: a trader's own 1-minute candles into the store, from a CSV
//! file ([`csv`]) or a Freqtrade data directory ([`freqtrade`]), for backtests with
//! `data: "bybit"` (docs/backtesting.md, "Your own candles"). Every candle of a file is
//! checked before any is stored; storing compares with what the store has, so importing the
//! same file again writes nothing.

pub mod csv;
pub mod freqtrade;

use std::fmt;

use chrono::DateTime;
use rust_decimal::Decimal;
use signaldesk_core::market::Candle;
use signaldesk_store::{Store, StoreError};

const MINUTE_MS: i64 = 60_000;
/// Candles compared with the store and stored at a time (a line of progress each).
pub const CHUNK: usize = 10_000;

/// Why an import stopped.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file that cannot be read or holds a bad candle: the file, then where and what.
    #[error("{file}: {problem}")]
    File { file: String, problem: String },
    #[error("the database: {0}")]
    Store(#[from] StoreError),
}

impl ImportError {
    pub(crate) fn file(file: &str, problem: impl fmt::Display) -> Self {
        ImportError::File {
            file: file.to_string(),
            problem: problem.to_string(),
        }
    }
}

/// Where in its file a candle was: a CSV line or a Freqtrade row, counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Line(usize),
    Row(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}"),
            Place::Row(n) => write!(f, "row {n}"),
        }
    }
}

/// `ms` as an RFC 3339 time (UTC), or the number when it is no time at all.
pub fn time_text(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms).map_or_else(
        || format!("{ms} ms"),
        |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
    )
}

/// What is wrong with a 1-minute candle: its open not on a minute, a price not above zero,
/// a negative volume, a high below the open or close, a low above them.
pub fn candle_problem(c: &Candle) -> Option<String> {
    if c.open_time_ms.rem_euclid(MINUTE_MS) != 0 {
        return Some(format!(
            "time {} is not on a minute boundary (a 1-minute candle opens at 0 seconds)",
            time_text(c.open_time_ms)
        ));
    }
    for (name, price) in [
        ("open", c.open),
        ("high", c.high),
        ("low", c.low),
        ("close", c.close),
    ] {
        if price <= Decimal::ZERO {
            return Some(format!("{name} {price} is not a price above zero"));
        }
    }
    if c.volume < Decimal::ZERO {
        return Some(format!("volume {} is negative", c.volume));
    }
    if c.high < c.open.max(c.close) {
        return Some(format!(
            "high {} is below the open {} or the close {}",
            c.high, c.open, c.close
        ));
    }
    if c.low > c.open.min(c.close) {
        return Some(format!(
            "low {} is above the open {} or the close {}",
            c.low, c.open, c.close
        ));
    }
    None
}

/// `rows` checked one by one and put in time order; two for the same minute are refused,
/// naming both places (a file saying two things of one minute is a mistake to look at, not
/// one to settle by order).
pub fn checked_in_order(
    file: &str,
    rows: Vec<(Place, Candle)>,
) -> Result<Vec<Candle>, ImportError> {
    if let Some((place, problem)) = rows
        .iter()
        .find_map(|(place, c)| Some((place, candle_problem(c)?)))
    {
        return Err(ImportError::file(file, format!("{place}: {problem}")));
    }
    let mut rows = rows;
    rows.sort_by_key(|(_, c)| c.open_time_ms);
    if let Some(pair) = rows
        .windows(2)
        .find(|w| w[0].1.open_time_ms == w[1].1.open_time_ms)
    {
        let (a, b) = (&pair[0], &pair[1]);
        let (first, second) = if place_number(a.0) < place_number(b.0) {
            (a.0, b.0)
        } else {
            (b.0, a.0)
        };
        return Err(ImportError::file(
            file,
            format!(
                "{first} and {second} are both the candle of {}",
                time_text(a.1.open_time_ms)
            ),
        ));
    }
    Ok(rows.into_iter().map(|(_, c)| c).collect())
}

fn place_number(place: Place) -> usize {
    match place {
        Place::Line(n) | Place::Row(n) => n,
    }
}

/// How one file's candles of a symbol went into the store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stored {
    /// Candles in the file.
    pub read: usize,
    /// Minutes the store did not have.
    pub new: usize,
    /// Minutes the store had with the same prices and volume (not written again).
    pub unchanged: usize,
    /// Minutes the store had with other values, replaced by the file's.
    pub replaced: usize,
}

/// Stores `candles` (in time order, one a minute, checked) of `symbol` through
/// [`Store::save_candles`], [`CHUNK`] at a time: only the minutes the store lacks or holds
/// otherwise are written. `progress` hears the candles done and the total after each chunk.
pub async fn store_candles(
    store: &Store,
    symbol: &str,
    candles: &[Candle],
    mut progress: impl FnMut(usize, usize),
) -> Result<Stored, StoreError> {
    let mut done = Stored {
        read: candles.len(),
        ..Stored::default()
    };
    let mut handled = 0;
    for chunk in candles.chunks(CHUNK) {
        let (first, last) = (chunk[0].open_time_ms, chunk[chunk.len() - 1].open_time_ms);
        let have = store
            .candles_between(symbol, first, last + MINUTE_MS)
            .await?;
        let mut have = have.iter().peekable();
        let mut to_save = Vec::new();
        for candle in chunk {
            while have
                .next_if(|h| h.open_time_ms < candle.open_time_ms)
                .is_some()
            {}
            match have.next_if(|h| h.open_time_ms == candle.open_time_ms) {
                None => {
                    done.new += 1;
                    to_save.push(candle.clone());
                }
                Some(stored) if stored == candle => done.unchanged += 1,
                Some(_) => {
                    done.replaced += 1;
                    to_save.push(candle.clone());
                }
            }
        }
        if !to_save.is_empty() {
            store.save_candles(symbol, &to_save).await?;
        }
        handled += chunk.len();
        progress(handled, candles.len());
    }
    Ok(done)
}

/// A number of a candle file as an exact decimal: `1.5`, `2e-5`.
pub(crate) fn decimal(text: &str) -> Option<Decimal> {
    use std::str::FromStr;
    Decimal::from_str(text)
        .or_else(|_| Decimal::from_scientific(text))
        .ok()
}

/// A float of a Freqtrade file as the decimal it was written as: the shortest text that
/// reads back as the same float (`43250.1`, not `43250.099999999998545`).
pub(crate) fn decimal_of_float(value: f64) -> Option<Decimal> {
    if !value.is_finite() {
        return None;
    }
    // Rust prints floats without an exponent, shortest first.
    decimal(&format!("{value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn candle(minute: i64) -> Candle {
        Candle {
            open_time_ms: minute * MINUTE_MS,
            open: dec!(10),
            high: dec!(12),
            low: dec!(9),
            close: dec!(11),
            volume: dec!(3),
        }
    }

    #[test]
    fn each_rule_of_a_candle_is_named() {
        assert_eq!(candle_problem(&candle(5)), None);
        let cases = [
            (
                Candle {
                    open_time_ms: 61_000,
                    ..candle(0)
                },
                "minute boundary",
            ),
            (
                Candle {
                    open: dec!(0),
                    low: dec!(0),
                    ..candle(1)
                },
                "open 0 is not a price",
            ),
            (
                Candle {
                    volume: dec!(-1),
                    ..candle(1)
                },
                "volume -1 is negative",
            ),
            (
                Candle {
                    high: dec!(10.5),
                    ..candle(1)
                },
                "high 10.5 is below",
            ),
            (
                Candle {
                    low: dec!(10.5),
                    ..candle(1)
                },
                "low 10.5 is above",
            ),
        ];
        for (bad, said) in cases {
            let problem = candle_problem(&bad).unwrap();
            assert!(problem.contains(said), "{problem}");
        }
    }

    #[test]
    fn rows_come_in_order_and_a_minute_twice_names_both_places() {
        let rows = vec![
            (Place::Line(2), candle(3)),
            (Place::Line(3), candle(1)),
            (Place::Line(4), candle(2)),
        ];
        let sorted = checked_in_order("f.csv", rows.clone()).unwrap();
        let times: Vec<i64> = sorted.iter().map(|c| c.open_time_ms / MINUTE_MS).collect();
        assert_eq!(times, [1, 2, 3]);
        let mut twice = rows;
        twice.push((Place::Line(5), candle(3)));
        let error = checked_in_order("f.csv", twice).unwrap_err().to_string();
        assert_eq!(
            error,
            "f.csv: line 2 and line 5 are both the candle of 1970-01-01T00:03:00Z"
        );
    }

    #[test]
    fn floats_read_as_they_were_written() {
        assert_eq!(decimal_of_float(43250.1), Some(dec!(43250.1)));
        assert_eq!(decimal_of_float(0.00001234), Some(dec!(0.00001234)));
        assert_eq!(decimal_of_float(f64::NAN), None);
        assert_eq!(decimal("2e-5"), Some(dec!(0.00002)));
    }
}
