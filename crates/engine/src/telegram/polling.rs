//! The command poller: reads the messages sent to the bot by long polling (`getUpdates`, so
//! it works behind NAT with no public URL) and answers the commands of [`super::commands`].
//!
//! The rules it keeps, from the Bot API documentation (https://core.telegram.org/bots/api):
//! - "An update is considered confirmed as soon as getUpdates is called with an offset higher
//!   than its update_id." The offset of the next update is kept in the database and moved past
//!   an update *before* it is acted on (`Store::claim_telegram_update`), so an update is acted
//!   on at most once, also when the process stops between acting and confirming: the next
//!   process (or instance) asks from the stored offset.
//! - "Incoming updates are stored on the server until the bot receives them either way, but
//!   they will not be kept longer than 24 hours", and "if there are no new updates for at
//!   least a week, then identifier of the next update will be chosen randomly": a stored
//!   offset older than a day is dropped and polling starts from the earliest unconfirmed
//!   update.
//! - getUpdates "will not work if an outgoing webhook is set up", and Telegram answers a
//!   second poller of the same token `409 Conflict: terminated by other getUpdates request`.
//!   So one process of a deployment polls: it holds the poller lease (migration 0021), like a
//!   bot's lease, renewed at every poll; the others look every [`STANDBY_RETRY`] whether it
//!   is free. A 409 all the same (a webhook, or another program with the token) is logged
//!   with what to do and tried again every [`CONFLICT_RETRY`].
//! - 429 answers wait `retry_after` seconds; network errors and 5xx back off from 1 s to 60 s.
//! - "Telegram clients will display a progress bar until you call answerCallbackQuery": every
//!   press of a button of ours is answered.
//!
//! Who may command: only a user's own chat. A message counts when it comes from a private
//! chat (the sender is the chat) whose id is exactly one user's `telegram_id`; any other
//! update is ignored and logged with its chat id and never its text (a message may hold
//! anything). `/closeall` only asks: positions close when its button is pressed, within
//! `confirm_secs`, in the same chat; the button's data carries a random nonce, since
//! "the message originated the query can contain no callback buttons with this data".

use crate::outbound_http::doubling_backoff;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use signaldesk_store::{AuditAction, LeaseHolder, TradeQuery, TradeStatus};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::api::{ApiError, BotApi, Button, CallbackQuery, Message, Update};
use super::commands::{self, Command, OpenTrade, Profit, ProfitPeriod};
use super::TelegramConfig;
use crate::control::BotControl;
use crate::{Engine, EngineError};

/// How long Telegram keeps an update nobody confirmed.
const UPDATES_KEPT_MS: i64 = 24 * 60 * 60 * 1000;
/// The poller lease lasts the long poll plus this; renewed before every poll.
const LEASE_SLACK: Duration = Duration::from_secs(35);
/// While another instance polls: how often to look whether it still does.
pub const STANDBY_RETRY: Duration = Duration::from_secs(15);
/// After a 409 Conflict (a webhook is set, or another program polls with the token).
pub const CONFLICT_RETRY: Duration = Duration::from_secs(30);
/// After a 401: the token is wrong or revoked; a restart with a new one is needed.
const UNAUTHORIZED_RETRY: Duration = Duration::from_secs(300);
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// Tries of one answer before it is dropped.
const REPLY_TRIES: u32 = 3;
/// Trades `/trades` lists.
const RECENT_TRADES: i64 = 10;

/// A `/closeall` waiting for its button.
struct Pending {
    nonce: String,
    chat_id: i64,
    expires: Instant,
}

/// An answer: plain text, and buttons under it.
struct Reply {
    text: String,
    buttons: Vec<Button>,
}

impl From<String> for Reply {
    fn from(text: String) -> Reply {
        Reply {
            text,
            buttons: Vec::new(),
        }
    }
}

pub(crate) struct Poller {
    engine: Arc<Engine>,
    api: BotApi,
    holder: LeaseHolder,
    stop: CancellationToken,
    poll_timeout: Duration,
    confirm_for: Duration,
    /// One waiting `/closeall` per user.
    pending: HashMap<i64, Pending>,
}

