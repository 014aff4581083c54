//! A fake Telegram Bot API on loopback, written from https://core.telegram.org/bots/api, shared
//! by the notifier's tests, the trading worker's and the command poller's (each uses part of
//! it). It records every request and answers as Telegram does:
//! - every method is `/bot<token>/<method>`; another token is `401 Unauthorized`, an unknown
//!   method `404 Not Found`;
//! - `getUpdates` returns the unconfirmed updates from `offset` on ("An update is considered
//!   confirmed as soon as getUpdates is called with an offset higher than its update_id"), at
//!   most `limit`, and with none waits up to `timeout` seconds for one (long polling). A
//!   second `getUpdates` while one waits ends the first with `409 Conflict: terminated by
//!   other getUpdates request`; with a webhook set every one is `409` ("This method will not
//!   work if an outgoing webhook is set up");
//! - `sendMessage` needs a chat and a text (plain, 1-4096 characters), and inline buttons'
//!   `callback_data` of 1-64 bytes; `editMessageText` needs a message the bot sent there;
//!   `answerCallbackQuery` a query it received, answered once.
//!
//! The sending methods answer as scripted ([`Reply`]) for the notifier's tests.
#![allow(dead_code)]

use std::collections::{HashSet, VecDeque};
use std::future::IntoFuture;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use signaldesk_engine::telegram::{Notifier, TelegramConfig};
use tokio::sync::Notify;
use tokio::time::Instant;

pub const TOKEN: &str = "123456:TEST-secret-token";

/// How the fake Bot API answers one sending request.
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
    /// `chat_id`, as text whether it was sent as a number or a string.
    chat: String,
    /// The id the fake gave the message a `sendMessage` sent.
    pub message_id: Option<i64>,
}

impl Request {
    pub fn chat(&self) -> &str {
        &self.chat
    }

    pub fn text(&self) -> &str {
        self.body["text"].as_str().unwrap_or_default()
    }

    /// The Bot API method: `sendMessage`, `getUpdates`, …
    pub fn api_method(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or_default()
    }

    /// The `callback_data` of the inline buttons sent with it, in order.
    pub fn buttons(&self) -> Vec<String> {
        self.body["reply_markup"]["inline_keyboard"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|row| row.as_array().into_iter().flatten())
            .filter_map(|b| b["callback_data"].as_str().map(str::to_string))
            .collect()
    }
}

#[derive(Default)]
struct Updates {
    /// Not confirmed yet, oldest first.
    queue: VecDeque<Value>,
    /// Callback queries sent and not answered yet.
    open_queries: HashSet<String>,
    /// `(chat_id, message_id)` of every message the bot sent.
    sent: HashSet<(String, i64)>,
    webhook: bool,
}

struct FakeState {
    token: String,
    /// Answers for the next sending requests, in order; `default` after that.
    script: Mutex<VecDeque<Reply>>,
    default: Mutex<Option<Reply>>,
    requests: Mutex<Vec<Request>>,
    /// Every `getUpdates` call, answered or not.
    polls: Mutex<Vec<Request>>,
    updates: Mutex<Updates>,
    /// Woken at every new update and every new `getUpdates`.
    changed: Notify,
    /// Numbers each `getUpdates`: a waiting one that sees a newer number was overtaken.
    poll_number: AtomicU64,
    /// `getUpdates` calls ended by a newer one (two pollers at once).
    overtaken: AtomicU64,
    next_update_id: AtomicI64,
    next_message_id: AtomicI64,
}

/// A Bot API server on 127.0.0.1 that records every request.
pub struct FakeTelegram {
    pub url: String,
    state: Arc<FakeState>,
}

impl FakeTelegram {
    pub async fn start() -> FakeTelegram {
        let state = Arc::new(FakeState {
            token: TOKEN.to_string(),
            script: Mutex::default(),
            default: Mutex::default(),
            requests: Mutex::default(),
            polls: Mutex::default(),
            updates: Mutex::default(),
            changed: Notify::new(),
            poll_number: AtomicU64::new(0),
            overtaken: AtomicU64::new(0),
            // "Update identifiers start from a certain positive number".
            next_update_id: AtomicI64::new(700_000),
            next_message_id: AtomicI64::new(1),
        });
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(axum::serve(listener, app).into_future());
        FakeTelegram { url, state }
    }

    /// Answers the next sending requests with `replies`, then `Ok` (or what `always` set).
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

