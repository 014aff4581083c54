//! The sending side: a bounded queue per chat and, while a chat has something queued, one
//! task that delivers its messages in order at the pace Telegram allows.
//!
//! [`Notifier::send`] takes a lock for a moment, appends to the chat's queue and, if that chat
//! has no task yet, spawns one; it never touches the network. So a slow, failing or hanging
//! Telegram costs the caller nothing: the chat's queue fills up to [`QUEUE_CAP`], after which
//! each new message pushes out the oldest. Chats never wait behind each other.

use crate::outbound_http::{describe_request_error, doubling_backoff, telegram_text};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::RETRY_AFTER;
use reqwest::StatusCode;
use serde::Deserialize;
use tokio::runtime::Handle;
use tokio::time::{sleep_until, Instant};

use super::TelegramConfig;

/// Messages one chat may have waiting; beyond that the oldest is dropped.
pub const QUEUE_CAP: usize = 100;
/// Least time between two requests to the same chat.
pub const CHAT_INTERVAL: Duration = Duration::from_secs(1);
/// Longest wait for one answer from the Bot API.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Retries of one message after network errors or 5xx answers, before it is dropped.
const MAX_TRANSIENT_RETRIES: u32 = 5;
/// Retries of one message after 429 answers, before it is dropped.
const MAX_FLOOD_RETRIES: u32 = 10;
/// First and largest pause after a network error or a 5xx answer; it doubles in between.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// The wait after a 429 that names no `retry_after`.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);

/// Sends Telegram messages in the background. Cheap to clone: clones share the queues.
///
/// Built with the bot token disabled (empty), every [`send`](Notifier::send) is a no-op.
#[derive(Clone)]
pub struct Notifier {
    shared: Option<Arc<Shared>>,
}

struct Shared {
    http: reqwest::Client,
    /// `{api_url}/bot<token>/sendMessage`. Holds the token: never logged.
    send_url: String,
    /// Where chat tasks are spawned, so `send` works from any thread.
    runtime: Handle,
    chats: Mutex<HashMap<String, Chat>>,
    dropped: AtomicU64,
}

#[derive(Default)]
struct Chat {
    queue: VecDeque<String>,
    /// Whether a task is delivering this chat's queue.
    busy: bool,
    /// No request to this chat before this instant (pace and 429 waits), kept between tasks.
    not_before: Option<Instant>,
}

/// What one request came to.
enum Outcome {
    Delivered,
    /// 429: wait this long, then send the same message again.
    Flood(Duration),
    /// Network error, timeout or 5xx: worth another try later.
    Transient(String),
    /// Any other refusal (chat not found, bot blocked, bad token): this message is lost.
    Rejected(String),
}

/// The Bot API's answer envelope; only the parts needed to decide what to do.
#[derive(Deserialize)]
struct Answer {
    ok: bool,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    parameters: Option<AnswerParameters>,
}

#[derive(Deserialize)]
struct AnswerParameters {
    #[serde(default)]
    retry_after: Option<u64>,
}

impl Notifier {
    /// A notifier for `config`. With an empty token it is [`disabled`](Notifier::disabled).
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime, when the token is set: delivery tasks run on the runtime that
    /// was current here.
    pub fn start(config: TelegramConfig) -> Notifier {
        if !config.is_enabled() {
            tracing::info!("telegram notifications are off (no bot token configured)");
            return Notifier::disabled();
        }
        let http = match reqwest::Client::builder().timeout(REQUEST_TIMEOUT).build() {
            Ok(http) => http,
            Err(e) => {
                tracing::error!(error = %describe_request_error(&e), "telegram notifications are off: no HTTP client");
                return Notifier::disabled();
            }
        };
        let send_url = format!(
            "{}/bot{}/sendMessage",
            config.api_url.trim().trim_end_matches('/'),
            config.bot_token.trim()
        );
        Notifier {
            shared: Some(Arc::new(Shared {
                http,
                send_url,
                runtime: Handle::current(),
                chats: Mutex::new(HashMap::new()),
                dropped: AtomicU64::new(0),
            })),
        }
    }

    /// A notifier that sends nothing.
    pub fn disabled() -> Notifier {
        Notifier { shared: None }
    }

    /// Whether messages go anywhere (a bot token is configured).
    pub fn is_enabled(&self) -> bool {
        self.shared.is_some()
    }

