//! Notifications as domain events (docs/alerts.md). What a trader is told about (a trade
//! opened or closed, the daily summary, an alert raised or cleared) is a [`Notice`] that the
//! bot [publishes](Notifications::publish) and forgets: publishing never waits and never
//! fails. One dispatcher task reads the user's recipients (their settings and their
//! notification channels) and hands each notice to every [`Subscriber`]:
//!
//! - the built-in Telegram subscriber ([`telegram_channel`]): the chat of the settings'
//!   `telegram_id`, deals when `telegram_notify_deals` is on, the summary when
//!   `telegram_notify_stats` is on, alerts always; plus the user's `telegram` channels;
//! - the user's Discord, e-mail and webhook channels ([`outbound`]), each for the events it
//!   subscribed to, each with its own bounded queue, retried with back-off, its failures
//!   written on the channel for the Settings page.
//!
//! Nothing here is called by the trading worker except [`Notifications::publish`] and the
//! [`Alerts`] handle; a new channel is one more [`Subscriber`].
//!
//! Alerts: [`Alerts::raise`]`(user_id, AlertKind, detail)` raises an alert once (a second raise
//! of an open alert does nothing, on any instance: the store keeps one open alert per kind and
//! user), stores it, sends it live (`alert` websocket message) and to the channels;
//! [`Alerts::clear`]`(user_id, AlertKind)` clears it the same way. Both are cheap to call on
//! every tick: an alert known raised or known clear costs no database round trip.

mod alerts;
pub mod outbound;
pub mod telegram_channel;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use signaldesk_core::market::PositionSide;
use signaldesk_store::{AlertRecord, ChannelRecord, SecretCipher, Store};
use tokio::sync::mpsc;

use crate::telegram::{
    daily_summary_text, deal_closed_text, deal_opened_text, DailySummary, DealClosed, DealOpened,
    Notifier,
};

pub use alerts::{AlertKind, Alerts};
pub use outbound::{Outbound, SmtpConfig, SmtpTls};

/// Notices waiting for the dispatcher; beyond that a notice is dropped with a warning.
pub const DISPATCH_QUEUE: usize = 1024;
/// Longest wait for the user's recipients from the store; then the last ones read are used.
const RECIPIENTS_TIMEOUT: Duration = Duration::from_secs(3);

/// The events a channel can subscribe to, as the API names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    TradeOpened,
    TradeClosed,
    DailySummary,
    AlertRaised,
    AlertCleared,
}

impl EventKind {
    pub const ALL: [EventKind; 5] = [
        EventKind::TradeOpened,
        EventKind::TradeClosed,
        EventKind::DailySummary,
        EventKind::AlertRaised,
        EventKind::AlertCleared,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::TradeOpened => "trade_opened",
            EventKind::TradeClosed => "trade_closed",
            EventKind::DailySummary => "daily_summary",
            EventKind::AlertRaised => "alert_raised",
            EventKind::AlertCleared => "alert_cleared",
        }
    }

    pub fn parse(s: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A domain event a trader may be told about.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    TradeOpened(DealOpened),
    TradeClosed(DealClosed),
    DailySummary(DailySummary),
    AlertRaised(AlertRecord),
    AlertCleared(AlertRecord),
    /// A channel's Test button.
    Test,
}

impl Notice {
    /// `None` for a test, which goes to one channel only.
    pub fn kind(&self) -> Option<EventKind> {
        Some(match self {
            Notice::TradeOpened(_) => EventKind::TradeOpened,
            Notice::TradeClosed(_) => EventKind::TradeClosed,
            Notice::DailySummary(_) => EventKind::DailySummary,
            Notice::AlertRaised(_) => EventKind::AlertRaised,
            Notice::AlertCleared(_) => EventKind::AlertCleared,
            Notice::Test => return None,
        })
    }

    /// The message as plain text (Telegram's texts, the same on every channel).
    pub fn text(&self) -> String {
        match self {
            Notice::TradeOpened(deal) => deal_opened_text(deal),
            Notice::TradeClosed(deal) => deal_closed_text(deal),
            Notice::DailySummary(day) => daily_summary_text(day),
            Notice::AlertRaised(alert) => alert_raised_text(alert),
            Notice::AlertCleared(alert) => alert_cleared_text(alert),
            Notice::Test => "Signal Desk test message: this channel works.".to_string(),
        }
    }

