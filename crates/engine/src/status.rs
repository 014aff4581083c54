//! What the engine reports about a user's bot: its status, the venue it trades on, and
//! whether each worker runs in this process.

use chrono::{DateTime, Utc};
use serde::Serialize;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::settings::{BotMode, BotSettings};
use signaldesk_core::trading::{entry_forbidden, EntryForbidden};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkerState {
    Running,
    Stopped,
    /// Runs on another instance that stopped renewing its lease: it may still be running
    /// for a few seconds (until it stops itself) and another instance takes the bot over
    /// once the lease runs out.
    Unknown,
}

/// The instance that runs the bot's workers (several instances on one PostgreSQL).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RunsOn {
    /// Its instance id.
    pub instance: String,
    /// Whether it is the instance that answered this request.
    pub here: bool,
    /// False when it has not renewed its lease for two rounds (4 s): it is probably gone.
    pub answering: bool,
    /// How long ago it last renewed its lease, in ms.
    pub renewed_ms_ago: i64,
    /// When not answering: the most another instance waits before taking the bot over, in
    /// ms (its lease runs out, then the next round).
    pub taken_over_within_ms: Option<i64>,
}

/// What `/api/bot/status/` answers (DESIGN.md section 5, Bot control).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct BotStatus {
    pub is_bot_running: bool,
    pub is_signals_fetching_active: bool,
    #[schema(value_type = signaldesk_core::settings::BotMode)]
    pub bot_mode: String,
    pub open_trades: i64,
    pub active_chains: i64,
    /// Where the bot trades: the user's active key's account, or paper.
    #[schema(value_type = signaldesk_core::account::VenueView)]
    pub venue: AccountVenue,
    /// RFC 3339 time the trading worker was started, while it runs.
    pub started_at: Option<String>,
    /// Whether the workers run: here, or on the instance in `runs_on` (the flags say what
    /// should run).
    pub signal_worker: WorkerState,
    pub trading_worker: WorkerState,
    /// Several instances on one database: the instance holding the bot's lease while it
    /// holds it; null when none does, and always with one process on its database.
    pub runs_on: Option<RunsOn>,
    /// Why the bot, switched on, opens no new position now; null when it would, and while
    /// it is stopped (issue 33: the Bot Status card says it in one line).
    pub not_trading: Option<NotTrading>,
}

/// What keeps a running bot from opening positions, first that applies in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotTradingReason {
    /// The trading worker is not running although the bot is on (it stopped on an error).
    WorkerStopped,
    /// A write to the books failed: no entry until they are reconciled with the venue
    /// (docs/trading.md, "The books").
    OutOfSync,
    /// Signal fetching is off: no signal reaches the bot.
    SignalsInactive,
    /// A circuit breaker is tripped (docs/alerts.md).
    CircuitBreaker,
    /// A forbidden day or hour in the user's zone.
    ForbiddenWindow,
    /// As many positions (or martingale chains) are open as the settings allow.
    LimitReached,
}

/// A [`NotTradingReason`] with the sentence that explains it (English) and the facts that
/// sentence is made of, for a client that says it in another language.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct NotTrading {
    pub reason: NotTradingReason,
    pub detail: String,
    pub facts: NotTradingFacts,
}

/// What a `NotTrading` detail says, as values.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotTradingFacts {
    /// The reason says it all (`worker_stopped`, `signals_inactive`).
    None,
    /// The server's own words for the cause (`out_of_sync`: the failed write; `circuit_breaker`:
    /// the breaker's alert), in English.
    Cause { text: String },
    /// A forbidden weekday (0 = Monday) in the user's zone.
    ForbiddenDay { weekday: u8, timezone: String },
    /// The local time `HH:MM` inside the forbidden hours `[start, end)`.
    ForbiddenHours {
        local_time: String,
        start: u8,
        end: u8,
        timezone: String,
    },
    /// `open` positions against the `max_trades` setting (classic mode).
    OpenPositions { open: i64, max: i64 },
    /// `open` chains against `martingale_max_active_chains` (martingale mode).
    OpenChains { open: i64, max: i64 },
}

