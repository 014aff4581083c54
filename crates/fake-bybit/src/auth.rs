//! Request authentication exactly as Bybit documents it: the four `X-BAPI-*` headers, the
//! HMAC-SHA256 (lowercase hex) of `timestamp + api key + recv window + payload`, where the
//! payload is the query string as sent (GET) or the raw JSON body (POST), and the rule
//! `server_time - recv_window <= timestamp < server_time + 1000`. Written independently of
//! the client's signer so that a mistake in one is not repeated in the other.

use axum::http::HeaderMap;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::exchange::Reject;

/// Bybit's default recv window when the header is absent.
const DEFAULT_RECV_WINDOW: i64 = 5000;

/// Lowercase hex HMAC-SHA256 of `message` under `secret`.
pub fn hmac_hex(secret: &str, message: &str) -> String {
    // HMAC accepts keys of any length, so this never fails.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return String::new();
    };
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The signed headers of a request.
pub struct Signed<'a> {
    pub api_key: &'a str,
    timestamp: i64,
    recv_window: i64,
    sign: &'a str,
    raw_timestamp: &'a str,
    raw_recv_window: &'a str,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Reads the authentication headers (10003 for a missing key, 10001 for others missing).
pub fn read_headers(headers: &HeaderMap) -> Result<Signed<'_>, Reject> {
    let api_key = header(headers, "X-BAPI-API-KEY")
        .filter(|k| !k.is_empty())
        .ok_or_else(|| Reject::new(10003, "API key is invalid."))?;
    let raw_timestamp = header(headers, "X-BAPI-TIMESTAMP")
        .ok_or_else(|| Reject::new(10001, "empty param of timestamp"))?;
    let timestamp = raw_timestamp
        .parse()
        .map_err(|_| Reject::new(10001, "params error: timestamp"))?;
    let sign = header(headers, "X-BAPI-SIGN")
        .ok_or_else(|| Reject::new(10004, "error sign! empty signature"))?;
    let raw_recv_window = header(headers, "X-BAPI-RECV-WINDOW").unwrap_or("");
    let recv_window = if raw_recv_window.is_empty() {
        DEFAULT_RECV_WINDOW
    } else {
        raw_recv_window
            .parse()
            .map_err(|_| Reject::new(10001, "params error: recv_window"))?
    };
    Ok(Signed {
        api_key,
        timestamp,
        recv_window,
        sign,
        raw_timestamp,
        raw_recv_window,
    })
}

impl Signed<'_> {
    /// Checks the signature of `payload` under `secret`, then the timestamp against
    /// `server_ms`.
    pub fn verify(&self, secret: &str, payload: &str, server_ms: i64) -> Result<(), Reject> {
        let origin = format!(
            "{}{}{}{}",
            self.raw_timestamp, self.api_key, self.raw_recv_window, payload
        );
        if hmac_hex(secret, &origin) != self.sign {
            return Err(Reject::new(
                10004,
                "error sign! origin_string does not match the signature",
            ));
        }
        if !(server_ms - self.recv_window <= self.timestamp && self.timestamp < server_ms + 1000) {
            return Err(Reject::new(
                10002,
                format!(
                    "invalid request, please check your server timestamp or recv_window param. req_timestamp[{}],server_timestamp[{server_ms}],recv_window[{}]",
                    self.timestamp, self.recv_window
                ),
            ));
        }
        Ok(())
    }
}

/// Checks a websocket `auth` request: `args = [api key, expires, hex HMAC of
/// "GET/realtime" + expires]`, with `expires` still in the future.
pub fn verify_ws_auth(
    secret: &str,
    expires: i64,
    sign: &str,
    server_ms: i64,
) -> Result<(), String> {
    if hmac_hex(secret, &format!("GET/realtime{expires}")) != sign {
        return Err("Invalid sign".into());
    }
    if expires <= server_ms {
        return Err("Params Error: expires is in the past".into());
    }
    Ok(())
}