    /// Every request but `getUpdates`, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Every `getUpdates` request, in order.
    pub fn polls(&self) -> Vec<Request> {
        self.state.polls.lock().unwrap().clone()
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

    /// Waits (up to `within`) for a request that `matches`, and returns it.
    pub async fn wait_until(
        &self,
        within: Duration,
        what: &str,
        matches: impl Fn(&Request) -> bool,
    ) -> Request {
        let deadline = Instant::now() + within;
        loop {
            if let Some(found) = self.requests().into_iter().find(|r| matches(r)) {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {within:?}; requests: {:#?}",
                self.requests()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The `sendMessage` requests to `chat`, in order.
    pub fn messages_to(&self, chat: i64) -> Vec<Request> {
        let chat = chat.to_string();
        self.requests()
            .into_iter()
            .filter(|r| r.api_method() == "sendMessage" && r.chat() == chat)
            .collect()
    }

    /// Waits (up to 10 s) for a `sendMessage` to `chat` whose text holds `part`.
    pub async fn wait_for_message(&self, chat: i64, part: &str) -> Request {
        let chat_text = chat.to_string();
        self.wait_until(
            Duration::from_secs(10),
            &format!("message to {chat} with {part:?}"),
            |r| r.api_method() == "sendMessage" && r.chat() == chat_text && r.text().contains(part),
        )
        .await
    }

    pub fn notifier(&self) -> Notifier {
        Notifier::start(self.config())
    }

    /// A `[telegram]` section for this fake.
    pub fn config(&self) -> TelegramConfig {
        TelegramConfig {
            bot_token: TOKEN.into(),
            api_url: self.url.clone(),
            ..TelegramConfig::default()
        }
    }

    /// Sets or deletes the bot's webhook (setWebhook / deleteWebhook, done by someone else).
    pub fn set_webhook(&self, on: bool) {
        self.state.updates.lock().unwrap().webhook = on;
    }

    fn push(&self, make: impl FnOnce(i64) -> Value) -> i64 {
        let id = self.state.next_update_id.fetch_add(1, Ordering::SeqCst);
        self.state.updates.lock().unwrap().queue.push_back(make(id));
        self.state.changed.notify_waiters();
        id
    }

    /// A user writes `text` in their private chat with the bot (chat id = user id). Answers
    /// the update's id.
    pub fn user_writes(&self, user: i64, text: &str) -> i64 {
        self.push(|id| {
            json!({
                "update_id": id,
                "message": {
                    "message_id": id,
                    "from": {"id": user, "is_bot": false, "first_name": "Trader"},
                    "chat": {"id": user, "type": "private", "first_name": "Trader"},
                    "date": now_secs(),
                    "text": text,
                }
            })
        })
    }

    /// A member `user` writes `text` in the group `chat`.
    pub fn group_member_writes(&self, chat: i64, user: i64, text: &str) -> i64 {
        self.push(|id| {
            json!({
                "update_id": id,
                "message": {
                    "message_id": id,
                    "from": {"id": user, "is_bot": false, "first_name": "Member"},
                    "chat": {"id": chat, "type": "group", "title": "Traders"},
                    "date": now_secs(),
                    "text": text,
                }
            })
        })
    }

    /// `user` presses the inline button with `data` under the bot's message `sent` (a
    /// `sendMessage` request of the bot's) in their private chat. Answers the query's id.
    pub fn user_presses(&self, user: i64, sent: &Request, data: &str) -> String {
        let message_id = sent.message_id.expect("a message the bot sent");
        let query = format!("q{}", self.state.next_update_id.load(Ordering::SeqCst));
        self.state
            .updates
            .lock()
            .unwrap()
            .open_queries
            .insert(query.clone());
        let query_id = query.clone();
        self.push(move |id| {
            json!({
                "update_id": id,
                "callback_query": {
                    "id": query_id,
                    "from": {"id": user, "is_bot": false, "first_name": "Trader"},
                    "chat_instance": "1",
                    "data": data,
                    "message": {
                        "message_id": message_id,
                        "from": {"id": 123456, "is_bot": true, "first_name": "Signal Desk"},
                        "chat": {"id": user, "type": "private", "first_name": "Trader"},
                        "date": now_secs(),
                        "text": sent.text(),
                    }
                }
            })
        });
        query
    }

    /// How many `getUpdates` calls a newer one ended with 409 (two pollers at once).
    pub fn overtaken(&self) -> u64 {
        self.state.overtaken.load(Ordering::SeqCst)
    }

    /// Updates not confirmed yet.
    pub fn unconfirmed(&self) -> usize {
        self.state.updates.lock().unwrap().queue.len()
    }
}

fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

fn refusal(status: StatusCode, description: &str) -> Response {
    (
        status,
        Json(json!({"ok": false, "error_code": status.as_u16(), "description": description})),
    )
        .into_response()
}

fn ok(result: Value) -> Response {
    Json(json!({"ok": true, "result": result})).into_response()
}

async fn answer(
    State(state): State<Arc<FakeState>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let chat = match &body["chat_id"] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    };
    let request = Request {
        method,
        path: uri.path().to_string(),
        body,
        at: Instant::now(),
        chat,
        message_id: None,
    };
    let path = request.path.clone();
    let Some((token, api_method)) = path
        .strip_prefix("/bot")
        .and_then(|rest| rest.split_once('/'))
    else {
        return refusal(StatusCode::NOT_FOUND, "Not Found");
    };
    if token != state.token {
        state.requests.lock().unwrap().push(request);
        return refusal(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    match api_method {
        "getUpdates" => {
            state.polls.lock().unwrap().push(request.clone());
            get_updates(&state, &request.body).await
        }
        "sendMessage" | "editMessageText" | "answerCallbackQuery" => {
            send(&state, api_method, request).await
        }
        _ => {
            state.requests.lock().unwrap().push(request);
            refusal(StatusCode::NOT_FOUND, "Not Found")
        }
    }
}

async fn get_updates(state: &FakeState, body: &Value) -> Response {
    let number = state.poll_number.fetch_add(1, Ordering::SeqCst) + 1;
    state.changed.notify_waiters();
    if state.updates.lock().unwrap().webhook {
        return refusal(
            StatusCode::CONFLICT,
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        );
    }
    let offset = body["offset"].as_i64();
    let limit = body["limit"].as_u64().unwrap_or(100).clamp(1, 100) as usize;
    let timeout = Duration::from_secs(body["timeout"].as_u64().unwrap_or(0));
    if let Some(offset) = offset.filter(|o| *o > 0) {
        state
            .updates
            .lock()
            .unwrap()
            .queue
            .retain(|u| u["update_id"].as_i64().unwrap_or_default() >= offset);
    }
    let deadline = Instant::now() + timeout;
    loop {
        let changed = state.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        if state.poll_number.load(Ordering::SeqCst) != number {
            state.overtaken.fetch_add(1, Ordering::SeqCst);
            return refusal(
                StatusCode::CONFLICT,
                "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
            );
        }
        let ready: Vec<Value> = state
            .updates
            .lock()
            .unwrap()
            .queue
            .iter()
            .take(limit)
            .cloned()
            .collect();
        if !ready.is_empty() || Instant::now() >= deadline {
            return ok(Value::Array(ready));
        }
        tokio::select! {
            _ = &mut changed => {}
            _ = tokio::time::sleep_until(deadline) => {}
        }
    }
}

/// Checks a sending request as Telegram would; `None` when it is fine.
fn check(state: &FakeState, api_method: &str, request: &Request) -> Option<Response> {
    let body = &request.body;
    let text = body["text"].as_str().unwrap_or_default();
    match api_method {
        "sendMessage" | "editMessageText" => {
            if request.chat.is_empty() {
                return Some(refusal(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: chat not found",
                ));
            }
            if text.trim().is_empty() {
                return Some(refusal(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: message text is empty",
                ));
            }
            if text.chars().count() > 4096 {
                return Some(refusal(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: message is too long",
                ));
            }
            if request
                .buttons()
                .iter()
                .any(|data| data.is_empty() || data.len() > 64)
            {
                return Some(refusal(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: BUTTON_DATA_INVALID",
                ));
            }
            if api_method == "editMessageText" {
                let id = body["message_id"].as_i64().unwrap_or_default();
                let known = state
                    .updates
                    .lock()
                    .unwrap()
                    .sent
                    .contains(&(request.chat.clone(), id));
                if !known {
                    return Some(refusal(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: message to edit not found",
                    ));
                }
            }
            None
        }
        _ => {
            let id = body["callback_query_id"].as_str().unwrap_or_default();
            let open = state.updates.lock().unwrap().open_queries.remove(id);
            (!open).then(|| {
                refusal(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: query is too old and response timeout expired or query ID is invalid",
                )
            })
        }
    }
}

async fn send(state: &FakeState, api_method: &str, mut request: Request) -> Response {
    let scripted = state.script.lock().unwrap().pop_front();
    let reply = scripted
        .or(*state.default.lock().unwrap())
        .unwrap_or(Reply::Ok);
    if matches!(reply, Reply::Ok) {
        if let Some(refused) = check(state, api_method, &request) {
            state.requests.lock().unwrap().push(request);
            return refused;
        }
    }
    let message_id = match api_method {
        "sendMessage" => state.next_message_id.fetch_add(1, Ordering::SeqCst),
        _ => request.body["message_id"].as_i64().unwrap_or_default(),
    };
    if api_method == "sendMessage" {
        // Kept with the request, so a test can press a button under this message.
        request.message_id = Some(message_id);
    }
    let chat = request.chat.clone();
    let text = request.text().to_string();
    state.requests.lock().unwrap().push(request);
    match reply {
        Reply::Ok => {
            if api_method == "answerCallbackQuery" {
                return ok(json!(true));
            }
            state
                .updates
                .lock()
                .unwrap()
                .sent
                .insert((chat.clone(), message_id));
            let chat_id: Value = chat
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::from(chat));
            ok(json!({
                "message_id": message_id,
                "from": {"id": 123456, "is_bot": true, "first_name": "Signal Desk"},
                "chat": {"id": chat_id, "type": "private"},
                "date": now_secs(),
                "text": text,
            }))
        }
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
        Reply::ServerError => refusal(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error"),
        Reply::Forbidden => refusal(
            StatusCode::FORBIDDEN,
            "Forbidden: bot was blocked by the user",
        ),
        Reply::Hang => std::future::pending().await,
    }
}
