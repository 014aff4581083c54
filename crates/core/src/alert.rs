//! TradingView alert bodies, as the webhook `/api/webhook/<secret>/` receives them: the
//! symbol as Bybit names it, the rating level and the optional time the alert was sent, or
//! which field is wrong and why. Pure, so the fuzz target `webhook_alert` reads bodies
//! exactly as the server does; the server maps an [`AlertError`] to its HTTP answer and
//! compares the time with its clock (docs/alerts.md, "TradingView alerts").

use chrono::DateTime;
use serde::Deserialize;
use serde_json::Value;

use crate::signal::parse_rating_level;

/// The longest symbol accepted (Bybit's are far shorter).
pub const MAX_SYMBOL_LEN: usize = 30;

/// Numeric times below this are Unix seconds, from it on Unix milliseconds (10^11 s is the
/// year 5138; 10^11 ms is March 1973).
pub const FIRST_MS_TIME: u64 = 100_000_000_000;

/// The latest time accepted, in Unix ms (the end of the year 9999, as far as RFC 3339 goes):
/// beyond, a number is not a time.
pub const LAST_TIME_MS: i64 = 253_402_300_799_999;

/// A TradingView alert: `{"symbol": "BTCUSDT", "signal": "STRONG_BUY", "time": "{{timenow}}"}`
/// (`recommendation` is accepted for `signal`; a missing signal is NEUTRAL). Other fields are
/// ignored (an `"id"` to tell apart alerts that are otherwise the same, for instance).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct AlertBody {
    pub symbol: Option<Value>,
    pub signal: Option<Value>,
    pub recommendation: Option<Value>,
    /// When the alert was sent, optional: Unix seconds or milliseconds (a number or a numeric
    /// string; below 10^11 seconds, else milliseconds) or an ISO 8601 time with its offset
    /// (RFC 3339, TradingView's `{{timenow}}`: `2026-11-27T09:15:00Z`). An alert older than
    /// the server's `webhook_max_lag_secs`, or that far ahead of its clock, is refused.
    pub time: Option<Value>,
}

/// An alert read from its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedAlert {
    /// Upper case ASCII letters and digits, at most [`MAX_SYMBOL_LEN`].
    pub symbol: String,
    /// One of [`crate::signal::RATING_LEVELS`].
    pub rating: &'static str,
    /// When it was sent (Unix ms, 0 to [`LAST_TIME_MS`]), if the body says.
    pub sent_at: Option<i64>,
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

    const BAD_TIME: &'static str = "Must be Unix seconds or milliseconds, or an ISO 8601 time \
         with its offset such as 2026-11-27T09:15:00Z.";
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
    let sent_at = match alert.time {
        None | Some(Value::Null) => None,
        Some(time) => {
            Some(parse_time(&time).ok_or_else(|| AlertError::field("time", AlertError::BAD_TIME))?)
        }
    };
    Ok(ParsedAlert {
        symbol,
        rating,
        sent_at,
    })
}

/// An alert's `time` in Unix ms: a JSON number or a numeric string (seconds below
/// [`FIRST_MS_TIME`], else milliseconds; a fraction of a second is kept to the millisecond),
/// or an RFC 3339 string. `None` when it is none of these or outside 0 to [`LAST_TIME_MS`].
pub fn parse_time(time: &Value) -> Option<i64> {
    let ms = match time {
        Value::Number(n) => match n.as_u64() {
            Some(whole) => whole_ms(whole),
            None => fraction_ms(n.as_f64()?),
        },
        Value::String(s) => {
            let s = s.trim();
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                whole_ms(s.parse().ok()?)
            } else if is_decimal(s) {
                fraction_ms(s.parse().ok()?)
            } else {
                DateTime::parse_from_rfc3339(s).ok()?.timestamp_millis()
            }
        }
        _ => return None,
    };
    (0..=LAST_TIME_MS).contains(&ms).then_some(ms)
}