    /// Queues `text` for the chat `chat_id` and returns at once; never waits for the network.
    /// A no-op when the notifier is disabled or `chat_id` is blank. When the chat already has
    /// [`QUEUE_CAP`] messages waiting, the oldest is dropped (with a warning).
    pub fn send(&self, chat_id: &str, text: String) {
        let Some(shared) = &self.shared else { return };
        let chat_id = chat_id.trim();
        if chat_id.is_empty() {
            return;
        }
        let text = telegram_text(&text);
        let start_task = {
            let mut chats = shared.lock_chats();
            let chat = chats.entry(chat_id.to_string()).or_default();
            if chat.queue.len() >= QUEUE_CAP {
                chat.queue.pop_front();
                shared.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    chat_id,
                    "telegram queue full: dropped the oldest waiting message"
                );
            }
            chat.queue.push_back(text);
            !std::mem::replace(&mut chat.busy, true)
        };
        if start_task {
            shared
                .runtime
                .spawn(deliver_chat(Arc::clone(shared), chat_id.to_string()));
        }
    }

    /// Sends `text` to `chat_id` now, once, past the queue (a channel's Test button): `Err`
    /// says why it did not go through.
    pub async fn send_now(&self, chat_id: &str, text: String) -> Result<(), String> {
        let Some(shared) = &self.shared else {
            return Err("Telegram is not configured on this server (no bot token).".into());
        };
        let chat_id = chat_id.trim();
        if chat_id.is_empty() {
            return Err("No Telegram chat id.".into());
        }
        match shared.attempt(chat_id, &telegram_text(&text)).await {
            Outcome::Delivered => Ok(()),
            Outcome::Flood(wait) => Err(format!(
                "Telegram rate limit: retry after {} s",
                wait.as_secs()
            )),
            Outcome::Transient(why) | Outcome::Rejected(why) => Err(format!("Telegram: {why}")),
        }
    }

    /// Messages waiting for `chat_id`, not counting one being sent.
    pub fn queued(&self, chat_id: &str) -> usize {
        let Some(shared) = &self.shared else { return 0 };
        shared
            .lock_chats()
            .get(chat_id.trim())
            .map_or(0, |chat| chat.queue.len())
    }

    /// Messages dropped so far because a chat's queue was full.
    pub fn dropped(&self) -> u64 {
        self.shared
            .as_ref()
            .map_or(0, |shared| shared.dropped.load(Ordering::Relaxed))
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("enabled", &self.is_enabled())
            .field("dropped", &self.dropped())
            .finish()
    }
}

/// Delivers `chat_id`'s queue in order until it is empty, then ends. The chat's pace is kept
/// in its entry, so a task started later still waits out the previous one's last request.
async fn deliver_chat(shared: Arc<Shared>, chat_id: String) {
    let mut not_before = shared
        .lock_chats()
        .get(&chat_id)
        .and_then(|chat| chat.not_before);
    loop {
        let text = {
            let mut chats = shared.lock_chats();
            let chat = chats.entry(chat_id.clone()).or_default();
            chat.not_before = not_before;
            match chat.queue.pop_front() {
                Some(text) => text,
                None => {
                    chat.busy = false;
                    return;
                }
            }
        };
        not_before = shared.deliver(&chat_id, &text, not_before).await;
    }
}

impl Shared {
    fn lock_chats(&self) -> MutexGuard<'_, HashMap<String, Chat>> {
        // Nothing panics while holding the lock; if something ever did, the map is still
        // consistent enough to keep notifying.
        self.chats
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends one message, retrying as the answers allow. Answers the instant before which the
    /// chat must not be sent to again.
    async fn deliver(
        &self,
        chat_id: &str,
        text: &str,
        mut not_before: Option<Instant>,
    ) -> Option<Instant> {
        let mut floods = 0;
        let mut failures = 0;
        loop {
            if let Some(at) = not_before {
                sleep_until(at).await;
            }
            let started = Instant::now();
            let outcome = self.attempt(chat_id, text).await;
            let paced = started + CHAT_INTERVAL;
            match outcome {
                Outcome::Delivered => return Some(paced),
                Outcome::Rejected(why) => {
                    tracing::warn!(chat_id, reason = %why, "telegram refused a message; dropped it");
                    return Some(paced);
                }
                Outcome::Flood(wait) => {
                    floods += 1;
                    let resume = paced.max(Instant::now() + wait);
                    if floods > MAX_FLOOD_RETRIES {
                        tracing::warn!(chat_id, "telegram kept answering 429; dropped a message");
                        return Some(resume);
                    }
                    tracing::info!(
                        chat_id,
                        retry_after_secs = wait.as_secs(),
                        "telegram rate limit; waiting before sending again"
                    );
                    not_before = Some(resume);
                }
                Outcome::Transient(why) => {
                    failures += 1;
                    let resume = paced.max(Instant::now() + backoff(failures));
                    if failures > MAX_TRANSIENT_RETRIES {
                        tracing::warn!(chat_id, error = %why, "telegram unreachable; dropped a message");
                        return Some(resume);
                    }
                    tracing::info!(
                        chat_id,
                        error = %why,
                        attempt = failures,
                        "telegram send failed; will retry"
                    );
                    not_before = Some(resume);
                }
            }
        }
    }

