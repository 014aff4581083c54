//! The Bot API calls the command poller makes, written from https://core.telegram.org/bots/api:
//! `getUpdates`, `sendMessage` (with an inline keyboard), `editMessageText` and
//! `answerCallbackQuery`. Every call is `POST {api_url}/bot<token>/<method>` with a JSON body,
//! answered by `{"ok":true,"result":…}` or `{"ok":false,"error_code","description",
//! "parameters":{"retry_after"}}` ("Making requests"). The URL holds the token: it is never
//! logged, and request errors are described without it.

use crate::outbound_http::{describe_request_error, telegram_text};
use std::time::Duration;

use reqwest::header::RETRY_AFTER;
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::TelegramConfig;

/// What a request may take beyond the long poll's own timeout.
const REQUEST_SLACK: Duration = Duration::from_secs(10);

/// Why a call failed, as the poller must react to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    /// 401: the token is wrong or was revoked.
    Unauthorized(String),
    /// 409 to getUpdates: a webhook is set, or another process polls with the same token.
    Conflict(String),
    /// 429: "the number of seconds left to wait before the request can be repeated".
    Flood(Duration),
    /// Network error, timeout, or a 5xx: worth another try later.
    Transient(String),
    /// Any other refusal (a bad request, a chat the bot cannot write to).
    Refused(String),
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Unauthorized(why) => write!(f, "unauthorized: {why}"),
            ApiError::Conflict(why) => write!(f, "conflict: {why}"),
            ApiError::Flood(wait) => write!(f, "too many requests, retry after {wait:?}"),
            ApiError::Transient(why) => write!(f, "unreachable: {why}"),
            ApiError::Refused(why) => write!(f, "refused: {why}"),
        }
    }
}

/// The answer envelope.
#[derive(Deserialize)]
struct Envelope {
    ok: bool,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    parameters: Option<Parameters>,
}

#[derive(Deserialize)]
struct Parameters {
    #[serde(default)]
    retry_after: Option<u64>,
}

