//! Reading candles from CSV text with the header `time,open,high,low,close,volume`.

use crate::candle::{Candle, CandleError};

/// The one header [`parse_candles_csv`] accepts.
pub const CSV_HEADER: &str = "time,open,high,low,close,volume";

const COLUMNS: [&str; 6] = ["time", "open", "high", "low", "close", "volume"];

/// Why a CSV text could not be read. Line numbers count from 1, the header
/// being line 1.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CsvError {
    #[error("the CSV text is empty (expected the header `{CSV_HEADER}` and candle rows)")]
    Empty,
    #[error("line 1: expected the header `{CSV_HEADER}`, found `{found}`")]
    Header { found: String },
    #[error("the CSV has a header but no candle rows")]
    NoRows,
    #[error("line {line}: expected 6 comma-separated fields, found {found}")]
    FieldCount { line: usize, found: usize },
    #[error("line {line}: column `{column}` is not a valid number: `{text}`")]
    BadNumber {
        line: usize,
        column: &'static str,
        text: String,
    },
    #[error("line {line}: {source}")]
    BadCandle {
        line: usize,
        #[source]
        source: CandleError,
    },
    #[error(
        "line {line}: time {time} is not after the previous row's time {previous} \
         (rows must be oldest first, without duplicates)"
    )]
    Unsorted {
        line: usize,
        time: i64,
        previous: i64,
    },
}

impl CsvError {
    /// The line the error is on, when it is about one line.
    pub fn line(&self) -> Option<usize> {
        match self {
            CsvError::Empty | CsvError::NoRows => None,
            CsvError::Header { .. } => Some(1),
            CsvError::FieldCount { line, .. }
            | CsvError::BadNumber { line, .. }
            | CsvError::BadCandle { line, .. }
            | CsvError::Unsorted { line, .. } => Some(*line),
        }
    }
}

/// Parses candles, oldest first, from CSV text with the header
/// `time,open,high,low,close,volume` (`time` in unix milliseconds, an
/// integer). Blank lines are skipped; fields may carry surrounding spaces;
/// `\r\n` line ends and a leading byte-order mark are accepted. Each row must
/// be a valid candle (see [`Candle::validate`]) with a time strictly after the
/// previous row's.
pub fn parse_candles_csv(text: &str) -> Result<Vec<Candle>, CsvError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let header = loop {
        match lines.next() {
            None => return Err(CsvError::Empty),
            Some((_, "")) => continue,
            Some((line, h)) => break (line, h),
        }
    };
    let fields: Vec<&str> = header.1.split(',').map(str::trim).collect();
    if fields != COLUMNS {
        return Err(CsvError::Header {
            found: header.1.to_string(),
        });
    }

    let mut candles = Vec::new();
    let mut previous: Option<i64> = None;
    for (line, row) in lines {
        if row.is_empty() {
            continue;
        }
        let candle = parse_row(line, row)?;
        if let Some(previous) = previous {
            if candle.time <= previous {
                return Err(CsvError::Unsorted {
                    line,
                    time: candle.time,
                    previous,
                });
            }
        }
        previous = Some(candle.time);
        candles.push(candle);
    }
    if candles.is_empty() {
        return Err(CsvError::NoRows);
    }
    Ok(candles)
}

fn parse_row(line: usize, row: &str) -> Result<Candle, CsvError> {
    let fields: Vec<&str> = row.split(',').map(str::trim).collect();
    let [time, open, high, low, close, volume] = fields[..] else {
        return Err(CsvError::FieldCount {
            line,
            found: fields.len(),
        });
    };
    let number = |column: &'static str, text: &str| -> Result<f64, CsvError> {
        text.parse::<f64>().map_err(|_| CsvError::BadNumber {
            line,
            column,
            text: text.to_string(),
        })
    };
    let time = time.parse::<i64>().map_err(|_| CsvError::BadNumber {
        line,
        column: "time",
        text: time.to_string(),
    })?;
    let candle = Candle {
        time,
        open: number("open", open)?,
        high: number("high", high)?,
        low: number("low", low)?,
        close: number("close", close)?,
        volume: number("volume", volume)?,
    };
    candle
        .validate()
        .map_err(|source| CsvError::BadCandle { line, source })?;
    Ok(candle)
}
