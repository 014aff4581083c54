//! Telegram as a subscriber of the notices, through the existing [`Notifier`] (its queue per
//! chat, its pace and its 429 handling).
//!
//! The settings' chat (`telegram_id`) hears deals when `telegram_notify_deals` is on, the
//! daily summary when `telegram_notify_stats` is on, and every alert raised or cleared. A
//! user's `telegram` channels hear the events they subscribed to; a chat reached both ways
//! gets each message once.

use super::{EventKind, Notice, Recipients, Subscriber};
use crate::telegram::Notifier;

pub struct TelegramChannel {
    notifier: Notifier,
}

impl TelegramChannel {
    pub fn new(notifier: Notifier) -> TelegramChannel {
        TelegramChannel { notifier }
    }
}

/// Whether the settings' chat hears `event`.
fn settings_chat_hears(recipients: &Recipients, event: EventKind) -> bool {
    match event {
        EventKind::TradeOpened | EventKind::TradeClosed => recipients.telegram_notify_deals,
        EventKind::DailySummary => recipients.telegram_notify_stats,
        EventKind::AlertRaised | EventKind::AlertCleared => true,
    }
}

impl Subscriber for TelegramChannel {
    fn on_notice(&self, _user_id: i64, recipients: &Recipients, notice: &Notice) {
        let Some(event) = notice.kind() else { return };
        let mut chats: Vec<&str> = Vec::new();
        if !recipients.telegram_id.is_empty() && settings_chat_hears(recipients, event) {
            chats.push(&recipients.telegram_id);
        }
        for channel in recipients.channels_for("telegram", event) {
            let chat = channel.target.trim();
            if !chat.is_empty() && !chats.contains(&chat) {
                chats.push(chat);
            }
        }
        if chats.is_empty() {
            return;
        }
        let text = notice.text();
        for chat in chats {
            self.notifier.send(chat, text.clone());
        }
    }
}
