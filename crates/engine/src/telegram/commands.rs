//! The Telegram commands (docs/telegram.md): what a message asks for, and the plain-text
//! answers, as pure functions of figures read elsewhere ([`super::polling`] reads them).
//! Money shows two decimals with the sign of a gain or loss; prices and sizes every digit
//! they have.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use rust_decimal::{Decimal, RoundingStrategy};
use signaldesk_core::market::PositionSide;
use signaldesk_core::stats::Period;
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::{Position, Wallet};

use crate::BotStatus;

/// What a message asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Status,
    Balance,
    Trades,
    Profit(ProfitPeriod),
    StopBot,
    StartBot,
    CloseAll,
    /// `/help`, and `/start` (what a Telegram client sends when a chat with a bot opens).
    Help,
    /// A command this bot does not know, or a known one with an argument it does not take:
    /// the answer says so, with the list.
    Unknown(String),
}

/// The period of `/profit`, in the user's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfitPeriod {
    /// Since 00:00 today.
    Today,
    /// The app's "Last 7 days": from 00:00 seven days ago.
    Week,
    /// The app's "This month": from the 1st, 00:00.
    Month,
}

impl ProfitPeriod {
    /// The statistics period it is (the same as on the /stats page), at `now` in `tz`.
    pub fn period(self, now: DateTime<Utc>, tz: Tz) -> Period {
        match self {
            ProfitPeriod::Today => Period::Since(now.with_timezone(&tz).date_naive()),
            ProfitPeriod::Week => Period::Week,
            ProfitPeriod::Month => Period::Month,
        }
    }

    fn label(self) -> &'static str {
        match self {
            ProfitPeriod::Today => "today",
            ProfitPeriod::Week => "the last 7 days",
            ProfitPeriod::Month => "this month",
        }
    }
}

/// Reads a message's text: a command is its first word, starting with `/` (a client in a
/// group adds `@botname`, which is dropped); case does not matter. `None`: not a command.
pub fn parse(text: &str) -> Option<Command> {
    let mut words = text.split_whitespace();
    let first = words.next()?.strip_prefix('/')?;
    let name = first.split('@').next().unwrap_or_default().to_lowercase();
    let arg = words.next().map(str::to_lowercase);
    let extra = words.next().is_some();
    let plain = |command: Command| match (&arg, extra) {
        (None, false) => command,
        _ => Command::Unknown(text.trim().chars().take(40).collect()),
    };
    Some(match name.as_str() {
        "status" => plain(Command::Status),
        "balance" => plain(Command::Balance),
        "trades" => plain(Command::Trades),
        "stopbot" => plain(Command::StopBot),
        "startbot" => plain(Command::StartBot),
        "closeall" => plain(Command::CloseAll),
        "help" | "start" => Command::Help,
        "profit" => match (arg.as_deref(), extra) {
            (None | Some("today"), false) => Command::Profit(ProfitPeriod::Today),
            (Some("week"), false) => Command::Profit(ProfitPeriod::Week),
            (Some("month"), false) => Command::Profit(ProfitPeriod::Month),
            _ => Command::Unknown(text.trim().chars().take(40).collect()),
        },
        _ => Command::Unknown(format!("/{}", name.chars().take(32).collect::<String>())),
    })
}

/// The list of commands.
pub fn help_text() -> String {
    "Signal Desk commands:\n\
     /status - venue, bot and signals, open trades with their pnl\n\
     /balance - equity, available balance and margin\n\
     /trades - the last 10 trades\n\
     /profit [today|week|month] - net pnl (after fees and funding) of the trades closed in the period, in your time zone\n\
     /stopbot - stop the trading worker (open positions keep their stops)\n\
     /startbot - start signal fetching if needed, then the trading worker\n\
     /closeall - close every open position at market, after you confirm\n\
     /help - this list"
        .to_string()
}

pub fn unknown_text(what: &str) -> String {
    format!("Unknown command: {what}\n\n{}", help_text())
}

