//! `/api/notification-channels/`: the user's notification channels (docs/alerts.md). A
//! Discord webhook URL is a credential and a webhook secret is a secret: neither is ever
//! answered or logged after creation (lists show them masked); a secret the server made is
//! answered once, in the creation's answer.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use signaldesk_engine::notify::EventKind;
use signaldesk_store::{ChannelRecord, ChannelSpec};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiJson, ApiPath, ApiResult, ErrorBody, FieldErrors};
use crate::wire::rfc3339;

const MAX_URL_CHARS: usize = 2048;
const MAX_ADDRESS_CHARS: usize = 254;
const SECRET_MIN_CHARS: usize = 16;
const SECRET_MAX_CHARS: usize = 256;
/// Channels one user may have.
const MAX_CHANNELS: usize = 20;
const KINDS: [&str; 4] = ["telegram", "discord", "email", "webhook"];
/// What stands for the hidden part of a URL.
const MASK: &str = "********";

#[derive(Serialize, ToSchema)]
pub struct ChannelView {
    pub id: i64,
    /// `telegram`, `discord`, `email` or `webhook`.
    pub kind: String,
    /// The chat id, the e-mail address, or the URL with all but its scheme and host masked.
    pub target: String,
    /// The events it is sent: `trade_opened`, `trade_closed`, `daily_summary`,
    /// `alert_raised`, `alert_cleared`.
    pub events: Vec<String>,
    /// Whether a signing secret is set (webhooks); the secret itself is never shown.
    pub has_secret: bool,
    /// The signing secret the server made: in the creation's answer only, once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    pub created_at: String,
    /// Failed deliveries in a row since the last success (0: working).
    pub failures: i64,
    pub last_error: Option<String>,
    pub last_failure_at: Option<String>,
    pub last_success_at: Option<String>,
}

impl From<ChannelRecord> for ChannelView {
    fn from(c: ChannelRecord) -> Self {
        ChannelView {
            id: c.id,
            target: masked(&c.kind, &c.target),
            kind: c.kind,
            events: c.events,
            has_secret: c.secret.is_some(),
            secret: None,
            created_at: rfc3339(c.created_at),
            failures: c.failures,
            last_error: c.last_error,
            last_failure_at: c.last_failure_at.map(rfc3339),
            last_success_at: c.last_success_at.map(rfc3339),
        }
    }
}

/// A URL as lists show it: scheme and host, the rest masked.
fn masked(kind: &str, target: &str) -> String {
    match kind {
        "discord" | "webhook" => match reqwest::Url::parse(target) {
            Ok(url) => format!(
                "{}://{}/{MASK}",
                url.scheme(),
                url.host_str().unwrap_or_default()
            ),
            Err(_) => MASK.to_string(),
        },
        _ => target.to_string(),
    }
}

/// The create and update payload. Debug is written by hand: `url` and `secret` are secrets.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelInput {
    /// `telegram`, `discord`, `email` or `webhook` (required on creation; cannot change).
    #[schema(required = false)]
    pub kind: Option<String>,
    /// Discord: the incoming webhook URL; webhook: where to POST.
    #[schema(max_length = 2048)]
    pub url: Option<String>,
    /// E-mail: the address; Telegram: the chat id (default: the settings' `telegram_id`).
    #[schema(max_length = 254)]
    pub address: Option<String>,
    /// Webhook: the signing secret, 16 to 256 characters (made by the server when left out).
    #[schema(max_length = 256)]
    pub secret: Option<String>,
    /// The events to send (default: all of them).
    pub events: Option<Vec<String>>,
}

impl std::fmt::Debug for ChannelInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelInput")
            .field("kind", &self.kind)
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, ToSchema)]
pub struct TestResult {
    /// Whether the test message went through.
    pub delivered: bool,
    /// Why not, when it did not.
    pub error: Option<String>,
}

fn required(fields: &mut FieldErrors, name: &str) {
    fields.insert(name.into(), vec!["This field is required.".into()]);
}

fn check_url(fields: &mut FieldErrors, kind: &str, url: &str) {
    if url.chars().count() > MAX_URL_CHARS {
        fields.insert(
            "url".into(),
            vec![format!("At most {MAX_URL_CHARS} characters.")],
        );
        return;
    }
    let Ok(parsed) = reqwest::Url::parse(url) else {
        fields.insert("url".into(), vec!["Not a valid URL.".into()]);
        return;
    };
    let ok = match kind {
        "discord" => {
            parsed.scheme() == "https"
                && matches!(
                    parsed.host_str(),
                    Some(
                        "discord.com" | "discordapp.com" | "ptb.discord.com" | "canary.discord.com"
                    )
                )
                && parsed.path().starts_with("/api/webhooks/")
        }
        _ => matches!(parsed.scheme(), "http" | "https") && parsed.host_str().is_some(),
    };
    if !ok {
        let message = if kind == "discord" {
            "A Discord incoming webhook URL: https://discord.com/api/webhooks/<id>/<token>."
        } else {
            "An http:// or https:// URL."
        };
        fields.insert("url".into(), vec![message.into()]);
    }
}

