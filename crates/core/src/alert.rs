//! TradingView alert bodies, as the webhook `/api/webhook/<secret>/` receives them: the
//! symbol as Bybit names it and the rating level, or which field is wrong and why. Pure, so
//! the fuzz target `webhook_alert` reads bodies exactly as the server does; the server maps
//! an [`AlertError`] to its HTTP answer.

use serde::Deserialize;
use serde_json::Value;

use crate::signal::parse_rating_level;

/// The longest symbol accepted (Bybit's are far shorter).
pub const MAX_SYMBOL_LEN: usize = 30;

/// A TradingView alert: `{"symbol": "BTCUSDT", "signal": "STRONG_BUY"}` (`recommendation` is
/// accepted for `signal`; a missing signal is NEUTRAL).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct AlertBody {
    pub symbol: Option<Value>,
    pub signal: Option<Value>,
    pub recommendation: Option<Value>,
}

/// An alert read from its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedAlert {
    /// Upper case ASCII letters and digits, at most [`MAX_SYMBOL_LEN`].
    pub symbol: String,
    /// One of [`crate::signal::RATING_LEVELS`].
    pub rating: &'static str,
}

/// Why an alert body was refused (each a 400 answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlertError {
    /// The body is not a JSON object of the alert's shape.
    NotAnAlert,
    /// One field is wrong.
    Field {
        field: &'static str,
        message: &'static str,
    },
}

impl AlertError {
    pub const NOT_AN_ALERT: &'static str =
        "The alert must be a JSON object such as {\"symbol\": \"BTCUSDT\", \"signal\": \"STRONG_BUY\"}.";

    fn field(field: &'static str, message: &'static str) -> AlertError {
        AlertError::Field { field, message }
    }
}

/// The symbol and rating level of an alert body. TradingView's `{{ticker}}` may carry an
/// exchange prefix and a `.P` perpetual suffix (`BYBIT:BTCUSDT.P`).
///
/// The body is read as a JSON value first: deserialising [`AlertBody`] straight from the
/// bytes skipped unknown fields without checking that their strings are UTF-8, and took a
/// JSON array as the struct's fields in order, so bodies that are not JSON objects were
/// accepted (both found by the fuzz target `webhook_alert`).
pub fn parse_alert(body: &[u8]) -> Result<ParsedAlert, AlertError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| AlertError::NotAnAlert)?;
    if !value.is_object() {
        return Err(AlertError::NotAnAlert);
    }
    let alert = AlertBody::deserialize(value).map_err(|_| AlertError::NotAnAlert)?;
    let symbol = match alert.symbol {
        Some(Value::String(s)) => normalise_symbol(&s)
            .ok_or_else(|| AlertError::field("symbol", "Not a valid symbol, e.g. BTCUSDT."))?,
        Some(_) => {
            return Err(AlertError::field(
                "symbol",
                "Must be a string, e.g. BTCUSDT.",
            ))
        }
        None => return Err(AlertError::field("symbol", "This field is required.")),
    };
    let rating = match alert.signal.or(alert.recommendation) {
        None | Some(Value::Null) => "NEUTRAL",
        Some(Value::String(s)) => parse_rating_level(&s).ok_or_else(|| {
            AlertError::field(
                "signal",
                "Must be STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL.",
            )
        })?,
        Some(_) => return Err(AlertError::field("signal", "Must be a string.")),
    };
    Ok(ParsedAlert { symbol, rating })
}

/// A TradingView ticker as Bybit names the symbol, if it is one.
pub fn normalise_symbol(raw: &str) -> Option<String> {
    let upper = raw.trim().to_ascii_uppercase();
    let without_exchange = upper.rsplit(':').next().unwrap_or_default();
    let symbol = without_exchange
        .strip_suffix(".P")
        .unwrap_or(without_exchange);
    let valid = !symbol.is_empty()
        && symbol.len() <= MAX_SYMBOL_LEN
        && symbol.chars().all(|c| c.is_ascii_alphanumeric());
    valid.then(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tradingview_tickers_become_bybit_symbols() {
        assert_eq!(normalise_symbol("btcusdt").as_deref(), Some("BTCUSDT"));
        assert_eq!(
            normalise_symbol("BYBIT:BTCUSDT.P").as_deref(),
            Some("BTCUSDT")
        );
        assert_eq!(normalise_symbol(" ETHUSDT ").as_deref(), Some("ETHUSDT"));
        assert_eq!(normalise_symbol(""), None);
        assert_eq!(normalise_symbol("BTC/USDT"), None);
        assert_eq!(normalise_symbol(&"A".repeat(31)), None);
    }

    /// Found by the fuzz target `webhook_alert`: invalid UTF-8 inside the string of an
    /// unknown field was skipped unchecked and the body accepted.
    #[test]
    fn a_body_that_is_not_utf8_json_is_refused() {
        let body = b"{\"symbol\":\"BTCUSDT\",\"signa4l\":\"S#TR\xff\xff\xff\xff\xff_BUY\"}";
        assert_eq!(parse_alert(body), Err(AlertError::NotAnAlert));
    }

    /// A JSON array used to be read as the fields in order (symbol, signal, recommendation).
    #[test]
    fn an_array_is_not_an_alert() {
        let body = br#"["BTCUSDT","STRONG_BUY",null]"#;
        assert_eq!(parse_alert(body), Err(AlertError::NotAnAlert));
    }

    #[test]
    fn alerts_parse_with_either_field_name_and_default_to_neutral() {
        let ok = |b: &str| {
            let alert = parse_alert(b.as_bytes()).unwrap();
            (alert.symbol, alert.rating)
        };
        assert_eq!(
            ok(r#"{"symbol":"BTCUSDT","signal":"strong_buy"}"#),
            ("BTCUSDT".into(), "STRONG_BUY")
        );
        assert_eq!(
            ok(r#"{"symbol":"BTCUSDT","recommendation":"Strong Sell"}"#),
            ("BTCUSDT".into(), "STRONG_SELL")
        );
        assert_eq!(ok(r#"{"symbol":"BTCUSDT"}"#), ("BTCUSDT".into(), "NEUTRAL"));
        for (bad, field) in [
            ("", None),
            ("not json", None),
            ("[]", None),
            (r#"{"signal":"STRONG_BUY"}"#, Some("symbol")),
            (r#"{"symbol":5,"signal":"STRONG_BUY"}"#, Some("symbol")),
            (r#"{"symbol":"BTCUSDT","signal":"moon"}"#, Some("signal")),
            (r#"{"symbol":"BTCUSDT","signal":1}"#, Some("signal")),
        ] {
            let refused = match parse_alert(bad.as_bytes()).unwrap_err() {
                AlertError::NotAnAlert => None,
                AlertError::Field { field, .. } => Some(field),
            };
            assert_eq!(refused, field, "{bad}");
        }
    }
}
