//! `signaldesk ratings --candles FILE.csv` on the 500-candle series whose indicator values
//! TA-Lib 0.8.2 computed (crates/ratings/tests/data/talib_reference_500.csv; see
//! crates/ratings/tests for its provenance). The CLI must print the same values for the last
//! candle.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_signaldesk");
const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../ratings/tests/data/talib_reference_500.csv"
);

/// The reference file as the CLI's input format, plus its last row by column name.
fn candles_and_last_row() -> (String, std::collections::HashMap<String, String>) {
    let text = std::fs::read_to_string(REFERENCE).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let mut csv = String::from("time,open,high,low,close,volume\n");
    for row in &rows {
        csv.push_str(&row[..6].join(","));
        csv.push('\n');
    }
    let last = rows.last().unwrap();
    let by_name = header
        .iter()
        .zip(last)
        .map(|(h, v)| (h.to_string(), v.to_string()))
        .collect();
    (csv, by_name)
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-6 * expected.abs().max(1e-9)
}

#[test]
fn prints_the_last_candles_rating_with_talib_values() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, last) = candles_and_last_row();
    let file = dir.path().join("candles.csv");
    std::fs::write(&file, csv).unwrap();
    let out = Command::new(BIN)
        .args(["ratings", "--candles"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();

    let keys: Vec<&str> = report["indicators"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 31);
    for field in ["total", "ma", "osc"] {
        let v = report[field].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&v), "{field} = {v}");
    }
    let rec = report["recommendation"].as_str().unwrap();
    assert!(["STRONG_BUY", "BUY", "NEUTRAL", "SELL", "STRONG_SELL"].contains(&rec));
    for (key, column) in [
        ("SMA10", "sma_10"),
        ("EMA200", "ema_200"),
        ("RSI14", "rsi_14"),
        ("CCI20", "cci_20"),
        ("ADX14", "adx_14"),
        ("MACD", "macd_12_26_9"),
        ("WR14", "willr_14"),
        ("UO", "ultosc_7_14_28"),
        ("StochK", "stoch_k_14_3_3"),
        ("Mom10", "mom_10"),
    ] {
        let expected: f64 = last[column].parse().unwrap();
        let actual = report["indicators"][key]["value"].as_f64().unwrap();
        assert!(
            close(actual, expected),
            "{key}: {actual} vs TA-Lib {expected}"
        );
        let vote = report["indicators"][key]["vote"].as_i64().unwrap();
        assert!((-1..=1).contains(&vote));
    }
}

#[test]
fn a_bad_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.csv");
    std::fs::write(&file, "time,open,high,low,close,volume\n1,2,3,x,5,6\n").unwrap();
    let out = Command::new(BIN)
        .args(["ratings", "--candles"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2"), "{err}");
    let missing = Command::new(BIN)
        .args(["ratings", "--candles", "/nonexistent.csv"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
}