fn is_email(address: &str) -> bool {
    let Some((local, domain)) = address.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && address.chars().count() <= MAX_ADDRESS_CHARS
        && !address
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | ',' | '"'))
}

fn is_chat_id(chat: &str) -> bool {
    let digits = chat.strip_prefix('-').unwrap_or(chat);
    let numeric =
        !digits.is_empty() && digits.len() <= 20 && digits.chars().all(|c| c.is_ascii_digit());
    let username = chat.strip_prefix('@').is_some_and(|name| {
        (5..=32).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    numeric || username
}

fn check_events(fields: &mut FieldErrors, events: Option<&Vec<String>>) -> Option<Vec<String>> {
    let events = events?;
    let mut chosen: Vec<String> = Vec::new();
    let mut bad = Vec::new();
    for event in events {
        match EventKind::parse(event.trim()) {
            Some(kind) if !chosen.iter().any(|c| c == kind.as_str()) => {
                chosen.push(kind.as_str().to_string())
            }
            Some(_) => {}
            None => bad.push(event.clone()),
        }
    }
    if !bad.is_empty() {
        let all: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
        fields.insert(
            "events".into(),
            vec![format!(
                "Unknown events: {}. Known: {}.",
                bad.join(", "),
                all.join(", ")
            )],
        );
    } else if chosen.is_empty() {
        fields.insert("events".into(), vec!["Choose at least one event.".into()]);
    }
    Some(chosen)
}

/// The channel `input` describes, over `current` (an update) or from nothing (a creation):
/// kind, target, secret, events and whether the server made the secret.
struct Checked {
    kind: String,
    target: String,
    secret: Option<String>,
    events: Vec<String>,
    made_secret: bool,
}

async fn check(
    state: &AppState,
    auth: &AuthUser,
    input: &ChannelInput,
    current: Option<&ChannelRecord>,
) -> ApiResult<Checked> {
    let mut fields = FieldErrors::new();
    let kind = match (input.kind.as_deref().map(str::trim), current) {
        (Some(kind), Some(current)) if kind != current.kind => {
            fields.insert(
                "kind".into(),
                vec!["A channel's kind cannot change: add a new channel.".into()],
            );
            current.kind.clone()
        }
        (_, Some(current)) => current.kind.clone(),
        (Some(kind), None) if KINDS.contains(&kind) => kind.to_string(),
        (Some(_), None) => {
            fields.insert(
                "kind".into(),
                vec!["One of telegram, discord, email, webhook.".into()],
            );
            String::new()
        }
        (None, None) => {
            required(&mut fields, "kind");
            String::new()
        }
    };
    let url = input
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty());
    let address = input
        .address
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty());
    let secret = input.secret.as_deref().map(str::trim);
    let keep = current.map(|c| c.target.clone());
    let mut target = String::new();
    let mut made_secret = false;
    let mut new_secret = current.and_then(|c| c.secret.clone());
    for (name, given, allowed) in [
        (
            "url",
            url.is_some(),
            matches!(kind.as_str(), "discord" | "webhook"),
        ),
        (
            "address",
            address.is_some(),
            matches!(kind.as_str(), "email" | "telegram"),
        ),
        ("secret", secret.is_some(), kind == "webhook"),
    ] {
        if given && !allowed && !kind.is_empty() {
            fields.insert(name.into(), vec![format!("Not used by a {kind} channel.")]);
        }
    }
    match kind.as_str() {
        "discord" | "webhook" => match url.map(str::to_string).or(keep) {
            Some(url) => {
                check_url(&mut fields, &kind, &url);
                target = url;
            }
            None => required(&mut fields, "url"),
        },
        "email" => match address.map(str::to_string).or(keep) {
            Some(address) if is_email(&address) => {
                if !state.engine.notifications().email_enabled() {
                    fields.insert(
                        "address".into(),
                        vec![
                            "E-mail is not configured on this server: set the [smtp] section."
                                .into(),
                        ],
                    );
                }
                target = address;
            }
            Some(_) => {
                fields.insert("address".into(), vec!["Not a valid e-mail address.".into()]);
            }
            None => required(&mut fields, "address"),
        },
        "telegram" => {
            let chat = match address.map(str::to_string).or(keep) {
                Some(chat) => Some(chat),
                None => {
                    let record = state.store.settings_or_default(auth.id(), now_ms()).await?;
                    let chat = record.settings.telegram_id.trim().to_string();
                    (!chat.is_empty()).then_some(chat)
                }
            };
            match chat {
                Some(chat) if is_chat_id(&chat) => target = chat,
                Some(_) => {
                    fields.insert(
                        "address".into(),
                        vec!["A Telegram chat id: a number, or @channelname.".into()],
                    );
                }
                None => {
                    fields.insert(
                        "address".into(),
                        vec![
                            "A Telegram chat id is required (or set telegram_id in the settings)."
                                .into(),
                        ],
                    );
                }
            }
        }
        _ => {}
    }
    if kind == "webhook" {
        match secret {
            Some(s) if !(SECRET_MIN_CHARS..=SECRET_MAX_CHARS).contains(&s.chars().count()) => {
                fields.insert(
                    "secret".into(),
                    vec![format!(
                        "From {SECRET_MIN_CHARS} to {SECRET_MAX_CHARS} characters."
                    )],
                );
            }
            Some(s) => new_secret = Some(s.to_string()),
            None if new_secret.is_none() => {
                let mut bytes = [0u8; 32];
                rand::thread_rng().fill_bytes(&mut bytes);
                new_secret = Some(hex::encode(bytes));
                made_secret = true;
            }
            None => {}
        }
    } else {
        new_secret = None;
    }
    let events = check_events(&mut fields, input.events.as_ref())
        .or_else(|| current.map(|c| c.events.clone()))
        .unwrap_or_else(signaldesk_engine::notify::outbound::default_events);
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    Ok(Checked {
        kind,
        target,
        secret: new_secret,
        events,
        made_secret,
    })
}