impl From<EntryForbidden> for NotTradingFacts {
    fn from(why: EntryForbidden) -> NotTradingFacts {
        match why {
            EntryForbidden::Day { weekday, timezone } => NotTradingFacts::ForbiddenDay {
                weekday: weekday.num_days_from_monday() as u8,
                timezone,
            },
            EntryForbidden::Hours {
                local_time,
                start,
                end,
                timezone,
            } => NotTradingFacts::ForbiddenHours {
                local_time,
                start,
                end,
                timezone,
            },
        }
    }
}

/// What [`not_trading`] reads.
pub struct TradingConditions<'a> {
    pub is_bot_running: bool,
    pub is_signals_fetching_active: bool,
    pub trading_worker: WorkerState,
    pub settings: &'a BotSettings,
    pub open_trades: i64,
    pub active_chains: i64,
    /// The open circuit breaker alert's detail, if one is open.
    pub circuit_breaker: Option<String>,
    /// Why this instance's trading worker waits for a reconciliation, if it does.
    pub out_of_sync: Option<String>,
    pub now: DateTime<Utc>,
}

/// Why a running bot would open no position now, if something stops it. The same checks the
/// trading worker makes before an entry (`TradingWorker::try_entry`), read from the stored
/// state so any instance answers alike.
pub fn not_trading(c: &TradingConditions<'_>) -> Option<NotTrading> {
    let because = |reason, detail: String, facts| {
        Some(NotTrading {
            reason,
            detail,
            facts,
        })
    };
    let cause = |text: &String| NotTradingFacts::Cause { text: text.clone() };
    if !c.is_bot_running {
        return None;
    }
    if c.trading_worker == WorkerState::Stopped {
        return because(
            NotTradingReason::WorkerStopped,
            "the trading worker is not running: the logs say why".into(),
            NotTradingFacts::None,
        );
    }
    if let Some(why) = &c.out_of_sync {
        return because(
            NotTradingReason::OutOfSync,
            format!("the books wait for a reconciliation with the venue: {why}"),
            cause(why),
        );
    }
    if !c.is_signals_fetching_active {
        return because(
            NotTradingReason::SignalsInactive,
            "signals are off, so no signal reaches the bot".into(),
            NotTradingFacts::None,
        );
    }
    if let Some(why) = &c.circuit_breaker {
        return because(
            NotTradingReason::CircuitBreaker,
            format!("circuit breaker: {why}"),
            cause(why),
        );
    }
    if let Some(why) = entry_forbidden(c.settings, c.now) {
        return because(
            NotTradingReason::ForbiddenWindow,
            why.to_string(),
            why.into(),
        );
    }
    match c.settings.bot_mode {
        BotMode::Classic if c.open_trades >= i64::from(c.settings.max_trades) => because(
            NotTradingReason::LimitReached,
            format!(
                "{} positions are open (max_trades {})",
                c.open_trades, c.settings.max_trades
            ),
            NotTradingFacts::OpenPositions {
                open: c.open_trades,
                max: i64::from(c.settings.max_trades),
            },
        ),
        BotMode::Martingale
            if c.active_chains >= i64::from(c.settings.martingale_max_active_chains) =>
        {
            because(
                NotTradingReason::LimitReached,
                format!(
                    "{} martingale chains are open (martingale_max_active_chains {})",
                    c.active_chains, c.settings.martingale_max_active_chains
                ),
                NotTradingFacts::OpenChains {
                    open: c.active_chains,
                    max: i64::from(c.settings.martingale_max_active_chains),
                },
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn conditions(settings: &BotSettings) -> TradingConditions<'_> {
        TradingConditions {
            is_bot_running: true,
            is_signals_fetching_active: true,
            trading_worker: WorkerState::Running,
            settings,
            open_trades: 0,
            active_chains: 0,
            circuit_breaker: None,
            out_of_sync: None,
            // A Wednesday, 12:00 UTC (15:00 in Moscow).
            now: Utc.with_ymd_and_hms(2026, 11, 25, 12, 0, 0).unwrap(),
        }
    }

    fn reason(c: &TradingConditions<'_>) -> Option<NotTradingReason> {
        not_trading(c).map(|n| n.reason)
    }

    #[test]
    fn a_stopped_bot_or_one_free_to_trade_has_no_reason() {
        let settings = BotSettings::default();
        assert_eq!(reason(&conditions(&settings)), None);
        let stopped = TradingConditions {
            is_bot_running: false,
            is_signals_fetching_active: false,
            ..conditions(&settings)
        };
        assert_eq!(reason(&stopped), None);
    }

    #[test]
    fn each_reason_in_its_order() {
        let settings = BotSettings {
            forbidden_days_enabled: true,
            forbidden_days: vec![2],
            max_trades: 2,
            ..BotSettings::default()
        };
        let mut c = conditions(&settings);
        c.open_trades = 2;
        c.circuit_breaker = Some("3 losses in a row".into());
        c.is_signals_fetching_active = false;
        c.out_of_sync = Some("trade #7 could not be stored".into());
        c.trading_worker = WorkerState::Stopped;
        assert_eq!(reason(&c), Some(NotTradingReason::WorkerStopped));
        c.trading_worker = WorkerState::Running;
        let books = not_trading(&c).unwrap();
        assert_eq!(books.reason, NotTradingReason::OutOfSync);
        assert_eq!(
            books.detail,
            "the books wait for a reconciliation with the venue: trade #7 could not be stored"
        );
        c.out_of_sync = None;
        assert_eq!(reason(&c), Some(NotTradingReason::SignalsInactive));
        c.is_signals_fetching_active = true;
        let breaker = not_trading(&c).unwrap();
        assert_eq!(breaker.reason, NotTradingReason::CircuitBreaker);
        assert_eq!(breaker.detail, "circuit breaker: 3 losses in a row");
        assert_eq!(
            breaker.facts,
            NotTradingFacts::Cause {
                text: "3 losses in a row".into()
            }
        );
        c.circuit_breaker = None;
        let window = not_trading(&c).unwrap();
        assert_eq!(window.reason, NotTradingReason::ForbiddenWindow);
        assert_eq!(window.detail, "Wed is a forbidden day in Europe/Moscow");
        assert_eq!(
            window.facts,
            NotTradingFacts::ForbiddenDay {
                weekday: 2,
                timezone: "Europe/Moscow".into()
            }
        );
        let mut open_days = settings.clone();
        open_days.forbidden_days_enabled = false;
        let c = TradingConditions {
            settings: &open_days,
            ..c
        };
        let limit = not_trading(&c).unwrap();
        assert_eq!(limit.reason, NotTradingReason::LimitReached);
        assert_eq!(limit.detail, "2 positions are open (max_trades 2)");
        assert_eq!(
            limit.facts,
            NotTradingFacts::OpenPositions { open: 2, max: 2 }
        );
        let c = TradingConditions {
            open_trades: 1,
            ..c
        };
        assert_eq!(reason(&c), None);
    }

    #[test]
    fn martingale_counts_chains_not_positions() {
        let settings = BotSettings {
            bot_mode: BotMode::Martingale,
            martingale_max_active_chains: 1,
            ..BotSettings::default()
        };
        let mut c = conditions(&settings);
        c.open_trades = 5;
        assert_eq!(reason(&c), None);
        c.active_chains = 1;
        let chains = not_trading(&c).unwrap();
        assert_eq!(
            chains.detail,
            "1 martingale chains are open (martingale_max_active_chains 1)"
        );
        assert_eq!(
            chains.facts,
            NotTradingFacts::OpenChains { open: 1, max: 1 }
        );
    }

    #[test]
    fn forbidden_hours_come_with_their_facts_for_another_language() {
        let settings = BotSettings {
            forbidden_hours_enabled: true,
            forbidden_hours: vec![[12, 18]],
            ..BotSettings::default()
        };
        // Wednesday 12:00 UTC is 15:00 in Moscow.
        let why = not_trading(&conditions(&settings)).unwrap();
        assert_eq!(
            serde_json::to_value(&why).unwrap(),
            serde_json::json!({
                "reason": "forbidden_window",
                "detail": "15:00 in Europe/Moscow is inside the forbidden hours 12:00-18:00",
                "facts": {"kind": "forbidden_hours", "local_time": "15:00", "start": 12,
                          "end": 18, "timezone": "Europe/Moscow"}
            })
        );
    }
}