/// Reads and answers commands until `stop`, then lets go of the poller lease.
pub(crate) async fn run(
    engine: Arc<Engine>,
    config: TelegramConfig,
    holder: LeaseHolder,
    stop: CancellationToken,
) {
    let api = match BotApi::new(&config) {
        Ok(api) => api,
        Err(e) => {
            tracing::error!(error = %e, "telegram commands are off: no HTTP client");
            return;
        }
    };
    let mut poller = Poller {
        engine,
        api,
        holder,
        stop,
        poll_timeout: Duration::from_secs(config.poll_timeout_secs.clamp(1, 50)),
        confirm_for: Duration::from_secs(config.confirm_secs.max(1)),
        pending: HashMap::new(),
    };
    poller.poll().await;
    if let Err(e) = poller
        .engine
        .store()
        .release_telegram_poller(&poller.holder)
        .await
    {
        tracing::debug!(error = %e, "could not release the telegram poller lease; it will run out");
    }
}

impl Poller {
    fn ttl_ms(&self) -> i64 {
        i64::try_from((self.poll_timeout + LEASE_SLACK).as_millis()).unwrap_or(i64::MAX)
    }

    /// Waits `wait` unless stopped first; false when stopped.
    async fn pause(&self, wait: Duration) -> bool {
        tokio::select! {
            _ = self.stop.cancelled() => false,
            _ = tokio::time::sleep(wait) => true,
        }
    }

    /// Takes the poller lease, or renews it when held; where to poll from when it is held.
    /// `Err` carries how long to wait before trying again.
    async fn hold(&self, offset: &mut Option<Option<i64>>) -> Result<(), Duration> {
        let store = self.engine.store();
        if offset.is_some() {
            return match store
                .renew_telegram_poller(&self.holder, self.ttl_ms())
                .await
            {
                Ok(true) => Ok(()),
                Ok(false) => {
                    tracing::warn!("another instance reads the Telegram commands now");
                    *offset = None;
                    Err(Duration::ZERO)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not renew the telegram poller lease");
                    Err(BACKOFF_FIRST)
                }
            };
        }
        match store
            .take_telegram_poller(&self.holder, self.ttl_ms())
            .await
        {
            Ok(Some(tenure)) => {
                let fresh = tenure.next_offset > 0 && tenure.offset_age_ms < UPDATES_KEPT_MS;
                if tenure.next_offset > 0 && !fresh {
                    if let Err(e) = store.reset_telegram_offset(&self.holder).await {
                        tracing::warn!(error = %e, "could not reset the telegram offset");
                        return Err(BACKOFF_FIRST);
                    }
                }
                *offset = Some(fresh.then_some(tenure.next_offset));
                tracing::info!(
                    offset = tenure.next_offset,
                    "this instance reads the Telegram bot's commands (getUpdates)"
                );
                Ok(())
            }
            Ok(None) => {
                tracing::debug!("another instance reads the Telegram commands");
                Err(STANDBY_RETRY)
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not take the telegram poller lease");
                Err(STANDBY_RETRY)
            }
        }
    }

    async fn poll(&mut self) {
        // None: the lease is not held here; Some(None): held, from the earliest update.
        let mut offset: Option<Option<i64>> = None;
        let mut failures = 0u32;
        while !self.stop.is_cancelled() {
            if let Err(wait) = self.hold(&mut offset).await {
                if !self.pause(wait).await {
                    return;
                }
                continue;
            }
            let from = offset.flatten();
            let polled = tokio::select! {
                _ = self.stop.cancelled() => return,
                polled = self.api.get_updates(from, self.poll_timeout) => polled,
            };
            let wait = match polled {
                Ok(updates) => {
                    failures = 0;
                    offset = Some(self.take(updates, from).await);
                    continue;
                }
                Err(ApiError::Conflict(why)) => {
                    tracing::warn!(
                        reason = %why,
                        retry_secs = CONFLICT_RETRY.as_secs(),
                        "Telegram answered getUpdates with 409 Conflict: a webhook is set for this bot \
                         (remove it with deleteWebhook) or another program reads its updates with the \
                         same token. Commands are not read until that stops"
                    );
                    CONFLICT_RETRY
                }
                Err(ApiError::Unauthorized(why)) => {
                    tracing::error!(
                        reason = %why,
                        "Telegram refused the bot token (401): check [telegram] bot_token; commands \
                         and notifications cannot work with it"
                    );
                    UNAUTHORIZED_RETRY
                }
                Err(ApiError::Flood(wait)) => {
                    tracing::info!(
                        retry_after_secs = wait.as_secs(),
                        "telegram rate limit on getUpdates"
                    );
                    wait
                }
                Err(e) => {
                    failures += 1;
                    tracing::warn!(error = %e, attempt = failures, "telegram getUpdates failed; will retry");
                    backoff(failures)
                }
            };
            if !self.pause(wait).await {
                return;
            }
        }
    }