#[utoipa::path(get, path = "/api/notification-channels/", tag = "notification-channels",
    responses((status = 200, body = [ChannelView]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<ChannelView>>> {
    let channels = state
        .store
        .channels_of_user(&state.cipher, auth.id())
        .await?;
    Ok(Json(channels.into_iter().map(Into::into).collect()))
}

#[utoipa::path(post, path = "/api/notification-channels/", tag = "notification-channels",
    request_body = ChannelInput,
    responses((status = 201, body = ChannelView), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiJson(input): ApiJson<ChannelInput>,
) -> ApiResult<(StatusCode, Json<ChannelView>)> {
    let checked = check(&state, &auth, &input, None).await?;
    let existing = state
        .store
        .channels_of_user(&state.cipher, auth.id())
        .await?;
    if existing.len() >= MAX_CHANNELS {
        return Err(ApiError::bad_request(format!(
            "At most {MAX_CHANNELS} notification channels: delete one first."
        )));
    }
    let record = state
        .store
        .create_channel(
            &state.cipher,
            auth.id(),
            &ChannelSpec {
                kind: &checked.kind,
                target: &checked.target,
                secret: checked.secret.as_deref(),
                events: &checked.events,
            },
            now_ms(),
        )
        .await?;
    tracing::info!(user_id = auth.id(), channel_id = record.id, kind = %record.kind, "notification channel added");
    let mut view = ChannelView::from(record);
    if checked.made_secret {
        view.secret = checked.secret;
    }
    Ok((StatusCode::CREATED, Json(view)))
}

async fn own_channel(state: &AppState, auth: &AuthUser, id: i64) -> ApiResult<ChannelRecord> {
    state
        .store
        .channel(&state.cipher, auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Changes a channel: fields left out keep their value (the URL and secret, which are never
/// shown, included).
#[utoipa::path(put, path = "/api/notification-channels/{id}/", tag = "notification-channels",
    params(("id" = i64, Path)), request_body = ChannelInput,
    responses((status = 200, body = ChannelView), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(input): ApiJson<ChannelInput>,
) -> ApiResult<Json<ChannelView>> {
    let current = own_channel(&state, &auth, id).await?;
    let checked = check(&state, &auth, &input, Some(&current)).await?;
    let record = state
        .store
        .update_channel(
            &state.cipher,
            auth.id(),
            id,
            &ChannelSpec {
                kind: &checked.kind,
                target: &checked.target,
                secret: checked.secret.as_deref(),
                events: &checked.events,
            },
        )
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(record.into()))
}

#[utoipa::path(delete, path = "/api/notification-channels/{id}/", tag = "notification-channels",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 404, body = ErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<StatusCode> {
    if !state.store.delete_channel(auth.id(), id).await? {
        return Err(ApiError::not_found());
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Sends a test message to the channel now and answers whether it went through; the outcome
/// is written on the channel like any delivery's.
#[utoipa::path(post, path = "/api/notification-channels/{id}/test/", tag = "notification-channels",
    params(("id" = i64, Path)),
    responses((status = 200, body = TestResult), (status = 404, body = ErrorBody)))]
pub async fn test(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<TestResult>> {
    let channel = own_channel(&state, &auth, id).await?;
    let outcome = state.engine.notifications().test_channel(&channel).await;
    Ok(Json(TestResult {
        delivered: outcome.is_ok(),
        error: outcome.err(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_masked_past_the_host() {
        assert_eq!(
            masked("discord", "https://discord.com/api/webhooks/1/tok"),
            "https://discord.com/********"
        );
        assert_eq!(masked("webhook", "not a url"), "********");
        assert_eq!(masked("email", "a@b.co"), "a@b.co");
    }

    #[test]
    fn addresses_and_chats() {
        assert!(is_email("trader@example.com"));
        assert!(!is_email("trader@example"));
        assert!(!is_email("a b@example.com"));
        assert!(is_chat_id("-1001234567890"));
        assert!(is_chat_id("@my_channel"));
        assert!(!is_chat_id("12a"));
    }
}
