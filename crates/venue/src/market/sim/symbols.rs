//! The default simulated universe: twenty liquid USDT perpetuals with trading rules like
//! Bybit's linear instruments and believable prices and volatilities.

use rust_decimal::Decimal;
use signaldesk_core::market::Instrument;

/// One simulated symbol: its instrument and how its price behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct SimSymbol {
    pub instrument: Instrument,
    pub start_price: Decimal,
    /// Long-run daily volatility (0.03 = 3%).
    pub daily_vol: f64,
    /// Average traded value a day, in USDT (drives the candles' volume).
    pub daily_turnover: f64,
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap_or(Decimal::ZERO)
}

/// The default universe (about 20 symbols, BTC and ETH first).
pub fn default_symbols() -> Vec<SimSymbol> {
    // symbol, start price, tick, qty step (= min qty), max leverage, daily vol, turnover (M USDT)
    const TABLE: &[(&str, &str, &str, &str, u32, f64, f64)] = &[
        ("BTCUSDT", "90000", "0.1", "0.001", 100, 0.025, 8000.0),
        ("ETHUSDT", "3000", "0.01", "0.01", 100, 0.035, 4000.0),
        ("SOLUSDT", "140", "0.01", "0.1", 100, 0.045, 1500.0),
        ("XRPUSDT", "2.2", "0.0001", "1", 75, 0.045, 1000.0),
        ("BNBUSDT", "600", "0.01", "0.01", 75, 0.03, 300.0),
        ("DOGEUSDT", "0.16", "0.00001", "1", 75, 0.055, 800.0),
        ("ADAUSDT", "0.45", "0.0001", "1", 75, 0.05, 300.0),
        ("AVAXUSDT", "15", "0.001", "0.1", 50, 0.055, 200.0),
        ("LINKUSDT", "14", "0.001", "0.1", 50, 0.05, 250.0),
        ("DOTUSDT", "2.6", "0.0001", "0.1", 50, 0.05, 100.0),
        ("LTCUSDT", "80", "0.01", "0.1", 50, 0.04, 150.0),
        ("TRXUSDT", "0.28", "0.00001", "1", 50, 0.025, 100.0),
        ("TONUSDT", "1.6", "0.0001", "0.1", 50, 0.05, 80.0),
        ("SUIUSDT", "1.6", "0.0001", "10", 50, 0.06, 400.0),
        ("NEARUSDT", "1.9", "0.001", "0.1", 50, 0.055, 100.0),
        ("APTUSDT", "3.2", "0.0001", "0.01", 50, 0.055, 80.0),
        ("ARBUSDT", "0.3", "0.0001", "0.1", 50, 0.06, 80.0),
        ("OPUSDT", "0.45", "0.0001", "0.1", 50, 0.06, 60.0),
        ("ATOMUSDT", "2.6", "0.001", "0.1", 50, 0.05, 50.0),
        ("BCHUSDT", "500", "0.05", "0.01", 50, 0.04, 150.0),
    ];
    TABLE
        .iter()
        .map(
            |&(symbol, price, tick, step, lev, vol, turnover)| SimSymbol {
                instrument: Instrument {
                    symbol: symbol.to_string(),
                    tick_size: d(tick),
                    qty_step: d(step),
                    min_qty: d(step),
                    min_notional: Decimal::from(5),
                    max_leverage: lev,
                },
                start_price: d(price),
                daily_vol: vol,
                daily_turnover: turnover * 1_000_000.0,
            },
        )
        .collect()
}