/// One incoming update; only the kinds the poller asks for (`allowed_updates`).
#[derive(Debug, Clone, Deserialize)]
pub struct Update {
    pub update_id: i64,
    #[serde(default)]
    pub message: Option<Message>,
    #[serde(default)]
    pub callback_query: Option<CallbackQuery>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Message {
    pub message_id: i64,
    pub chat: Chat,
    #[serde(default)]
    pub from: Option<User>,
    #[serde(default)]
    pub text: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Chat {
    pub id: i64,
    /// "private", "group", "supergroup" or "channel".
    #[serde(rename = "type", default)]
    pub kind: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct User {
    pub id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CallbackQuery {
    pub id: String,
    pub from: User,
    /// The bot's message with the button; absent for inline-mode messages.
    #[serde(default)]
    pub message: Option<Message>,
    /// "Be aware that the message originated the query can contain no callback buttons with
    /// this data": a client may send anything here, so it is only ever matched, never trusted.
    #[serde(default)]
    pub data: Option<String>,
}

/// One inline keyboard button that sends `data` back in a callback query.
#[derive(Debug, Clone)]
pub struct Button {
    pub text: String,
    /// 1-64 bytes.
    pub data: String,
}

/// A Bot API client for one token.
#[derive(Clone)]
pub struct BotApi {
    http: reqwest::Client,
    /// `{api_url}/bot<token>/`. Holds the token: never logged.
    base: String,
}

impl std::fmt::Debug for BotApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotApi").finish_non_exhaustive()
    }
}

impl BotApi {
    pub fn new(config: &TelegramConfig) -> Result<BotApi, String> {
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| describe_request_error(&e))?;
        Ok(BotApi {
            http,
            base: format!(
                "{}/bot{}/",
                config.api_url.trim().trim_end_matches('/'),
                config.bot_token.trim()
            ),
        })
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        body: Value,
        timeout: Duration,
    ) -> Result<T, ApiError> {
        let response = self
            .http
            .post(format!("{}{method}", self.base))
            .timeout(timeout)
            .json(&body)
            .send()
            .await
            .map_err(|e| ApiError::Transient(describe_request_error(&e)))?;
        let status = response.status();
        let header_wait = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let bytes = response
            .bytes()
            .await
            .map_err(|e| ApiError::Transient(describe_request_error(&e)))?;
        let envelope: Option<Envelope> = serde_json::from_slice(&bytes).ok();
        match envelope {
            Some(Envelope {
                ok: true,
                result: Some(result),
                ..
            }) if status.is_success() => serde_json::from_value(result)
                .map_err(|e| ApiError::Refused(format!("unexpected {method} result: {e}"))),
            envelope => Err(failure(status, header_wait, envelope)),
        }
    }

    /// `getUpdates`: the updates from `offset` on (every earlier one is thereby confirmed),
    /// waiting up to `timeout` for one to come ("Timeout in seconds for long polling ...
    /// Should be positive, short polling should be used for testing purposes only").
    pub async fn get_updates(
        &self,
        offset: Option<i64>,
        timeout: Duration,
    ) -> Result<Vec<Update>, ApiError> {
        let mut body = json!({
            "timeout": timeout.as_secs(),
            "allowed_updates": ["message", "callback_query"],
        });
        if let Some(offset) = offset {
            body["offset"] = json!(offset);
        }
        self.call("getUpdates", body, timeout + REQUEST_SLACK).await
    }

    /// `sendMessage` in plain text (no `parse_mode`: nothing needs escaping), with an inline
    /// keyboard of one row when `buttons` is not empty. Answers the message's id.
    pub async fn send_message(
        &self,
        chat_id: i64,
        text: &str,
        buttons: &[Button],
    ) -> Result<i64, ApiError> {
        let mut body = json!({ "chat_id": chat_id, "text": telegram_text(text) });
        if !buttons.is_empty() {
            body["reply_markup"] = keyboard(buttons);
        }
        let sent: Message = self.call("sendMessage", body, REQUEST_SLACK).await?;
        Ok(sent.message_id)
    }

    /// `editMessageText` of the bot's message; leaving no `reply_markup` removes its keyboard.
    pub async fn edit_message_text(
        &self,
        chat_id: i64,
        message_id: i64,
        text: &str,
    ) -> Result<(), ApiError> {
        let body =
            json!({ "chat_id": chat_id, "message_id": message_id, "text": telegram_text(text) });
        // "On success, if the edited message is not an inline message, the edited Message is
        // returned, otherwise True is returned."
        self.call::<Value>("editMessageText", body, REQUEST_SLACK)
            .await
            .map(|_| ())
    }

    /// `answerCallbackQuery`: "Telegram clients will display a progress bar until you call
    /// answerCallbackQuery. It is, therefore, necessary to react by calling
    /// answerCallbackQuery even if no notification to the user is needed". `text` is shown
    /// as a notification (0-200 characters).
    pub async fn answer_callback_query(&self, id: &str, text: &str) -> Result<(), ApiError> {
        let text: String = text.chars().take(200).collect();
        let body = json!({ "callback_query_id": id, "text": text });
        self.call::<Value>("answerCallbackQuery", body, REQUEST_SLACK)
            .await
            .map(|_| ())
    }
}

fn keyboard(buttons: &[Button]) -> Value {
    let row: Vec<Value> = buttons
        .iter()
        .map(|b| json!({ "text": b.text, "callback_data": b.data }))
        .collect();
    json!({ "inline_keyboard": [row] })
}

/// What a failed answer means.
fn failure(status: StatusCode, header_wait: Option<u64>, envelope: Option<Envelope>) -> ApiError {
    let description = envelope
        .as_ref()
        .and_then(|e| e.description.clone())
        .unwrap_or_else(|| status.to_string());
    match status {
        StatusCode::UNAUTHORIZED => ApiError::Unauthorized(description),
        StatusCode::CONFLICT => ApiError::Conflict(description),
        StatusCode::TOO_MANY_REQUESTS => {
            let secs = envelope
                .as_ref()
                .and_then(|e| e.parameters.as_ref())
                .and_then(|p| p.retry_after)
                .or(header_wait)
                .unwrap_or(1);
            ApiError::Flood(Duration::from_secs(secs))
        }
        s if s.is_server_error() => ApiError::Transient(description),
        // A 2xx whose body could not be read: the call may have worked; nothing to retry.
        s if s.is_success() => ApiError::Transient(format!("unreadable answer: {description}")),
        _ => ApiError::Refused(description),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(json: &str) -> Option<Envelope> {
        serde_json::from_str(json).ok()
    }

    #[test]
    fn refusals_are_told_apart_as_the_docs_describe_them() {
        let conflict = r#"{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}"#;
        assert!(matches!(
            failure(StatusCode::CONFLICT, None, envelope(conflict)),
            ApiError::Conflict(why) if why.contains("other getUpdates")
        ));
        let flood = r#"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 9","parameters":{"retry_after":9}}"#;
        assert_eq!(
            failure(StatusCode::TOO_MANY_REQUESTS, Some(2), envelope(flood)),
            ApiError::Flood(Duration::from_secs(9))
        );
        let unauthorized = r#"{"ok":false,"error_code":401,"description":"Unauthorized"}"#;
        assert_eq!(
            failure(StatusCode::UNAUTHORIZED, None, envelope(unauthorized)),
            ApiError::Unauthorized("Unauthorized".into())
        );
        assert!(matches!(
            failure(StatusCode::BAD_GATEWAY, None, None),
            ApiError::Transient(_)
        ));
        assert!(matches!(
            failure(StatusCode::BAD_REQUEST, None, None),
            ApiError::Refused(_)
        ));
    }

    #[test]
    fn an_update_reads_with_the_parts_the_poller_uses() {
        let update: Update = serde_json::from_str(
            r#"{"update_id":7,"callback_query":{"id":"cb1","from":{"id":42,"is_bot":false,"first_name":"A"},
               "chat_instance":"x","data":"closeall:abc",
               "message":{"message_id":5,"date":1,"chat":{"id":42,"type":"private"},"text":"Close?"}}}"#,
        )
        .unwrap();
        let query = update.callback_query.unwrap();
        assert_eq!(query.from.id, 42);
        assert_eq!(query.data.as_deref(), Some("closeall:abc"));
        assert_eq!(query.message.unwrap().chat.kind, "private");
    }
}