    /// The generic webhook's JSON body: the event, the text and the figures.
    pub fn payload(&self, user_id: i64, sent_at_ms: i64) -> Value {
        let event = self.kind().map_or("test", EventKind::as_str);
        let data = match self {
            Notice::TradeOpened(d) => json!({
                "symbol": d.symbol, "side": side(d.side), "qty": d.qty.to_string(),
                "price": d.price.to_string(), "leverage": d.leverage, "margin": d.margin.to_string(),
            }),
            Notice::TradeClosed(d) => json!({
                "symbol": d.symbol, "side": side(d.side), "qty": d.qty.to_string(),
                "exit_price": d.exit_price.to_string(), "pnl": d.pnl.to_string(),
                "fees": d.fees.to_string(), "funding": d.funding.to_string(), "reason": d.reason,
            }),
            Notice::DailySummary(d) => json!({
                "date": d.date.to_string(), "trades": d.trades, "wins": d.wins, "losses": d.losses,
                "pnl": d.pnl.to_string(), "funding": d.funding.to_string(),
                "equity": d.equity.map(|e| e.to_string()),
            }),
            Notice::AlertRaised(a) | Notice::AlertCleared(a) => json!({
                "id": a.id, "kind": a.kind, "title": AlertKind::parse(&a.kind).map(AlertKind::title),
                "detail": a.detail, "action": a.action,
                "raised_at": rfc3339(a.raised_at), "cleared_at": a.cleared_at.map(rfc3339),
            }),
            Notice::Test => json!({}),
        };
        json!({
            "event": event,
            "user_id": user_id,
            "sent_at": rfc3339(sent_at_ms),
            "text": self.text(),
            "data": data,
        })
    }
}

fn side(side: PositionSide) -> &'static str {
    match side {
        PositionSide::Long => "long",
        PositionSide::Short => "short",
    }
}

pub(crate) fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn when(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M:%S UTC")
        .to_string()
}

/// "ALERT: <title>" with what happened, since when and what the bot does.
pub fn alert_raised_text(alert: &AlertRecord) -> String {
    let title = AlertKind::parse(&alert.kind).map_or(alert.kind.as_str(), |k| k.title());
    format!(
        "ALERT: {title}\n{detail}\nSince: {since}\nThe bot: {action}",
        detail = alert.detail,
        since = when(alert.raised_at),
        action = alert.action,
    )
}

/// "CLEARED: <title>" with how long it lasted.
pub fn alert_cleared_text(alert: &AlertRecord) -> String {
    let title = AlertKind::parse(&alert.kind).map_or(alert.kind.as_str(), |k| k.title());
    let cleared = alert.cleared_at.unwrap_or(alert.raised_at);
    let secs = (cleared - alert.raised_at).max(0) / 1000;
    format!(
        "CLEARED: {title}\nIt is over since {at} (it lasted {m} min {s} s).",
        at = when(cleared),
        m = secs / 60,
        s = secs % 60,
    )
}

/// Who hears about one user's notices: their Telegram settings and their channels.
#[derive(Debug, Clone, Default)]
pub struct Recipients {
    pub telegram_id: String,
    pub telegram_notify_deals: bool,
    pub telegram_notify_stats: bool,
    pub channels: Vec<ChannelRecord>,
}

impl Recipients {
    /// The channels of `kind` subscribed to `event`.
    pub fn channels_for<'a>(
        &'a self,
        kind: &'a str,
        event: EventKind,
    ) -> impl Iterator<Item = &'a ChannelRecord> + 'a {
        self.channels
            .iter()
            .filter(move |c| c.kind == kind && c.events.iter().any(|e| e == event.as_str()))
    }
}

/// A notification channel listening to the notices. Must not block: queue and return.
pub trait Subscriber: Send + Sync {
    fn on_notice(&self, user_id: i64, recipients: &Recipients, notice: &Notice);
}

/// The publishing end of the notices, cheap to clone. [`disabled`](Notifications::disabled)
/// drops every notice (backtests).
#[derive(Clone)]
pub struct Notifications {
    tx: Option<mpsc::Sender<(i64, Notice)>>,
    shared: Option<Arc<Shared>>,
}

struct Shared {
    store: Store,
    cipher: Arc<SecretCipher>,
    telegram: Notifier,
    outbound: Outbound,
    /// The recipients last read per user, for when the store cannot be read.
    last: Mutex<HashMap<i64, Recipients>>,
}

