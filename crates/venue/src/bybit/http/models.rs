//! Bybit V5 market REST response shapes, as documented (numbers arrive as strings).

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};
use signaldesk_core::market::{Candle, Instrument, RiskTier};

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

/// GET /v5/market/funding/history (category=linear).
#[derive(Debug, Deserialize)]
pub struct FundingHistoryResult {
    pub list: Vec<FundingHistoryRow>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FundingHistoryRow {
    pub funding_rate: String,
    pub funding_rate_timestamp: String,
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

/// GET /v5/market/risk-limit (category=linear), paged by `nextPageCursor`. Bybit's docs
/// (market/risk-limit): "Query for the risk limit margin parameters"; "category=`linear`
/// returns a data set of 15 symbols in each response. Please use the `cursor` param to get
/// the next data set."
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RiskLimitResult {
    #[serde(default)]
    pub category: String,
    pub list: Vec<RiskLimitRow>,
    #[serde(default)]
    pub next_page_cursor: Option<String>,
}

/// One tier, as the docs' response parameters describe it: `riskLimitValue` (string)
/// "Position limit", `maintenanceMargin` (number) "Maintain margin rate", `mmDeduction`
/// (string) "The maintenance margin deduction value when risk limit tier changed" (`""` for
/// the lowest tier in the docs' example), `maxLeverage` (string) "Allowed max leverage",
/// `isLowestRisk` (integer) "`1`: true, `0`: false". The docs type `maintenanceMargin` a
/// number and their example sends it as a string: both are read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RiskLimitRow {
    pub symbol: String,
    pub risk_limit_value: String,
    #[serde(deserialize_with = "number_text")]
    pub maintenance_margin: String,
    #[serde(default)]
    pub mm_deduction: String,
    pub max_leverage: String,
    #[serde(default)]
    pub is_lowest_risk: i64,
}

/// A number Bybit may send as a JSON number or as a string, as its text.
fn number_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    match serde_json::Value::deserialize(deserializer)? {
        serde_json::Value::String(text) => Ok(text),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "expected a number, found {other}"
        ))),
    }
}

impl RiskLimitRow {
    /// The tier. The rates are fractions of the position value (Bybit's BTCUSDT answers
    /// `"0.005"` for its first tier's 0.5%); a maintenance rate outside `[0, 1)` cannot be
    /// one and is refused rather than guessed at.
    pub fn to_tier(&self) -> Result<RiskTier, BybitHttpError> {
        let maintenance_margin_rate = dec("maintenanceMargin", &self.maintenance_margin)?;
        if maintenance_margin_rate < Decimal::ZERO || maintenance_margin_rate >= Decimal::ONE {
            return Err(BybitHttpError::Decode(format!(
                "maintenanceMargin of {} is not a rate: {maintenance_margin_rate}",
                self.symbol
            )));
        }
        Ok(RiskTier {
            risk_limit_value: dec("riskLimitValue", &self.risk_limit_value)?,
            maintenance_margin_rate,
            mm_deduction: match self.mm_deduction.as_str() {
                "" => Decimal::ZERO,
                text => dec("mmDeduction", text)?,
            },
            max_leverage: dec("maxLeverage", &self.max_leverage)?,
        })
    }
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
    /// Why the product cannot trade this contract (`None` when it can): it trades USDT
    /// perpetuals whose status is `Trading`.
    pub fn untradable(&self) -> Option<String> {
        let perpetual = self.contract_type.is_empty() || self.contract_type == "LinearPerpetual";
        if self.status != "Trading" {
            Some(format!("its status is {}, not Trading", self.status))
        } else if self.quote_coin != "USDT" || !perpetual {
            Some(format!(
                "it is a {} contract quoted in {}, not a USDT perpetual",
                self.contract_type, self.quote_coin
            ))
        } else {
            None
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;
    use serde_json::json;

    fn row(maintenance: serde_json::Value, deduction: &str) -> RiskLimitRow {
        serde_json::from_value(json!({
            "id": 2, "symbol": "WIFUSDT", "riskLimitValue": "400000",
            "maintenanceMargin": maintenance, "initialMargin": "0.05", "isLowestRisk": 0,
            "maxLeverage": "20.00", "mmDeduction": deduction,
        }))
        .unwrap()
    }

    #[test]
    fn a_risk_tier_reads_its_rate_as_a_string_or_a_number() {
        let expected = RiskTier {
            risk_limit_value: dec!(400000),
            maintenance_margin_rate: dec!(0.025),
            mm_deduction: dec!(1000),
            max_leverage: dec!(20),
        };
        assert_eq!(row(json!("0.025"), "1000").to_tier().unwrap(), expected);
        assert_eq!(row(json!(0.025), "1000").to_tier().unwrap(), expected);
        // The lowest tier's deduction is "".
        let first = row(json!("0.01"), "").to_tier().unwrap();
        assert_eq!(first.mm_deduction, dec!(0));
    }

    #[test]
    fn a_maintenance_rate_that_is_not_a_fraction_is_refused() {
        for bad in [json!("1"), json!("0.5x"), json!(-0.01), json!(null)] {
            let parsed = serde_json::from_value::<RiskLimitRow>(json!({
                "symbol": "WIFUSDT", "riskLimitValue": "1", "maintenanceMargin": bad,
                "maxLeverage": "1", "mmDeduction": "",
            }));
            let refused = parsed
                .map_err(|e| e.to_string())
                .and_then(|r| r.to_tier().map_err(|e| e.to_string()));
            assert!(refused.is_err(), "{bad} was read as {refused:?}");
        }
    }

    #[test]
    fn only_trading_usdt_perpetuals_are_tradable() {
        let info = |status: &str, contract: &str, quote: &str| -> InstrumentInfo {
            serde_json::from_value(json!({
                "symbol": "WIFUSDT", "contractType": contract, "status": status,
                "quoteCoin": quote, "leverageFilter": {"maxLeverage": "25.00"},
                "priceFilter": {"tickSize": "0.0005"},
                "lotSizeFilter": {"qtyStep": "5", "minOrderQty": "10"},
            }))
            .unwrap()
        };
        assert_eq!(
            info("Trading", "LinearPerpetual", "USDT").untradable(),
            None
        );
        let closed = info("Closed", "LinearPerpetual", "USDT")
            .untradable()
            .unwrap();
        assert!(closed.contains("Closed, not Trading"), "{closed}");
        let prelaunch = info("PreLaunch", "LinearPerpetual", "USDT").untradable();
        assert!(prelaunch.unwrap().contains("PreLaunch"));
        let future = info("Trading", "LinearFutures", "USDT")
            .untradable()
            .unwrap();
        assert!(future.contains("not a USDT perpetual"), "{future}");
        let usdc = info("Trading", "LinearPerpetual", "USDC").untradable();
        assert!(usdc.is_some());
    }
}
