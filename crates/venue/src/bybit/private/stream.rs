//! The private websocket: connect, `auth` with `[api key, expires, HMAC("GET/realtime" +
//! expires)]`, subscribe to `order`, `execution`, `position` and `wallet`, ping every
//! `ping_interval`, and reconnect with back-off (resubscribing) when the connection closes,
//! fails or goes quiet. After every successful login it reports `Connected`, which is the
//! venue's cue to resync over REST.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::rest::PrivateRest;
use super::BybitConfig;

pub const TOPICS: [&str; 4] = ["order", "execution", "position", "wallet"];
/// How far in the future the auth request expires.
const AUTH_VALIDITY_MS: i64 = 10_000;
const AUTH_TIMEOUT: Duration = Duration::from_secs(10);

/// What the stream reports.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// Logged in and subscribed (again): pushes may have been missed before this.
    Connected,
    Push {
        topic: String,
        data: Value,
    },
}

/// Runs the private stream on a task until aborted or until `tx`'s receiver is gone.
pub fn spawn_private_stream(
    config: BybitConfig,
    rest: Arc<PrivateRest>,
    tx: mpsc::Sender<StreamEvent>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut backoff = config.reconnect_min;
        loop {
            match tokio_tungstenite::connect_async(config.private_ws_url.as_str()).await {
                Ok((socket, _)) => {
                    let (reason, logged_in) = run_connection(socket, &config, &rest, &tx).await;
                    if logged_in {
                        backoff = config.reconnect_min;
                    }
                    if tx.is_closed() {
                        return;
                    }
                    tracing::warn!(%reason, "bybit private stream disconnected");
                }
                Err(e) => tracing::warn!(error = %e, "bybit private stream could not connect"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(config.reconnect_max);
        }
    })
}

/// Serves one connection; returns why it ended and whether the login succeeded.
async fn run_connection<S>(
    socket: tokio_tungstenite::WebSocketStream<S>,
    config: &BybitConfig,
    rest: &PrivateRest,
    tx: &mpsc::Sender<StreamEvent>,
) -> (String, bool)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    let expires = rest.now_ms() + AUTH_VALIDITY_MS;
    let credentials = rest.credentials();
    let auth = json!({
        "req_id": "auth",
        "op": "auth",
        "args": [credentials.api_key, expires, credentials.sign_ws_auth(expires)],
    });
    if let Err(e) = sink.send(Message::Text(auth.to_string().into())).await {
        return (format!("auth failed: {e}"), false);
    }
    let answer = tokio::time::timeout(AUTH_TIMEOUT, async {
        while let Some(frame) = stream.next().await {
            if let Ok(Message::Text(text)) = frame {
                let v: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
                if v.get("op").and_then(Value::as_str) == Some("auth") {
                    return Some(v);
                }
            }
        }
        None
    })
    .await;
    match answer {
        Ok(Some(v)) if v.get("success").and_then(Value::as_bool) == Some(true) => {}
        Ok(Some(v)) => {
            let msg = v.get("ret_msg").and_then(Value::as_str).unwrap_or("");
            tracing::error!(
                ret_msg = msg,
                "Bybit refused the private stream login: check the API key, its secret and whether it is a demo key"
            );
            return (format!("login refused: {msg}"), false);
        }
        Ok(None) => return ("closed during login".into(), false),
        Err(_) => return ("no answer to the login".into(), false),
    }
    let subscribe = json!({ "req_id": "subscribe", "op": "subscribe", "args": TOPICS });
    if let Err(e) = sink.send(Message::Text(subscribe.to_string().into())).await {
        return (format!("subscribe failed: {e}"), true);
    }
    tracing::info!(url = %config.private_ws_url, "bybit private stream connected");
    if tx.send(StreamEvent::Connected).await.is_err() {
        return ("venue dropped".into(), true);
    }
    let period = config.ping_interval;
    let mut ping = tokio::time::interval_at(Instant::now() + period, period);
    let mut last_heard = Instant::now();
    let mut req = 0u64;
    loop {
        tokio::select! {
            _ = ping.tick() => {
                if last_heard.elapsed() > period * 2 {
                    return ("no message for two ping intervals".into(), true);
                }
                req += 1;
                let text = json!({ "req_id": req.to_string(), "op": "ping" }).to_string();
                if let Err(e) = sink.send(Message::Text(text.into())).await {
                    return (format!("ping failed: {e}"), true);
                }
            }
            frame = stream.next() => {
                last_heard = Instant::now();
                match frame {
                    Some(Ok(Message::Text(text))) => {
                        if let Some(event) = read_push(text.as_str()) {
                            if tx.send(event).await.is_err() {
                                return ("venue dropped".into(), true);
                            }
                        }
                    }
                    Some(Ok(Message::Ping(payload))) => {
                        if let Err(e) = sink.send(Message::Pong(payload)).await {
                            return (format!("pong failed: {e}"), true);
                        }
                    }
                    Some(Ok(Message::Close(_))) | None => return ("closed by the server".into(), true),
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return (format!("read failed: {e}"), true),
                }
            }
        }
    }
}

/// A topic push, or `None` for acks and pongs (a refused subscribe is logged).
pub fn read_push(text: &str) -> Option<StreamEvent> {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(error = %e, "unreadable bybit private message");
            return None;
        }
    };
    if let Some(op) = v.get("op").and_then(Value::as_str) {
        if v.get("success").and_then(Value::as_bool) == Some(false) {
            let msg = v.get("ret_msg").and_then(Value::as_str).unwrap_or("");
            tracing::warn!(op, ret_msg = msg, "bybit refused a private stream request");
        }
        return None;
    }
    let topic = v.get("topic").and_then(Value::as_str)?;
    let topic = topic.split('.').next().unwrap_or(topic).to_string();
    Some(StreamEvent::Push {
        topic,
        data: v.get("data").cloned().unwrap_or(Value::Null),
    })
}
