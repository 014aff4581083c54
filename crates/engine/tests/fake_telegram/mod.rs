//! A fake Telegram Bot API on loopback that records every request and answers as scripted:
//! shared by the notifier's tests and the trading worker's (each uses part of it).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::future::IntoFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use signaldesk_engine::telegram::{Notifier, TelegramConfig};
use tokio::time::Instant;

pub const TOKEN: &str = "123456:TEST-secret-token";

/// How the fake Bot API answers one request.
#[derive(Clone, Copy, Debug)]
pub enum Reply {
    Ok,
    TooManyRequests {
        retry_after: u64,
    },
    ServerError,
    Forbidden,
    /// Never answers.
    Hang,
}

/// One request the fake Bot API received.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub body: Value,
    pub at: Instant,
}

impl Request {
    pub fn chat(&self) -> &str {
        self.body["chat_id"].as_str().unwrap_or_default()
    }

    pub fn text(&self) -> &str {
        self.body["text"].as_str().unwrap_or_default()
    }
}

#[derive(Default)]
struct FakeState {
    /// Answers for the next requests, in order; `default` after that.
    script: Mutex<VecDeque<Reply>>,
    default: Mutex<Option<Reply>>,
    requests: Mutex<Vec<Request>>,
}

/// A Bot API server on 127.0.0.1 that records every request.
pub struct FakeTelegram {
    pub url: String,
    state: Arc<FakeState>,
}

impl FakeTelegram {
    pub async fn start() -> FakeTelegram {
        let state = Arc::new(FakeState::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(axum::serve(listener, app).into_future());
        FakeTelegram { url, state }
    }

    /// Answers the next requests with `replies`, then `Ok` (or what `always` set).
    pub fn script(&self, replies: &[Reply]) {
        self.state.script.lock().unwrap().extend(replies);
    }

    pub fn always(&self, reply: Reply) {
        *self.state.default.lock().unwrap() = Some(reply);
    }

    /// Back to answering `Ok` after `always`.
    pub fn answer_normally(&self) {
        self.state.default.lock().unwrap().take();
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Waits (up to 5 s) until `n` requests have arrived, and answers them.
    pub async fn wait_for(&self, n: usize) -> Vec<Request> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let requests = self.requests();
            if requests.len() >= n {
                return requests;
            }
            assert!(
                Instant::now() < deadline,
                "expected {n} requests, got {requests:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn notifier(&self) -> Notifier {
        Notifier::start(TelegramConfig {
            bot_token: TOKEN.into(),
            api_url: self.url.clone(),
        })
    }
}

async fn answer(
    State(state): State<Arc<FakeState>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    state.requests.lock().unwrap().push(Request {
        method,
        path: uri.path().to_string(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        at: Instant::now(),
    });
    let scripted = state.script.lock().unwrap().pop_front();
    let reply = scripted
        .or(*state.default.lock().unwrap())
        .unwrap_or(Reply::Ok);
    match reply {
        Reply::Ok => Json(json!({"ok": true, "result": {"message_id": 1}})).into_response(),
        Reply::TooManyRequests { retry_after } => (
            StatusCode::TOO_MANY_REQUESTS,
            Json(json!({
                "ok": false,
                "error_code": 429,
                "description": format!("Too Many Requests: retry after {retry_after}"),
                "parameters": {"retry_after": retry_after},
            })),
        )
            .into_response(),
        Reply::ServerError => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"ok": false, "error_code": 500, "description": "Internal Server Error"})),
        )
            .into_response(),
        Reply::Forbidden => (
            StatusCode::FORBIDDEN,
            Json(json!({
                "ok": false,
                "error_code": 403,
                "description": "Forbidden: bot was blocked by the user",
            })),
        )
            .into_response(),
        Reply::Hang => std::future::pending().await,
    }
}
