//! The signed REST client: server-time sync, the `X-BAPI-*` headers, per-endpoint budgets,
//! and retries: after a rate limit (10006, HTTP 429) with back-off, after 10002 with the
//! clock synced again, and, where the caller allows, after a transient failure. HTTP 403
//! (the IP address banned) stops every call to the host for `ip_ban_wait`.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::errors::{is_rate_limit, is_transient, TIMESTAMP_OUTSIDE_WINDOW};
use super::limits::RateLimits;
use super::models::ServerTime;
use super::{BybitConfig, Credentials};
use crate::bybit::http::models::Envelope;
use crate::bybit::http::{ip_ban, BybitHttpError};

/// Whether a call may be sent again after a failure whose effect is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Reads and calls that set a state (leverage, stops): repeating them is harmless.
    Transient,
    /// Only after a rate limit or a clock error, which Bybit refused before acting.
    RefusedOnly,
}

#[derive(Debug)]
pub struct PrivateRest {
    http: reqwest::Client,
    base_url: String,
    credentials: Credentials,
    recv_window_ms: u64,
    /// Bybit's clock minus ours, in ms.
    offset_ms: AtomicI64,
    synced: AtomicBool,
    limits: RateLimits,
    attempts: u32,
    backoff: Duration,
    max_backoff: Duration,
    ip_ban_wait: Duration,
}

fn local_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `k=v&k=v` in the given order, values percent-encoded: the exact string that is both
/// sent and signed.
pub fn query_string(query: &[(&str, String)]) -> String {
    let encode = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    query
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

impl PrivateRest {
    pub fn new(config: &BybitConfig) -> Result<Self, BybitHttpError> {
        let http = reqwest::Client::builder()
            .timeout(config.request_timeout)
            .build()?;
        Ok(Self {
            http,
            base_url: config.rest_url.trim_end_matches('/').to_string(),
            credentials: config.credentials.clone(),
            recv_window_ms: config.recv_window_ms,
            offset_ms: AtomicI64::new(0),
            synced: AtomicBool::new(false),
            limits: RateLimits::default(),
            attempts: config.attempts.max(1),
            backoff: config.backoff,
            max_backoff: config.max_backoff,
            ip_ban_wait: config.ip_ban_wait,
        })
    }

    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    pub fn limits(&self) -> &RateLimits {
        &self.limits
    }

    /// Bybit's time now, as far as we know it.
    pub fn now_ms(&self) -> i64 {
        local_ms() + self.offset_ms.load(Ordering::Relaxed)
    }

    /// Reads Bybit's clock (GET /v5/market/time) and keeps the offset to ours.
    pub async fn sync_time(&self) -> Result<(), BybitHttpError> {
        let before = local_ms();
        let request = self.http.get(format!("{}/v5/market/time", self.base_url));
        let response = ip_ban::send(&self.base_url, self.ip_ban_wait, request).await?;
        let after = local_ms();
        let (time, _): (ServerTime, _) = read_answer(response).await?;
        let server_ms = time
            .time_nano
            .parse::<i128>()
            .map_err(|_| BybitHttpError::Decode(format!("timeNano {:?}", time.time_nano)))?
            / 1_000_000;
        let server_ms = i64::try_from(server_ms).unwrap_or(before);
        let offset = server_ms - (before + after) / 2;
        self.offset_ms.store(offset, Ordering::Relaxed);
        self.synced.store(true, Ordering::Relaxed);
        tracing::debug!(offset_ms = offset, "bybit server time synced");
        Ok(())
    }

    /// A signed GET of `path`; reads are always safe to retry.
    pub async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, BybitHttpError> {
        let qs = query_string(query);
        let value = self.call(Method::GET, path, qs, Retry::Transient).await?;
        decode(path, value)
    }

    /// A signed POST of the JSON `body` to `path`.
    pub async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &Value,
        retry: Retry,
    ) -> Result<T, BybitHttpError> {
        let value = self
            .call(Method::POST, path, body.to_string(), retry)
            .await?;
        decode(path, value)
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        payload: String,
        retry: Retry,
    ) -> Result<Value, BybitHttpError> {
        if !self.synced.load(Ordering::Relaxed) {
            if let Err(e) = self.sync_time().await {
                tracing::warn!(error = %e, "could not read Bybit's server time; using ours");
            }
        }
        let mut backoff = self.backoff;
        let mut attempt = 1;
        loop {
            self.limits.acquire(path).await;
            let error = match self.once(&method, path, &payload).await {
                Ok(value) => return Ok(value),
                Err(e) => e,
            };
            let last = attempt >= self.attempts;
            let clock = matches!(&error, BybitHttpError::Api { code, .. } if *code == TIMESTAMP_OUTSIDE_WINDOW);
            if last
                || !(is_rate_limit(&error)
                    || clock
                    || (retry == Retry::Transient && is_transient(&error)))
            {
                return Err(error);
            }
            tracing::warn!(path, attempt, error = %error, "bybit call failed; trying again");
            if is_rate_limit(&error) {
                self.limits.pause(path, backoff);
            } else if clock {
                let _ = self.sync_time().await;
            } else {
                tokio::time::sleep(backoff).await;
            }
            backoff = (backoff * 2).min(self.max_backoff);
            attempt += 1;
        }
    }

    async fn once(
        &self,
        method: &Method,
        path: &str,
        payload: &str,
    ) -> Result<Value, BybitHttpError> {
        let timestamp = self.now_ms();
        let sign = self
            .credentials
            .sign_rest(timestamp, self.recv_window_ms, payload);
        let mut url = format!("{}{}", self.base_url, path);
        if *method == Method::GET && !payload.is_empty() {
            url.push('?');
            url.push_str(payload);
        }
        let mut request = self
            .http
            .request(method.clone(), url)
            .header("X-BAPI-API-KEY", &self.credentials.api_key)
            .header("X-BAPI-TIMESTAMP", timestamp.to_string())
            .header("X-BAPI-SIGN", sign)
            .header("X-BAPI-RECV-WINDOW", self.recv_window_ms.to_string());
        if *method == Method::POST {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(payload.to_string());
        }
        let response = ip_ban::send(&self.base_url, self.ip_ban_wait, request).await?;
        self.limits.observe(path, response.headers(), self.now_ms());
        let (value, _) = read_answer(response).await?;
        Ok(value)
    }
}