    /// Acts on each update it can claim, in order; answers the offset to poll from next.
    /// An update that cannot be claimed for a database error stops the batch there, so it
    /// comes again.
    async fn take(&mut self, updates: Vec<Update>, mut from: Option<i64>) -> Option<i64> {
        for update in updates {
            if self.stop.is_cancelled() {
                break;
            }
            let id = update.update_id;
            let claimed = self
                .engine
                .store()
                .claim_telegram_update(&self.holder, id, self.ttl_ms())
                .await;
            match claimed {
                Ok(true) => {
                    from = Some(from.map_or(id + 1, |f| f.max(id + 1)));
                    self.handle(update).await;
                }
                Ok(false) => {
                    from = Some(from.map_or(id + 1, |f| f.max(id + 1)));
                    tracing::debug!(
                        update_id = id,
                        "skipped a telegram update handled before (or the lease moved)"
                    );
                }
                Err(e) => {
                    tracing::warn!(error = %e, update_id = id, "could not record a telegram update; it will be read again");
                    break;
                }
            }
        }
        from
    }

    async fn handle(&mut self, update: Update) {
        if let Some(message) = update.message {
            self.on_message(message).await;
        } else if let Some(query) = update.callback_query {
            self.on_button(query).await;
        }
    }

    /// The user whose own chat this is, or `None` (logged, without any text).
    async fn user_of(&self, chat_id: i64, kind: &str, from: Option<i64>) -> Option<i64> {
        if kind != "private" || from != Some(chat_id) {
            tracing::warn!(
                chat_id,
                chat_type = kind,
                "telegram: ignored an update that is not from a user's private chat with the bot"
            );
            return None;
        }
        match self
            .engine
            .store()
            .users_with_telegram_id(&chat_id.to_string())
            .await
        {
            Ok(users) if users.len() == 1 => Some(users[0]),
            Ok(users) if users.is_empty() => {
                tracing::warn!(
                    chat_id,
                    "telegram: ignored an update from a chat that is no user's telegram_id"
                );
                None
            }
            Ok(users) => {
                tracing::warn!(
                    chat_id,
                    users = users.len(),
                    "telegram: ignored a command: several users have this chat as telegram_id"
                );
                self.send(
                    chat_id,
                    "This chat is the Telegram ID of several Signal Desk users: commands are answered only when it is one user's."
                        .to_string()
                        .into(),
                )
                .await;
                None
            }
            Err(e) => {
                tracing::warn!(chat_id, error = %e, "telegram: could not find the user of a chat; update dropped");
                None
            }
        }
    }

    async fn on_message(&mut self, message: Message) {
        let chat_id = message.chat.id;
        let from = message.from.as_ref().map(|u| u.id);
        let Some(user_id) = self.user_of(chat_id, &message.chat.kind, from).await else {
            return;
        };
        let Some(text) = message.text.as_deref() else {
            return;
        };
        let reply = match commands::parse(text) {
            Some(command) => {
                tracing::info!(user_id, command = ?command, "telegram command");
                match self.command(user_id, chat_id, command).await {
                    Ok(reply) => reply,
                    Err(e) => refusal(user_id, &e).into(),
                }
            }
            None => "Send /help for the list of commands.".to_string().into(),
        };
        self.send(chat_id, reply).await;
    }