/// An open trade with what its position on the venue shows now, if found.
#[derive(Debug, Clone)]
pub struct OpenTrade {
    pub trade: Trade,
    pub position: Option<Position>,
}

/// `/status`.
pub fn status_text(status: &BotStatus, open: &[OpenTrade]) -> String {
    let bot = if status.is_bot_running {
        match &status.started_at {
            Some(at) => format!("running since {at}"),
            None => "running".to_string(),
        }
    } else {
        "stopped".to_string()
    };
    let mut text = format!(
        "Venue: {venue}\nBot: {bot} ({mode})\nSignals: {signals}\nOpen trades: {count}",
        venue = status.venue.label(),
        mode = status.bot_mode,
        signals = if status.is_signals_fetching_active {
            "active"
        } else {
            "inactive"
        },
        count = open.len(),
    );
    if status.active_chains > 0 {
        text.push_str(&format!(
            "\nMartingale chains open: {}",
            status.active_chains
        ));
    }
    let mut total = Decimal::ZERO;
    for o in open {
        let t = &o.trade;
        text.push_str(&format!(
            "\n#{id} {side} {symbol} {qty}",
            id = t.id,
            side = side_word(t.side),
            symbol = t.symbol,
            qty = exact(t.open_qty),
        ));
        if let Some(entry) = t.entry_price {
            text.push_str(&format!(" @ {}", exact(entry)));
        }
        match &o.position {
            Some(p) => {
                total += p.unrealized_pnl;
                text.push_str(&format!(
                    ", mark {}, pnl {} USDT",
                    exact(p.mark_price),
                    signed(p.unrealized_pnl)
                ));
            }
            None => text.push_str(", pnl unknown (no position on the venue)"),
        }
        if !t.pnl.is_zero() {
            text.push_str(&format!(", realised {} USDT", signed(t.pnl)));
        }
    }
    if !open.is_empty() {
        text.push_str(&format!("\nUnrealised pnl: {} USDT", signed(total)));
    }
    text
}

/// `/balance`.
pub fn balance_text(venue: &str, wallet: &Wallet) -> String {
    format!(
        "Balance ({venue})\nEquity: {} USDT\nAvailable: {} USDT\nMargin in positions: {} USDT\nUnrealised pnl: {} USDT",
        money(wallet.equity),
        money(wallet.available_balance),
        money(wallet.position_margin),
        signed(wallet.unrealized_pnl),
    )
}

/// `/trades`: the latest first.
pub fn trades_text(trades: &[Trade], tz: Tz) -> String {
    if trades.is_empty() {
        return "No trades yet.".to_string();
    }
    let mut text = format!("Last {} trades:", trades.len());
    for t in trades {
        let when = t.closed_at.or(t.opened_at).unwrap_or(t.created_at);
        let when = DateTime::from_timestamp_millis(when)
            .map(|at| at.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default();
        let state = match t.status {
            TradeStatus::Closed => {
                let reason = t
                    .close_reason
                    .as_deref()
                    .map(|r| format!(" ({})", r.replace('_', " ")))
                    .unwrap_or_default();
                format!("closed{reason}, pnl {} USDT", signed(t.pnl))
            }
            TradeStatus::Open => "open".to_string(),
            TradeStatus::Pending => "pending".to_string(),
            TradeStatus::Cancelled => "cancelled".to_string(),
        };
        text.push_str(&format!(
            "\n{when} #{id} {side} {symbol}: {state}",
            id = t.id,
            side = side_word(t.side),
            symbol = t.symbol,
        ));
    }
    text
}

/// The figures of `/profit`.
#[derive(Debug, Clone, PartialEq)]
pub struct Profit {
    pub period: ProfitPeriod,
    /// The first day of the period, in the user's zone.
    pub since: NaiveDate,
    pub zone: String,
    pub trades: u64,
    pub wins: u64,
    /// Net of fees and funding.
    pub pnl: Decimal,
}

/// `/profit`.
pub fn profit_text(p: &Profit) -> String {
    let mut text = format!(
        "Profit {label} (since {since}, {zone})\nClosed trades: {trades} (wins {wins}, losses {losses})\nNet pnl: {pnl} USDT (after fees and funding)",
        label = p.period.label(),
        since = p.since.format("%Y-%m-%d"),
        zone = p.zone,
        trades = p.trades,
        wins = p.wins,
        losses = p.trades.saturating_sub(p.wins),
        pnl = signed(p.pnl),
    );
    if p.trades > 0 {
        let rate = Decimal::from(p.wins) * Decimal::ONE_HUNDRED / Decimal::from(p.trades);
        let rate = rate.round_dp_with_strategy(1, RoundingStrategy::MidpointAwayFromZero);
        text.push_str(&format!("\nWin rate: {rate:.1}%"));
    }
    text
}

/// The question `/closeall` asks, with how long the button holds.
pub fn close_all_question(open: usize, valid_secs: u64) -> String {
    format!(
        "Close all {open} open positions at market? Press the button within {valid_secs} s to confirm; nothing is closed otherwise."
    )
}

fn side_word(side: PositionSide) -> &'static str {
    match side {
        PositionSide::Long => "LONG",
        PositionSide::Short => "SHORT",
    }
}