/// The `result` of an answer (and Bybit's time), or the HTTP status / retCode refusing it.
async fn read_answer<T: DeserializeOwned>(
    response: reqwest::Response,
) -> Result<(T, Option<i64>), BybitHttpError> {
    let status = response.status();
    let body = response.text().await?;
    if !status.is_success() {
        // A 4xx may still carry Bybit's envelope (10002 answered as HTTP 401, 10006 as
        // 429): its retCode says more than the status. A 5xx stays a server failure.
        if status.is_client_error() {
            if let Ok(envelope) = serde_json::from_str::<Envelope>(&body) {
                if envelope.ret_code != 0 {
                    return Err(BybitHttpError::Api {
                        code: envelope.ret_code,
                        message: envelope.ret_msg,
                    });
                }
            }
        }
        let mut body = body;
        body.truncate(300);
        return Err(BybitHttpError::Status {
            status: status.as_u16(),
            body,
        });
    }
    let envelope: Envelope =
        serde_json::from_str(&body).map_err(|e| BybitHttpError::Decode(e.to_string()))?;
    if envelope.ret_code != 0 {
        return Err(BybitHttpError::Api {
            code: envelope.ret_code,
            message: envelope.ret_msg,
        });
    }
    let result = serde_json::from_value(envelope.result)
        .map_err(|e| BybitHttpError::Decode(e.to_string()))?;
    Ok((result, envelope.time))
}

fn decode<T: DeserializeOwned>(path: &str, value: Value) -> Result<T, BybitHttpError> {
    serde_json::from_value(value).map_err(|e| BybitHttpError::Decode(format!("{path}: {e}")))
}
