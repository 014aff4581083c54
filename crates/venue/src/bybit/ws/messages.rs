//! Public websocket messages: requests we send and pushes we read.

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};
use signaldesk_core::market::Candle;

/// `{"req_id":…,"op":"subscribe","args":[topics]}`.
pub fn subscribe_request(req_id: &str, topics: &[String]) -> String {
    json!({ "req_id": req_id, "op": "subscribe", "args": topics }).to_string()
}

/// `{"req_id":…,"op":"ping"}`.
pub fn ping_request(req_id: &str) -> String {
    json!({ "req_id": req_id, "op": "ping" }).to_string()
}

/// `kline.{interval}.{symbol}`.
pub fn kline_topic(interval: &str, symbol: &str) -> String {
    format!("kline.{interval}.{symbol}")
}

/// `tickers.{symbol}`.
pub fn tickers_topic(symbol: &str) -> String {
    format!("tickers.{symbol}")
}

/// A message from the public stream that matters to us.
#[derive(Debug, Clone, PartialEq)]
pub enum PublicMessage {
    /// A subscribe or ping answer.
    Ack {
        op: String,
        success: bool,
        ret_msg: String,
    },
    /// `kline.{interval}.{symbol}`: `confirm` is true once the candle has closed.
    Kline {
        symbol: String,
        interval: String,
        candle: Candle,
        confirm: bool,
    },
    /// `tickers.{symbol}` snapshot or delta: a delta without `lastPrice` (or `fundingRate`)
    /// did not change it.
    Ticker {
        symbol: String,
        last_price: Option<Decimal>,
        funding_rate: Option<Decimal>,
        ts_ms: i64,
    },
    /// Anything else (other topics, unknown shapes).
    Other,
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    topic: Option<String>,
    #[serde(default)]
    ts: Option<i64>,
    #[serde(default)]
    data: Value,
    #[serde(default)]
    op: Option<String>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    ret_msg: Option<String>,
}

#[derive(Deserialize)]
struct WsKline {
    start: i64,
    open: String,
    high: String,
    low: String,
    close: String,
    volume: String,
    confirm: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WsTicker {
    #[serde(default)]
    symbol: Option<String>,
    #[serde(default)]
    last_price: Option<String>,
    #[serde(default)]
    funding_rate: Option<String>,
}

fn dec(value: &str) -> Result<Decimal, String> {
    value
        .parse()
        .map_err(|_| format!("not a number: {value:?}"))
}

/// Reads one text frame: the messages it holds (a kline push may carry several candles).
pub fn parse(text: &str) -> Result<Vec<PublicMessage>, String> {
    let env: Envelope = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if let Some(op) = env.op {
        return Ok(vec![PublicMessage::Ack {
            op,
            success: env.success.unwrap_or(false),
            ret_msg: env.ret_msg.unwrap_or_default(),
        }]);
    }
    let Some(topic) = env.topic else {
        return Ok(vec![PublicMessage::Other]);
    };
    let mut parts = topic.split('.');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("kline"), Some(interval), Some(symbol)) => {
            let klines: Vec<WsKline> =
                serde_json::from_value(env.data).map_err(|e| format!("{topic}: {e}"))?;
            klines
                .into_iter()
                .map(|k| {
                    Ok(PublicMessage::Kline {
                        symbol: symbol.to_string(),
                        interval: interval.to_string(),
                        candle: Candle {
                            open_time_ms: k.start,
                            open: dec(&k.open)?,
                            high: dec(&k.high)?,
                            low: dec(&k.low)?,
                            close: dec(&k.close)?,
                            volume: dec(&k.volume)?,
                        },
                        confirm: k.confirm,
                    })
                })
                .collect()
        }
        (Some("tickers"), Some(symbol), None) => {
            let t: WsTicker =
                serde_json::from_value(env.data).map_err(|e| format!("{topic}: {e}"))?;
            let number = |field: Option<&str>| match field {
                Some(p) if !p.is_empty() => dec(p).map(Some),
                _ => Ok(None),
            };
            Ok(vec![PublicMessage::Ticker {
                symbol: t.symbol.unwrap_or_else(|| symbol.to_string()),
                last_price: number(t.last_price.as_deref())?,
                funding_rate: number(t.funding_rate.as_deref())?,
                ts_ms: env.ts.unwrap_or(0),
            }])
        }
        _ => Ok(vec![PublicMessage::Other]),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn reads_the_documented_kline_push() {
        let text = r#"{"topic":"kline.5.BTCUSDT","data":[{"start":1672324800000,"end":1672325099999,"interval":"5","open":"16649.5","close":"16677","high":"16677","low":"16608","volume":"2.081","turnover":"34666.4005","confirm":false,"timestamp":1672324988882}],"ts":1672324988882,"type":"snapshot"}"#;
        let msgs = parse(text).unwrap();
        assert_eq!(
            msgs,
            vec![PublicMessage::Kline {
                symbol: "BTCUSDT".into(),
                interval: "5".into(),
                candle: Candle {
                    open_time_ms: 1672324800000,
                    open: dec!(16649.5),
                    high: dec!(16677),
                    low: dec!(16608),
                    close: dec!(16677),
                    volume: dec!(2.081),
                },
                confirm: false,
            }]
        );
    }

    #[test]
    fn reads_ticker_snapshots_deltas_and_acks() {
        let snap = r#"{"topic":"tickers.BTCUSDT","type":"snapshot","data":{"symbol":"BTCUSDT","tickDirection":"PlusTick","lastPrice":"17216.00","markPrice":"17217.33","fundingRate":"-0.000212"},"cs":24987956059,"ts":1673272861686}"#;
        assert_eq!(
            parse(snap).unwrap(),
            vec![PublicMessage::Ticker {
                symbol: "BTCUSDT".into(),
                last_price: Some(dec!(17216.00)),
                funding_rate: Some(dec!(-0.000212)),
                ts_ms: 1673272861686
            }]
        );
        let delta = r#"{"topic":"tickers.BTCUSDT","type":"delta","data":{"symbol":"BTCUSDT","markPrice":"17217.40"},"cs":24987956060,"ts":1673272861786}"#;
        assert!(matches!(
            &parse(delta).unwrap()[0],
            PublicMessage::Ticker {
                last_price: None,
                ..
            }
        ));
        let ack = r#"{"success":true,"ret_msg":"pong","conn_id":"c1","req_id":"7","op":"ping"}"#;
        assert!(matches!(
            &parse(ack).unwrap()[0],
            PublicMessage::Ack { success: true, .. }
        ));
        assert!(parse("not json").is_err());
    }
}
