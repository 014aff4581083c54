//! Request signing as Bybit V5 documents it: HMAC-SHA256, lowercase hex, of
//! `timestamp + api key + recv window + payload` (the query string exactly as sent, or the
//! raw JSON body), and for the private websocket of `"GET/realtime" + expires`.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// An API key pair. The secret never appears in `Debug` output, logs or errors.
#[derive(Clone)]
pub struct Credentials {
    pub api_key: String,
    secret: String,
}

impl Credentials {
    pub fn new(api_key: impl Into<String>, secret: impl Into<String>) -> Self {
        Self {
            api_key: api_key.into(),
            secret: secret.into(),
        }
    }

    /// `X-BAPI-SIGN` of a REST request.
    pub fn sign_rest(&self, timestamp_ms: i64, recv_window_ms: u64, payload: &str) -> String {
        hmac_hex(
            &self.secret,
            &rest_sign_text(timestamp_ms, &self.api_key, recv_window_ms, payload),
        )
    }

    /// The signature of a private websocket `auth` request expiring at `expires_ms`.
    pub fn sign_ws_auth(&self, expires_ms: i64) -> String {
        hmac_hex(&self.secret, &format!("GET/realtime{expires_ms}"))
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("api_key", &self.api_key)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// What a REST request's signature is computed over (Bybit's `param_str`).
pub fn rest_sign_text(
    timestamp_ms: i64,
    api_key: &str,
    recv_window_ms: u64,
    payload: &str,
) -> String {
    format!("{timestamp_ms}{api_key}{recv_window_ms}{payload}")
}

/// Lowercase hex HMAC-SHA256 of `message` under `secret`.
pub fn hmac_hex(secret: &str, message: &str) -> String {
    // HMAC takes keys of any length: `new_from_slice` cannot fail for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return String::new();
    };
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}
