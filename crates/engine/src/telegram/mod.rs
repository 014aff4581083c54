//! Telegram notifications (DESIGN.md section 5, "Telegram").
//!
//! The bot token is server configuration ([`TelegramConfig`], the `[telegram]` section); each
//! user's settings hold the chat id (`telegram_id`). The engine formats a message with the
//! pure helpers [`deal_opened_text`], [`deal_closed_text`] and [`daily_summary_text`] and
//! hands it to [`Notifier::send`], which only queues it and returns: a Telegram outage never
//! blocks trading. The daily summary is due at [`next_local_midnight`] in the user's time zone.
//!
//! Delivery follows the Bot API contract: `POST {api_url}/bot<token>/sendMessage` with JSON
//! `{"chat_id", "text"}` (plain text, no `parse_mode`, so nothing needs escaping), answered by
//! `{"ok":true,"result":…}` or `{"ok":false,"error_code","description","parameters":
//! {"retry_after"}}`. Per chat, at most one request a second; a 429 waits `retry_after`
//! seconds and sends the same message again; network errors and 5xx are retried with a
//! capped backoff a few times; any other 4xx (chat not found, bot blocked) drops that message.
//! The token is part of the request URL, so no URL is ever logged.
//!
//! Commands sent to the bot (`/status`, `/closeall`, …) are read by long polling
//! (`polling`, the texts in [`commands`]): one process of a deployment polls, and only a
//! user's own chat (`telegram_id`) is answered.

mod api;
pub mod commands;
mod notifier;
pub(crate) mod polling;
mod schedule;
mod text;

use serde::{Deserialize, Serialize};

pub use notifier::{Notifier, CHAT_INTERVAL, QUEUE_CAP, REQUEST_TIMEOUT};
pub use schedule::next_local_midnight;
pub use text::{
    daily_summary_text, deal_closed_text, deal_opened_text, DailySummary, DealClosed, DealOpened,
};

/// The public Bot API server.
pub const DEFAULT_API_URL: &str = "https://api.telegram.org";

/// The server's `[telegram]` section. An empty `bot_token` (the default) turns notifications
/// off.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TelegramConfig {
    /// The token @BotFather gave the bot. A secret: never logged, not even by `Debug`.
    pub bot_token: String,
    /// Base URL of the Bot API server, without the `/bot<token>` part.
    pub api_url: String,
    /// Whether the server reads commands sent to the bot (`getUpdates`, docs/telegram.md).
    /// Off when another program reads this bot's updates.
    pub commands: bool,
    /// How long one `getUpdates` long poll waits for an update, in seconds.
    pub poll_timeout_secs: u64,
    /// How long the confirmation button of `/closeall` holds, in seconds.
    pub confirm_secs: u64,
}

impl TelegramConfig {
    /// Whether a token is configured.
    pub fn is_enabled(&self) -> bool {
        !self.bot_token.trim().is_empty()
    }
}

impl Default for TelegramConfig {
    fn default() -> Self {
        TelegramConfig {
            bot_token: String::new(),
            api_url: DEFAULT_API_URL.to_string(),
            commands: true,
            poll_timeout_secs: 25,
            confirm_secs: 60,
        }
    }
}

impl std::fmt::Debug for TelegramConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = if self.is_enabled() { "<redacted>" } else { "" };
        f.debug_struct("TelegramConfig")
            .field("bot_token", &token)
            .field("api_url", &self.api_url)
            .field("commands", &self.commands)
            .field("poll_timeout_secs", &self.poll_timeout_secs)
            .field("confirm_secs", &self.confirm_secs)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_off_and_points_at_the_public_api() {
        let config = TelegramConfig::default();
        assert!(!config.is_enabled());
        assert_eq!(config.api_url, "https://api.telegram.org");
    }

    #[test]
    fn a_partial_section_keeps_the_default_url() {
        let config: TelegramConfig = serde_json::from_str(r#"{"bot_token":"123:abc"}"#).unwrap();
        assert!(config.is_enabled());
        assert_eq!(config.api_url, DEFAULT_API_URL);
    }

    #[test]
    fn debug_never_shows_the_token() {
        let config = TelegramConfig {
            bot_token: "123:secret-token".into(),
            ..TelegramConfig::default()
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("secret-token"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
    }
}