    async fn attempt(&self, chat_id: &str, text: &str) -> Outcome {
        let body = serde_json::json!({ "chat_id": chat_id, "text": text });
        let response = match self.http.post(&self.send_url).json(&body).send().await {
            Ok(response) => response,
            Err(e) => return Outcome::Transient(describe_request_error(&e)),
        };
        let status = response.status();
        let header_wait = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok());
        let answer: Option<Answer> = match response.bytes().await {
            Ok(bytes) => serde_json::from_slice(&bytes).ok(),
            // The status is what matters; a body cut short leaves just that.
            Err(_) => None,
        };
        classify(status, header_wait, answer)
    }
}

/// Decides what an HTTP answer means for the message.
fn classify(status: StatusCode, header_wait: Option<u64>, answer: Option<Answer>) -> Outcome {
    let description = answer
        .as_ref()
        .and_then(|a| a.description.clone())
        .unwrap_or_else(|| status.to_string());
    if status == StatusCode::TOO_MANY_REQUESTS {
        let secs = answer
            .as_ref()
            .and_then(|a| a.parameters.as_ref())
            .and_then(|p| p.retry_after)
            .or(header_wait);
        return Outcome::Flood(secs.map_or(DEFAULT_RETRY_AFTER, Duration::from_secs));
    }
    if status.is_server_error() {
        return Outcome::Transient(description);
    }
    if status.is_success() {
        // A 2xx whose body was lost most likely went through; sending again could duplicate.
        return match answer {
            Some(Answer { ok: false, .. }) => Outcome::Rejected(description),
            _ => Outcome::Delivered,
        };
    }
    Outcome::Rejected(description)
}

/// 1 s, 2 s, 4 s, … up to 30 s for the `failures`-th failure in a row.
fn backoff(failures: u32) -> Duration {
    doubling_backoff(failures, BACKOFF_FIRST, BACKOFF_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(json: &str) -> Option<Answer> {
        serde_json::from_str(json).ok()
    }

    #[test]
    fn a_429_waits_what_telegram_says() {
        let body = r#"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}"#;
        match classify(StatusCode::TOO_MANY_REQUESTS, Some(3), answer(body)) {
            Outcome::Flood(wait) => assert_eq!(wait, Duration::from_secs(7)),
            _ => panic!("not a flood wait"),
        }
        match classify(StatusCode::TOO_MANY_REQUESTS, Some(3), None) {
            Outcome::Flood(wait) => assert_eq!(wait, Duration::from_secs(3)),
            _ => panic!("not a flood wait"),
        }
    }

    #[test]
    fn client_errors_are_final_and_server_errors_are_not() {
        let body = r#"{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}"#;
        match classify(StatusCode::FORBIDDEN, None, answer(body)) {
            Outcome::Rejected(why) => assert_eq!(why, "Forbidden: bot was blocked by the user"),
            _ => panic!("not rejected"),
        }
        assert!(matches!(
            classify(StatusCode::BAD_GATEWAY, None, None),
            Outcome::Transient(_)
        ));
        assert!(matches!(
            classify(StatusCode::OK, None, answer(r#"{"ok":true,"result":{}}"#)),
            Outcome::Delivered
        ));
    }

    #[test]
    fn backoff_doubles_up_to_thirty_seconds() {
        let secs: Vec<u64> = (1..=7).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(backoff(u32::MAX), BACKOFF_MAX);
    }
}