fn exact(value: Decimal) -> String {
    value.normalize().to_string()
}

/// Two decimals, halves away from zero, never `-0.00`; with `+` on gains when `sign`.
fn amount(value: Decimal, sign: bool) -> String {
    let rounded = value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    match rounded {
        r if r.is_zero() => "0.00".to_string(),
        r if sign && r > Decimal::ZERO => format!("+{r:.2}"),
        r => format!("{r:.2}"),
    }
}

fn money(value: Decimal) -> String {
    amount(value, false)
}

fn signed(value: Decimal) -> String {
    amount(value, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn commands_are_read_as_a_client_sends_them() {
        assert_eq!(parse("/status"), Some(Command::Status));
        assert_eq!(parse("  /STATUS@SignalDeskBot "), Some(Command::Status));
        assert_eq!(parse("/profit"), Some(Command::Profit(ProfitPeriod::Today)));
        assert_eq!(
            parse("/profit Week"),
            Some(Command::Profit(ProfitPeriod::Week))
        );
        assert_eq!(
            parse("/profit month"),
            Some(Command::Profit(ProfitPeriod::Month))
        );
        assert!(matches!(parse("/profit year"), Some(Command::Unknown(_))));
        assert!(matches!(parse("/closeall now"), Some(Command::Unknown(_))));
        assert_eq!(parse("/start"), Some(Command::Help));
        assert_eq!(
            parse("/sell BTC"),
            Some(Command::Unknown("/sell".to_string()))
        );
        assert_eq!(parse("hello"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn profit_reads_as_a_sentence_with_its_period() {
        let text = profit_text(&Profit {
            period: ProfitPeriod::Week,
            since: NaiveDate::from_ymd_opt(2026, 3, 2).unwrap(),
            zone: "Europe/Moscow".into(),
            trades: 3,
            wins: 2,
            pnl: dec!(-1.005),
        });
        assert_eq!(
            text,
            "Profit the last 7 days (since 2026-03-02, Europe/Moscow)\n\
             Closed trades: 3 (wins 2, losses 1)\n\
             Net pnl: -1.01 USDT (after fees and funding)\nWin rate: 66.7%"
        );
    }

    #[test]
    fn amounts_have_two_decimals_and_gains_a_plus() {
        assert_eq!(signed(dec!(1.5)), "+1.50");
        assert_eq!(signed(dec!(-0.001)), "0.00");
        assert_eq!(money(dec!(10000)), "10000.00");
        assert_eq!(exact(dec!(0.0100)), "0.01");
    }

    #[test]
    fn the_help_names_every_command() {
        let help = help_text();
        for command in [
            "/status",
            "/balance",
            "/trades",
            "/profit",
            "/stopbot",
            "/startbot",
            "/closeall",
            "/help",
        ] {
            assert!(help.contains(command), "{command}");
        }
    }
}
