//! Bybit V5 market REST response shapes, as documented (numbers arrive as strings).

use rust_decimal::Decimal;
use serde::Deserialize;
use signaldesk_core::market::{Candle, Instrument};

use super::error::BybitHttpError;

/// The envelope of every V5 answer. `result` is read once `ret_code` is 0.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    pub ret_code: i64,
    #[serde(default)]
    pub ret_msg: String,
    #[serde(default)]
    pub result: serde_json::Value,
    /// Server time, Unix ms.
    #[serde(default)]
    pub time: Option<i64>,
}

/// GET /v5/market/kline: `list` rows are `[startTime, open, high, low, close, volume,
/// turnover]`, newest first; the first row is the candle still open.
#[derive(Debug, Deserialize)]
pub struct KlineResult {
    #[serde(default)]
    pub symbol: String,
    #[serde(default)]
    pub category: String,
    pub list: Vec<Vec<String>>,
}

/// GET /v5/market/tickers (category=linear).
#[derive(Debug, Deserialize)]
pub struct TickersResult {
    #[serde(default)]
    pub category: String,
    pub list: Vec<Ticker>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ticker {
    pub symbol: String,
    pub last_price: String,
    #[serde(default)]
    pub mark_price: Option<String>,
    /// Turnover of the last 24 hours, in USDT ("turnover24h").
    #[serde(default, rename = "turnover24h")]
    pub turnover_24h: Option<String>,
}

/// GET /v5/market/instruments-info (category=linear), paged by `nextPageCursor`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstrumentsResult {
    #[serde(default)]
    pub category: String,
    pub list: Vec<InstrumentInfo>,
    #[serde(default)]
    pub next_page_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstrumentInfo {
    pub symbol: String,
    #[serde(default)]
    pub contract_type: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub quote_coin: String,
    pub leverage_filter: LeverageFilter,
    pub price_filter: PriceFilter,
    pub lot_size_filter: LotSizeFilter,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeverageFilter {
    pub max_leverage: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceFilter {
    pub tick_size: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LotSizeFilter {
    pub qty_step: String,
    pub min_order_qty: String,
    #[serde(default)]
    pub min_notional_value: Option<String>,
}

/// A Bybit decimal string.
pub fn dec(field: &str, value: &str) -> Result<Decimal, BybitHttpError> {
    value
        .parse()
        .map_err(|_| BybitHttpError::Decode(format!("{field} is not a number: {value:?}")))
}

/// One kline row as a candle.
pub fn kline_row(row: &[String]) -> Result<Candle, BybitHttpError> {
    let [start, open, high, low, close, volume, ..] = row else {
        return Err(BybitHttpError::Decode(format!(
            "kline row has {} fields, expected 7",
            row.len()
        )));
    };
    Ok(Candle {
        open_time_ms: start
            .parse()
            .map_err(|_| BybitHttpError::Decode(format!("kline start time {start:?}")))?,
        open: dec("open", open)?,
        high: dec("high", high)?,
        low: dec("low", low)?,
        close: dec("close", close)?,
        volume: dec("volume", volume)?,
    })
}

impl InstrumentInfo {
    /// Our instrument; a missing minimum order value counts as Bybit's usual 5 USDT.
    pub fn to_instrument(&self) -> Result<Instrument, BybitHttpError> {
        let lot = &self.lot_size_filter;
        let max_leverage = dec("maxLeverage", &self.leverage_filter.max_leverage)?;
        Ok(Instrument {
            symbol: self.symbol.clone(),
            tick_size: dec("tickSize", &self.price_filter.tick_size)?,
            qty_step: dec("qtyStep", &lot.qty_step)?,
            min_qty: dec("minOrderQty", &lot.min_order_qty)?,
            min_notional: match lot.min_notional_value.as_deref() {
                Some(v) if !v.is_empty() => dec("minNotionalValue", v)?,
                _ => Decimal::from(5),
            },
            max_leverage: max_leverage.trunc().try_into().unwrap_or(1),
        })
    }
}