impl Notifications {
    /// Starts the dispatcher with the built-in subscribers (Telegram through `telegram`, and
    /// Discord, e-mail and webhooks through `outbound`).
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub fn start(
        store: Store,
        cipher: Arc<SecretCipher>,
        telegram: Notifier,
        outbound: Outbound,
    ) -> Notifications {
        let (tx, rx) = mpsc::channel(DISPATCH_QUEUE);
        let shared = Arc::new(Shared {
            store,
            cipher,
            telegram: telegram.clone(),
            outbound: outbound.clone(),
            last: Mutex::new(HashMap::new()),
        });
        let subscribers: Vec<Box<dyn Subscriber>> = vec![
            Box::new(telegram_channel::TelegramChannel::new(telegram)),
            Box::new(outbound),
        ];
        tokio::spawn(dispatch(shared.clone(), subscribers, rx));
        Notifications {
            tx: Some(tx),
            shared: Some(shared),
        }
    }

    /// Notices go nowhere.
    pub fn disabled() -> Notifications {
        Notifications {
            tx: None,
            shared: None,
        }
    }

    /// Hands `notice` to the dispatcher and returns at once.
    pub fn publish(&self, user_id: i64, notice: Notice) {
        let Some(tx) = &self.tx else { return };
        if let Err(e) = tx.try_send((user_id, notice)) {
            let kind = match &e {
                mpsc::error::TrySendError::Full(_) => "the notification queue is full",
                mpsc::error::TrySendError::Closed(_) => "the notification dispatcher stopped",
            };
            tracing::warn!(user_id, "{kind}: a notice was dropped");
        }
    }

    /// Reads the user's recipients now, so they are known should the store go away later.
    pub async fn warm(&self, user_id: i64) {
        if let Some(shared) = &self.shared {
            shared.recipients(user_id).await;
        }
    }

    /// Delivers a test message to one channel now (not through the queue): `Err` says why it
    /// failed. The outcome is written on the channel like any delivery's.
    pub async fn test_channel(&self, channel: &ChannelRecord) -> Result<(), String> {
        let Some(shared) = &self.shared else {
            return Err("Notifications are off on this server.".into());
        };
        let outcome = if channel.kind == "telegram" {
            shared
                .telegram
                .send_now(&channel.target, Notice::Test.text())
                .await
        } else {
            shared
                .outbound
                .deliver_once(channel, &Notice::Test, channel.user_id)
                .await
                .map_err(|f| f.message)
        };
        shared.outbound.record(channel.id, &outcome).await;
        outcome
    }

    /// Whether e-mail channels can be delivered (an `[smtp]` host is configured).
    pub fn email_enabled(&self) -> bool {
        self.shared
            .as_ref()
            .is_some_and(|s| s.outbound.email_enabled())
    }
}

impl Shared {
    async fn recipients(&self, user_id: i64) -> Recipients {
        let read = tokio::time::timeout(RECIPIENTS_TIMEOUT, async {
            let record = self
                .store
                .settings_or_default(user_id, chrono::Utc::now().timestamp_millis())
                .await?;
            let channels = self.store.channels_of_user(&self.cipher, user_id).await?;
            Ok::<_, signaldesk_store::StoreError>(Recipients {
                telegram_id: record.settings.telegram_id.trim().to_string(),
                telegram_notify_deals: record.settings.telegram_notify_deals,
                telegram_notify_stats: record.settings.telegram_notify_stats,
                channels,
            })
        })
        .await;
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        match read {
            Ok(Ok(recipients)) => {
                last.insert(user_id, recipients.clone());
                recipients
            }
            Ok(Err(e)) => {
                tracing::warn!(user_id, error = %e, "could not read the user's notification channels; using the last known");
                last.get(&user_id).cloned().unwrap_or_default()
            }
            Err(_) => {
                tracing::warn!(
                    user_id,
                    "reading the notification channels timed out; using the last known"
                );
                last.get(&user_id).cloned().unwrap_or_default()
            }
        }
    }
}

async fn dispatch(
    shared: Arc<Shared>,
    subscribers: Vec<Box<dyn Subscriber>>,
    mut rx: mpsc::Receiver<(i64, Notice)>,
) {
    while let Some((user_id, notice)) = rx.recv().await {
        let recipients = shared.recipients(user_id).await;
        for subscriber in &subscribers {
            subscriber.on_notice(user_id, &recipients, &notice);
        }
    }
}