    async fn command(
        &mut self,
        user_id: i64,
        chat_id: i64,
        command: Command,
    ) -> Result<Reply, EngineError> {
        let engine = &self.engine;
        let store = engine.store();
        Ok(match command {
            Command::Help => commands::help_text().into(),
            Command::Unknown(what) => commands::unknown_text(&what).into(),
            Command::Status => {
                let status = engine.supervisor().status(user_id).await?;
                let trades = store.active_trades(user_id).await?;
                // The venue out of reach still leaves the rest of the status worth reading.
                let (positions, unread) = match engine.positions(user_id).await {
                    Ok(positions) => (positions, None),
                    Err(e) => (Vec::new(), Some(e)),
                };
                let open: Vec<OpenTrade> = trades
                    .into_iter()
                    .filter(|t| t.status == TradeStatus::Open)
                    .map(|trade| OpenTrade {
                        position: positions
                            .iter()
                            .find(|p| p.symbol == trade.symbol && p.side == trade.side)
                            .cloned(),
                        trade,
                    })
                    .collect();
                let mut text = commands::status_text(&status, &open);
                if let Some(e) = unread {
                    text.push_str(&format!("\nThe venue's positions could not be read: {e}"));
                }
                text.into()
            }
            Command::Balance => {
                let venue = engine.venue_of(user_id).await?;
                let wallet = engine.wallet(user_id).await?;
                commands::balance_text(venue.label(), &wallet).into()
            }
            Command::Trades => {
                let query = TradeQuery {
                    limit: RECENT_TRADES,
                    ..TradeQuery::default()
                };
                let (trades, _) = store.trades_page(user_id, &query).await?;
                let zone = zone_of(engine, user_id).await?;
                commands::trades_text(&trades, zone).into()
            }
            Command::Profit(period) => profit(engine, user_id, period).await?.into(),
            Command::StopBot | Command::StartBot => {
                let action = match command {
                    Command::StartBot => BotControl::StartBot,
                    _ => BotControl::StopBot,
                };
                let status = engine
                    .control(user_id, action, &crate::audit_log::telegram_origin())
                    .await?;
                format!(
                    "{}.\nVenue: {}\nBot: {}\nSignals: {}",
                    action.done(),
                    status.venue.label(),
                    if status.is_bot_running {
                        "running"
                    } else {
                        "stopped"
                    },
                    if status.is_signals_fetching_active {
                        "active"
                    } else {
                        "inactive"
                    }
                )
                .into()
            }
            Command::CloseAll => {
                let open = store
                    .active_trades(user_id)
                    .await?
                    .iter()
                    .filter(|t| t.status == TradeStatus::Open)
                    .count();
                if open == 0 {
                    return Ok("No open positions: nothing to close.".to_string().into());
                }
                let nonce = format!("{:016x}", rand::random::<u64>());
                self.pending.retain(|_, p| p.expires > Instant::now());
                self.pending.insert(
                    user_id,
                    Pending {
                        nonce: nonce.clone(),
                        chat_id,
                        expires: Instant::now() + self.confirm_for,
                    },
                );
                Reply {
                    text: commands::close_all_question(open, self.confirm_for.as_secs()),
                    buttons: vec![
                        Button {
                            text: format!("Close all {open}"),
                            data: format!("closeall:{nonce}"),
                        },
                        Button {
                            text: "Cancel".into(),
                            data: format!("cancel:{nonce}"),
                        },
                    ],
                }
            }
        })
    }

    /// A press of one of our buttons: only `/closeall`'s confirmation and its cancel exist.
    async fn on_button(&mut self, query: CallbackQuery) {
        let Some(message) = &query.message else {
            tracing::warn!("telegram: ignored a button press without its message");
            return;
        };
        let (chat_id, message_id) = (message.chat.id, message.message_id);
        let Some(user_id) = self
            .user_of(chat_id, &message.chat.kind, Some(query.from.id))
            .await
        else {
            return;
        };
        let data = query.data.as_deref().unwrap_or_default();
        let (verb, nonce) = data.split_once(':').unwrap_or((data, ""));
        let live = self.pending.get(&user_id).is_some_and(|p| {
            !nonce.is_empty()
                && p.nonce == nonce
                && p.chat_id == chat_id
                && p.expires > Instant::now()
        });
        let (notice, text) = match (live, verb) {
            (true, "closeall") => {
                self.pending.remove(&user_id);
                self.answer(&query.id, "Closing every open position…").await;
                tracing::info!(user_id, "telegram: close all confirmed");
                match self.engine.supervisor().close_all(user_id).await {
                    Ok(closed) => {
                        self.engine
                            .record_audit(
                                Some(user_id),
                                AuditAction::PositionsClosedAll,
                                serde_json::json!({ "count": closed }),
                                &crate::audit_log::telegram_origin(),
                            )
                            .await;
                        (None, format!("Closed {closed} positions at market."))
                    }
                    Err(e) => (None, refusal(user_id, &e)),
                }
            }
            (true, "cancel") => {
                self.pending.remove(&user_id);
                (
                    Some("Cancelled"),
                    "Cancelled: nothing was closed.".to_string(),
                )
            }
            _ => {
                tracing::info!(
                    user_id,
                    "telegram: a close-all confirmation pressed after it expired"
                );
                (
                    Some("This confirmation has expired: nothing was closed."),
                    "Expired: nothing was closed. Send /closeall again.".to_string(),
                )
            }
        };
        if let Some(notice) = notice {
            self.answer(&query.id, notice).await;
        }
        if let Err(e) = self.api.edit_message_text(chat_id, message_id, &text).await {
            tracing::info!(error = %e, "telegram: could not edit the confirmation; sending the result");
            self.send(chat_id, text.into()).await;
        }
    }

