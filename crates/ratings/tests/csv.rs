//! `parse_candles_csv`: the happy path and every error, with its line number.

use signaldesk_ratings::{parse_candles_csv, report_for, Candle, CandleError, CsvError};

const HEADER: &str = "time,open,high,low,close,volume";

#[test]
fn parses_rows_oldest_first() {
    let text = "\u{feff}time, open ,high,low,close,volume\r\n\
                1700000000000,10,12,9,11,100\r\n\
                \r\n\
                1700000060000,11,11.5,10.25,10.5,0\n";
    let candles = parse_candles_csv(text).expect("valid CSV");
    assert_eq!(
        candles,
        vec![
            Candle {
                time: 1_700_000_000_000,
                open: 10.0,
                high: 12.0,
                low: 9.0,
                close: 11.0,
                volume: 100.0
            },
            Candle {
                time: 1_700_000_060_000,
                open: 11.0,
                high: 11.5,
                low: 10.25,
                close: 10.5,
                volume: 0.0
            },
        ]
    );
    assert!(report_for(&candles).is_ok());
}

#[test]
fn empty_input() {
    assert_eq!(parse_candles_csv(""), Err(CsvError::Empty));
    assert_eq!(parse_candles_csv("\n  \n"), Err(CsvError::Empty));
    assert_eq!(
        parse_candles_csv(&format!("{HEADER}\n")),
        Err(CsvError::NoRows)
    );
    assert_eq!(
        parse_candles_csv(&format!("{HEADER}\n\n")),
        Err(CsvError::NoRows)
    );
}

#[test]
fn wrong_header() {
    for header in [
        "timestamp,open,high,low,close,volume",
        "time,open,high,low,close",
        "time,open,high,low,close,volume,turnover",
        "1700000000000,10,12,9,11,100",
        "time;open;high;low;close;volume",
    ] {
        let err = parse_candles_csv(&format!("{header}\n1700000000000,10,12,9,11,100\n"))
            .expect_err("bad header");
        assert_eq!(
            err,
            CsvError::Header {
                found: header.to_string()
            }
        );
        assert_eq!(err.line(), Some(1));
        assert!(err.to_string().contains(HEADER), "{err}");
    }
}

fn error_for(rows: &str) -> CsvError {
    parse_candles_csv(&format!("{HEADER}\n{rows}")).expect_err("bad row")
}

#[test]
fn bad_rows_name_their_line() {
    let good = "1700000000000,10,12,9,11,100\n";
    assert_eq!(
        error_for(&format!("{good}1700000060000,10,12,9,11\n")),
        CsvError::FieldCount { line: 3, found: 5 }
    );
    assert_eq!(
        error_for(&format!("{good}1700000060000,10,12,9,11,100,7\n")),
        CsvError::FieldCount { line: 3, found: 7 }
    );
    assert_eq!(
        error_for(&format!("{good}1700000060000,10,abc,9,11,100\n")),
        CsvError::BadNumber {
            line: 3,
            column: "high",
            text: "abc".into()
        }
    );
    assert_eq!(
        error_for("2023-11-14T22:13:20Z,10,12,9,11,100\n"),
        CsvError::BadNumber {
            line: 2,
            column: "time",
            text: "2023-11-14T22:13:20Z".into()
        }
    );
    assert_eq!(
        error_for(&format!("{good}1700000060000,10,12,9,,100\n")),
        CsvError::BadNumber {
            line: 3,
            column: "close",
            text: "".into()
        }
    );
    // Blank lines still count in line numbers.
    assert_eq!(
        error_for(&format!("{good}\n1700000060000,NaN,12,9,11,100\n")),
        CsvError::BadCandle {
            line: 4,
            source: CandleError::NotFinite { field: "open" }
        }
    );
    assert_eq!(
        error_for("1700000000000,10,12,9,inf,100\n"),
        CsvError::BadCandle {
            line: 2,
            source: CandleError::NotFinite { field: "close" }
        }
    );
    assert_eq!(
        error_for("1700000000000,10,9,12,11,100\n"),
        CsvError::BadCandle {
            line: 2,
            source: CandleError::LowAboveHigh {
                low: 12.0,
                high: 9.0
            }
        }
    );
    assert_eq!(
        error_for("1700000000000,10,12,9,11,-1\n"),
        CsvError::BadCandle {
            line: 2,
            source: CandleError::NegativeVolume { volume: -1.0 }
        }
    );
    let err = error_for(&format!("{good}1700000060000,10,abc,9,11,100\n"));
    assert_eq!(err.line(), Some(3));
    assert!(err.to_string().starts_with("line 3: "), "{err}");
}

#[test]
fn unsorted_or_duplicate_times() {
    let err = error_for(
        "1700000060000,10,12,9,11,100\n\
         1700000000000,10,12,9,11,100\n",
    );
    assert_eq!(
        err,
        CsvError::Unsorted {
            line: 3,
            time: 1_700_000_000_000,
            previous: 1_700_000_060_000
        }
    );
    assert!(err.to_string().contains("oldest first"), "{err}");
    assert_eq!(
        error_for(
            "1700000000000,10,12,9,11,100\n\
             1700000060000,10,12,9,11,100\n\
             1700000060000,10,12,9,11,100\n"
        ),
        CsvError::Unsorted {
            line: 4,
            time: 1_700_000_060_000,
            previous: 1_700_000_060_000
        }
    );
}

#[test]
fn report_for_refuses_what_the_engine_refuses() {
    use signaldesk_ratings::ReportError;
    assert_eq!(report_for(&[]), Err(ReportError::NoCandles));
    let c = Candle {
        time: 1,
        open: 1.0,
        high: 2.0,
        low: 0.5,
        close: 1.5,
        volume: 3.0,
    };
    assert_eq!(
        report_for(&[c, c]),
        Err(ReportError::BadCandle {
            index: 1,
            source: CandleError::NotAfterPrevious {
                time: 1,
                previous: 1
            }
        })
    );
}
