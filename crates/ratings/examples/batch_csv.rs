//! Writes the `cold_batch_500x500` bench's candles (500 symbols x 500
//! one-minute candles) as CSV, `symbol,time,open,high,low,close,volume`,
//! every number round-trip exact, for `tools/talib_batch_bench.py` to time
//! TA-Lib on the same OHLCV:
//!
//! ```text
//! cargo run --release -p signaldesk-ratings --example batch_csv -- /tmp/ratings_batch.csv
//! ```

use std::fmt::Write as _;

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/ratings_batch.csv".to_string());
    let mut out = String::from("symbol,time,open,high,low,close,volume\n");
    for (s, candles) in common::batch_series(500, 500).iter().enumerate() {
        for c in candles {
            // `{}` on f64 prints the shortest text that parses back to the same bits.
            writeln!(
                out,
                "{s},{},{},{},{},{},{}",
                c.time, c.open, c.high, c.low, c.close, c.volume
            )
            .expect("writing to a String");
        }
    }
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    println!("wrote {path}: 500 symbols x 500 candles");
}