    async fn answer(&self, query_id: &str, text: &str) {
        if let Err(e) = self.api.answer_callback_query(query_id, text).await {
            tracing::info!(error = %e, "telegram: answerCallbackQuery failed");
        }
    }

    /// Sends an answer, waiting out 429s and retrying network errors a few times.
    async fn send(&self, chat_id: i64, reply: Reply) {
        for attempt in 1..=REPLY_TRIES {
            let sent = tokio::select! {
                _ = self.stop.cancelled() => return,
                sent = self.api.send_message(chat_id, &reply.text, &reply.buttons) => sent,
            };
            let wait = match sent {
                Ok(_) => return,
                Err(ApiError::Flood(wait)) => wait,
                Err(ApiError::Transient(why)) => {
                    tracing::info!(chat_id, error = %why, attempt, "telegram: an answer failed; will retry");
                    backoff(attempt)
                }
                Err(e) => {
                    tracing::warn!(chat_id, error = %e, "telegram refused an answer; dropped it");
                    return;
                }
            };
            if attempt == REPLY_TRIES || !self.pause(wait).await {
                break;
            }
        }
        tracing::warn!(
            chat_id,
            "telegram: dropped an answer after {REPLY_TRIES} tries"
        );
    }
}

async fn zone_of(engine: &Engine, user_id: i64) -> Result<chrono_tz::Tz, EngineError> {
    let now = Utc::now().timestamp_millis();
    Ok(engine
        .store()
        .settings_or_default(user_id, now)
        .await?
        .settings
        .timezone())
}

/// `/profit`: the statistics of the /stats page for the period (the same rollup and the same
/// period rules), in the user's zone.
async fn profit(
    engine: &Engine,
    user_id: i64,
    period: ProfitPeriod,
) -> Result<String, EngineError> {
    let zone = zone_of(engine, user_id).await?;
    let now = Utc::now();
    let range = period.period(now, zone);
    let venue = engine.venue_of(user_id).await?;
    let stats = engine
        .store()
        .closed_rollup(user_id, venue)
        .await?
        .period_stats(range, now, zone);
    let (from_ms, _) = range.range(now, zone);
    let since = chrono::DateTime::from_timestamp_millis(from_ms)
        .map(|t| t.with_timezone(&zone).date_naive())
        .unwrap_or_else(|| now.with_timezone(&zone).date_naive());
    let pnl = rust_decimal::Decimal::try_from(stats.total_pnl).unwrap_or_default();
    Ok(commands::profit_text(&Profit {
        period,
        since,
        zone: zone.name().to_string(),
        trades: stats.total_trades,
        wins: stats.win_trades,
        pnl,
    }))
}

/// What the trader reads when a command was refused: the same sentence the app shows, except
/// for internal failures, which are logged and named only broadly.
fn refusal(user_id: i64, error: &EngineError) -> String {
    match error {
        EngineError::Store(_) | EngineError::Config(_) => {
            tracing::warn!(user_id, error = %error, "telegram command failed");
            "The command failed on the server (see its log); try again in a moment.".to_string()
        }
        e => format!("Refused: {e}"),
    }
}

/// 1 s, 2 s, 4 s, … up to 60 s for the `failures`-th failure in a row.
fn backoff(failures: u32) -> Duration {
    doubling_backoff(failures, BACKOFF_FIRST, BACKOFF_MAX)
}