/// A whole number of seconds or milliseconds, in ms (`i64::MAX` for one far too large).
fn whole_ms(n: u64) -> i64 {
    let ms = if n < FIRST_MS_TIME {
        n.saturating_mul(1000)
    } else {
        n
    };
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// A number with a fraction, in ms (-1 for one that is not a time at all).
fn fraction_ms(n: f64) -> i64 {
    if !n.is_finite() || n < 0.0 {
        return -1;
    }
    let ms = if n < FIRST_MS_TIME as f64 {
        (n * 1000.0).round()
    } else {
        n.floor()
    };
    // A float cast saturates: anything beyond i64 becomes i64::MAX, still refused.
    ms as i64
}

/// Digits with one decimal point between digits (`1764234900.5`).
fn is_decimal(s: &str) -> bool {
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    s.split_once('.')
        .is_some_and(|(whole, fraction)| digits(whole) && digits(fraction))
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
    fn times_are_seconds_milliseconds_or_rfc3339() {
        use serde_json::json;
        let at = |v: Value| parse_time(&v);
        // 2026-11-27T09:15:00Z, in every form.
        let ms = 1_795_770_900_000;
        assert_eq!(at(json!(1_795_770_900)), Some(ms), "seconds");
        assert_eq!(at(json!("1795770900")), Some(ms), "seconds as text");
        assert_eq!(at(json!(" 1795770900 ")), Some(ms), "trimmed");
        assert_eq!(at(json!(1_795_770_900_000_u64)), Some(ms), "milliseconds");
        assert_eq!(at(json!("1795770900000")), Some(ms), "ms as text");
        assert_eq!(at(json!(1_795_770_900.25)), Some(ms + 250), "a fraction");
        assert_eq!(at(json!("1795770900.25")), Some(ms + 250));
        assert_eq!(at(json!("1795770900000.9")), Some(ms), "a fraction of a ms");
        assert_eq!(at(json!("2026-11-27T09:15:00Z")), Some(ms), "{{timenow}}");
        assert_eq!(
            at(json!("2026-11-27T10:15:00+01:00")),
            Some(ms),
            "an offset"
        );
        assert_eq!(at(json!("2026-11-27T09:15:00.123Z")), Some(ms + 123));
        // Where seconds end and milliseconds begin.
        assert_eq!(at(json!(99_999_999_999_u64)), Some(99_999_999_999_000));
        assert_eq!(at(json!(100_000_000_000_u64)), Some(100_000_000_000));
        assert_eq!(at(json!(0)), Some(0));
        // The last time RFC 3339 can write, and beyond.
        assert_eq!(at(json!("9999-12-31T23:59:59.999Z")), Some(LAST_TIME_MS));
        assert_eq!(at(json!(LAST_TIME_MS)), Some(LAST_TIME_MS));
        assert_eq!(at(json!(LAST_TIME_MS + 1)), None);
        assert_eq!(at(json!(u64::MAX)), None);
        assert_eq!(at(json!(1e300)), None);
        assert_eq!(at(json!("99999999999999999999999")), None);
        for bad in [
            json!(-1),
            json!(-0.5),
            json!(""),
            json!("soon"),
            json!("1e9"),
            json!("-5"),
            json!("1.2.3"),
            json!(".5"),
            json!("2026-11-27T09:15:00"),
            json!("2026-11-27"),
            json!(true),
            json!([1_795_770_900]),
            json!({"t": 1}),
        ] {
            assert_eq!(at(bad.clone()), None, "{bad}");
        }
    }

    #[test]
    fn an_alerts_time_is_optional_and_a_bad_one_names_the_field() {
        let parsed = parse_alert(br#"{"symbol":"BTCUSDT","time":"2026-11-27T09:15:00Z","id":7}"#);
        assert_eq!(parsed.unwrap().sent_at, Some(1_795_770_900_000));
        for none in [
            r#"{"symbol":"BTCUSDT"}"#,
            r#"{"symbol":"BTCUSDT","time":null}"#,
        ] {
            assert_eq!(
                parse_alert(none.as_bytes()).unwrap().sent_at,
                None,
                "{none}"
            );
        }
        for bad in [
            r#"{"symbol":"BTCUSDT","time":"yesterday"}"#,
            r#"{"symbol":"BTCUSDT","time":-1}"#,
            r#"{"symbol":"BTCUSDT","time":{}}"#,
        ] {
            match parse_alert(bad.as_bytes()) {
                Err(AlertError::Field { field, .. }) => assert_eq!(field, "time", "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
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
