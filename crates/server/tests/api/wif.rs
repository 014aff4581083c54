//! WIFUSDT for the backtest tests on Bybit's history: a symbol the simulated market does not
//! have, with a tick and a quantity step none of its symbols has, and believable minutes on
//! that tick.

use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;
use signaldesk_core::market::{Candle, Instrument};

/// Bybit's WIFUSDT as the tests have Bybit list it.
pub fn wif() -> Instrument {
    let d = |text: &str| Decimal::from_str(text).unwrap();
    Instrument {
        symbol: "WIFUSDT".into(),
        tick_size: d("0.0005"),
        qty_step: d("5"),
        min_qty: d("10"),
        min_notional: d("5"),
        max_leverage: 25,
    }
}

/// WIF's 1-minute candles opened in `[from_ms, to_ms)`: the simulated market's DOGE at ten
/// times the price, each price rounded to WIF's tick (Bybit's prices are whole ticks).
pub fn wif_minutes(from_ms: i64, to_ms: i64) -> Vec<Candle> {
    let symbols = ["DOGEUSDT".to_string()];
    let (_, minutes) =
        signaldesk_backtest::data::simulated_minutes(9, &symbols, from_ms, to_ms).unwrap();
    let on_tick = |p: Decimal| wif().round_price(p * Decimal::TEN);
    minutes["DOGEUSDT"]
        .iter()
        .map(|c| Candle {
            open: on_tick(c.open),
            high: on_tick(c.high),
            low: on_tick(c.low),
            close: on_tick(c.close),
            ..c.clone()
        })
        .collect()
}

/// Whether the JSON number `value` is a whole number of `step`s.
pub fn on_step(value: &Value, step: Decimal) -> bool {
    let value = Decimal::from_str(&value.as_f64().unwrap().to_string()).unwrap();
    (value % step).is_zero()
}

/// `result`'s instruments must list WIF as [`wif`] with this maintenance margin rate, and
/// every trade be on its steps.
pub fn assert_traded_on_wif(result: &Value, maintenance_margin_rate: f64) {
    let wif = wif();
    assert_eq!(
        result["instruments"],
        serde_json::json!([{"symbol": "WIFUSDT", "tick_size": 0.0005, "qty_step": 5.0,
            "min_qty": 10.0, "min_notional": 5.0, "max_leverage": 25,
            "maintenance_margin_rate": maintenance_margin_rate}]),
        "{result}"
    );
    let trades = result["trades"].as_array().unwrap();
    assert!(!trades.is_empty(), "{result}");
    for trade in trades {
        assert!(on_step(&trade["quantity"], wif.qty_step), "{trade}");
        assert!(on_step(&trade["entry_price"], wif.tick_size), "{trade}");
    }
}
