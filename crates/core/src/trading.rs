//! The trading rulebook (DESIGN.md section 5) as pure functions: when a signal opens a
//! position, how big it is, where its stop loss, take-profit ladder and trailing stop sit,
//! and when the clock forbids new entries. The engine calls these at each decision and
//! performs what they say; nothing here does I/O.

use std::fmt;

use chrono::{DateTime, Datelike, Timelike, Utc};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::market::{Instrument, PositionSide};
use crate::settings::BotSettings;
use crate::signal::TradeSignal;

const HUNDRED: Decimal = Decimal::ONE_HUNDRED;

/// Whether `new` is a transition into a strong signal: the only moment an entry is made.
pub fn is_entry_transition(previous: Option<TradeSignal>, new: TradeSignal) -> bool {
    new != TradeSignal::Neutral && previous.is_some_and(|p| p != new)
}

/// The side a strong signal opens (reverse mode trades against it); none for NEUTRAL.
pub fn entry_side(signal: TradeSignal, reverse: bool) -> Option<PositionSide> {
    let side = match signal {
        TradeSignal::StrongBuy => PositionSide::Long,
        TradeSignal::StrongSell => PositionSide::Short,
        TradeSignal::Neutral => return None,
    };
    Some(match (side, reverse) {
        (s, false) => s,
        (PositionSide::Long, true) => PositionSide::Short,
        (PositionSide::Short, true) => PositionSide::Long,
    })
}

/// What the account looks like when an entry is considered.
#[derive(Debug, Clone)]
pub struct AccountView {
    /// Open positions (trades) of the user.
    pub open_trades: usize,
    /// Margin held by the open trades, in USDT.
    pub margin_in_use: Decimal,
    /// Whether a position on the symbol is already open.
    pub symbol_has_position: bool,
    /// What the wallet can still commit.
    pub available_balance: Decimal,
    /// The worst a market order may fill against the last price on this venue, as a
    /// fraction (paper: its slippage; Bybit: its market-order price limit).
    pub max_slippage: Decimal,
}

/// Why a signal opens nothing. Each reads as the log line the trader sees.
#[derive(Debug, Clone, PartialEq)]
pub enum Skip {
    PositionOpen,
    MaxTrades {
        max: u32,
    },
    MaxTotal {
        in_use: Decimal,
        margin: Decimal,
        max: Decimal,
    },
    LeverageAboveInstrument {
        leverage: u32,
        max: u32,
    },
    BelowMinimum {
        qty: Decimal,
        notional: Decimal,
        min_qty: Decimal,
        min_notional: Decimal,
    },
    InsufficientBalance {
        needed: Decimal,
        available: Decimal,
    },
    NoPrice,
    /// The clock forbids entries (a forbidden hour or weekday): why.
    ForbiddenWindow(String),
    /// A circuit breaker stops entries: why.
    CircuitBreaker(String),
    /// The symbol is not in the Symbols setting.
    SymbolNotChosen(String),
    /// The martingale limits: a chain on the symbol, or as many chains as allowed, open.
    MartingaleLimit(String),
    Forbidden(String),
}

/// What kind of reason a [`Skip`] is, so skips can be counted by it (a backtest that traded
/// nothing says which kinds stopped it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipKind {
    PositionOpen,
    MaxTrades,
    MaxTotal,
    LeverageAboveInstrument,
    BelowMinimum,
    InsufficientBalance,
    NoPrice,
    ForbiddenWindow,
    CircuitBreaker,
    SymbolNotChosen,
    MartingaleLimit,
    Other,
}

impl SkipKind {
    /// Its name on the wire (`below_minimum`, ...).
    pub fn code(self) -> &'static str {
        match self {
            SkipKind::PositionOpen => "position_open",
            SkipKind::MaxTrades => "max_trades",
            SkipKind::MaxTotal => "max_total",
            SkipKind::LeverageAboveInstrument => "leverage_above_instrument",
            SkipKind::BelowMinimum => "below_minimum",
            SkipKind::InsufficientBalance => "insufficient_balance",
            SkipKind::NoPrice => "no_price",
            SkipKind::ForbiddenWindow => "forbidden_window",
            SkipKind::CircuitBreaker => "circuit_breaker",
            SkipKind::SymbolNotChosen => "symbol_not_chosen",
            SkipKind::MartingaleLimit => "martingale_limit",
            SkipKind::Other => "other",
        }
    }

    /// How a trader reads it, as a short phrase ("order below the instrument's minimum").
    pub fn label(self) -> &'static str {
        match self {
            SkipKind::PositionOpen => "a position already open on the symbol",
            SkipKind::MaxTrades => "Max Trades reached",
            SkipKind::MaxTotal => "Max Total USDT reached",
            SkipKind::LeverageAboveInstrument => "leverage above the instrument's maximum",
            SkipKind::BelowMinimum => "order below the instrument's minimum",
            SkipKind::InsufficientBalance => "balance too small",
            SkipKind::NoPrice => "no price known",
            SkipKind::ForbiddenWindow => "forbidden hour or day",
            SkipKind::CircuitBreaker => "circuit breaker",
            SkipKind::SymbolNotChosen => "symbol not in the Symbols setting",
            SkipKind::MartingaleLimit => "martingale chain limits",
            SkipKind::Other => "other reasons",
        }
    }
}

impl Skip {
    pub fn kind(&self) -> SkipKind {
        match self {
            Skip::PositionOpen => SkipKind::PositionOpen,
            Skip::MaxTrades { .. } => SkipKind::MaxTrades,
            Skip::MaxTotal { .. } => SkipKind::MaxTotal,
            Skip::LeverageAboveInstrument { .. } => SkipKind::LeverageAboveInstrument,
            Skip::BelowMinimum { .. } => SkipKind::BelowMinimum,
            Skip::InsufficientBalance { .. } => SkipKind::InsufficientBalance,
            Skip::NoPrice => SkipKind::NoPrice,
            Skip::ForbiddenWindow(_) => SkipKind::ForbiddenWindow,
            Skip::CircuitBreaker(_) => SkipKind::CircuitBreaker,
            Skip::SymbolNotChosen(_) => SkipKind::SymbolNotChosen,
            Skip::MartingaleLimit(_) => SkipKind::MartingaleLimit,
            Skip::Forbidden(_) => SkipKind::Other,
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::PositionOpen => write!(f, "a position on this symbol is already open"),
            Skip::MaxTrades { max } => write!(f, "{max} trades are open already (max_trades)"),
            Skip::MaxTotal {
                in_use,
                margin,
                max,
            } => write!(
                f,
                "margin in use {in_use} + {margin} USDT would exceed max_total_usdt {max}"
            ),
            Skip::LeverageAboveInstrument { leverage, max } => {
                write!(
                    f,
                    "leverage {leverage}x is above the instrument's maximum {max}x"
                )
            }
            Skip::BelowMinimum {
                qty,
                notional,
                min_qty,
                min_notional,
            } => write!(
                f,
                "quantity {qty} ({notional} USDT) is below the instrument's minimum \
                 ({min_qty}, {min_notional} USDT)"
            ),
            Skip::InsufficientBalance { needed, available } => write!(
                f,
                "the margin {needed} USDT is more than the available balance {available} USDT"
            ),
            Skip::NoPrice => write!(f, "no price is known for the symbol"),
            Skip::ForbiddenWindow(why)
            | Skip::CircuitBreaker(why)
            | Skip::SymbolNotChosen(why)
            | Skip::MartingaleLimit(why)
            | Skip::Forbidden(why) => write!(f, "{why}"),
        }
    }
}

/// A position to open.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryPlan {
    pub side: PositionSide,
    /// Rounded down to the instrument's step.
    pub qty: Decimal,
    pub leverage: u32,
    /// The margin asked for (the filled margin is `qty x fill price / leverage`).
    pub margin: Decimal,
    /// `qty x price` at the price the plan was made with.
    pub notional: Decimal,
}

/// Sizes an entry of `margin` USDT at `price`, or says why it is skipped: one position per
/// symbol, `max_trades`, `max_total_usdt`, the instrument's leverage and minimums, and the
/// wallet. The limits apply to martingale steps as to classic trades.
pub fn plan_entry(
    settings: &BotSettings,
    instrument: &Instrument,
    account: &AccountView,
    side: PositionSide,
    margin: Decimal,
    price: Decimal,
) -> Result<EntryPlan, Skip> {
    if account.symbol_has_position {
        return Err(Skip::PositionOpen);
    }
    if account.open_trades >= settings.max_trades as usize {
        return Err(Skip::MaxTrades {
            max: settings.max_trades,
        });
    }
    if account.margin_in_use.saturating_add(margin) > settings.max_total_usdt {
        return Err(Skip::MaxTotal {
            in_use: account.margin_in_use,
            margin,
            max: settings.max_total_usdt,
        });
    }
    if settings.leverage > instrument.max_leverage {
        return Err(Skip::LeverageAboveInstrument {
            leverage: settings.leverage,
            max: instrument.max_leverage,
        });
    }
    if price <= Decimal::ZERO {
        return Err(Skip::NoPrice);
    }
    let leverage = Decimal::from(settings.leverage);
    // Sized at the worst fill the venue allows, so the margin the fill takes (fill price x
    // quantity / leverage) never exceeds `margin`, whichever way the price slips.
    let worst_fill =
        price.saturating_mul(Decimal::ONE.saturating_add(account.max_slippage.max(Decimal::ZERO)));
    let qty = instrument.qty_for_notional(margin.saturating_mul(leverage), worst_fill);
    let notional = qty.saturating_mul(price);
    if !instrument.meets_minimums(qty, price) {
        return Err(Skip::BelowMinimum {
            qty,
            notional,
            min_qty: instrument.min_qty,
            min_notional: instrument.min_notional,
        });
    }
    if margin > account.available_balance {
        return Err(Skip::InsufficientBalance {
            needed: margin,
            available: account.available_balance,
        });
    }
    Ok(EntryPlan {
        side,
        qty,
        leverage: settings.leverage,
        margin,
        notional,
    })
}

/// `pct` percent of a price move from `entry`, in the direction `sign` (+1 or -1).
fn moved(entry: Decimal, pct: Decimal, sign: Decimal) -> Decimal {
    let factor = Decimal::ONE.saturating_add(sign.saturating_mul(pct) / HUNDRED);
    entry.saturating_mul(factor)
}

/// The stop loss: `initial_stop_loss_pct` against the position, rounded to the tick on the
/// side that keeps the loss within the setting (long: up, short: down).
pub fn stop_loss_price(
    side: PositionSide,
    entry: Decimal,
    pct: Decimal,
    instrument: &Instrument,
) -> Decimal {
    let raw = moved(entry, pct, -side.sign());
    match side {
        PositionSide::Long => instrument.round_price_up(raw),
        PositionSide::Short => instrument.round_price_down(raw),
    }
}

/// The `step`-th take profit (0 is the first): `take_profit_first_pct` from the entry, then
/// every further `take_profit_next_pct`. Rounded to the tick so the profit is at least the
/// setting (long: up, short: down).
pub fn take_profit_price(
    side: PositionSide,
    entry: Decimal,
    settings: &BotSettings,
    step: u32,
    instrument: &Instrument,
) -> Decimal {
    let pct = settings.take_profit_first_pct.saturating_add(
        settings
            .take_profit_next_pct
            .saturating_mul(Decimal::from(step)),
    );
    let raw = moved(entry, pct, side.sign());
    match side {
        PositionSide::Long => instrument.round_price_up(raw),
        PositionSide::Short => instrument.round_price_down(raw),
    }
}

/// Whether `price` has reached `level` in the position's favour.
pub fn reached_in_favour(side: PositionSide, price: Decimal, level: Decimal) -> bool {
    match side {
        PositionSide::Long => price >= level,
        PositionSide::Short => price <= level,
    }
}

/// How much a take profit closes: half of what is open, rounded down to the step; all of it
/// when that half would be below the instrument's minimum quantity.
pub fn take_profit_qty(open_qty: Decimal, instrument: &Instrument) -> Decimal {
    let half = instrument.round_qty_down(open_qty / Decimal::TWO);
    if half < instrument.min_qty || half <= Decimal::ZERO {
        open_qty
    } else {
        half
    }
}

/// A trailing stop as the venue takes it: it activates at `activation_price` and then
/// follows the best price at `distance` (a price difference).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrailingPlan {
    pub activation_price: Decimal,
    pub distance: Decimal,
}

/// The trailing stop of a position: active once the price has moved `trail_activation_pct`
/// in favour, `trail_step_pct` of the entry behind the best price (at least one tick).
pub fn trailing_plan(
    side: PositionSide,
    entry: Decimal,
    settings: &BotSettings,
    instrument: &Instrument,
) -> Option<TrailingPlan> {
    if !settings.use_trailing_stop {
        return None;
    }
    let activation = moved(entry, settings.trail_activation_pct, side.sign());
    let activation_price = match side {
        PositionSide::Long => instrument.round_price_up(activation),
        PositionSide::Short => instrument.round_price_down(activation),
    };
    let distance = instrument
        .round_price(entry.saturating_mul(settings.trail_step_pct) / HUNDRED)
        .max(instrument.tick_size);
    Some(TrailingPlan {
        activation_price,
        distance,
    })
}

/// Why the `symbols` setting keeps a rating signal on `symbol` from trading, if it does: a
/// non-empty list names the symbols rating signals trade. TradingView alerts (`from_alert`)
/// are the trader's own choice and are not limited by it.
pub fn symbol_not_chosen(settings: &BotSettings, symbol: &str, from_alert: bool) -> Option<String> {
    (!from_alert && !settings.symbols.is_empty() && !settings.symbols.iter().any(|s| s == symbol))
        .then(|| format!("{symbol} is not in the Symbols setting"))
}

/// Why the clock forbids a new entry, in the user's time zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryForbidden {
    /// Today is one of the forbidden weekdays.
    Day {
        weekday: chrono::Weekday,
        timezone: String,
    },
    /// The local time (`HH:MM`) is inside the forbidden hours `[start, end)`.
    Hours {
        local_time: String,
        start: u8,
        end: u8,
        timezone: String,
    },
}

impl fmt::Display for EntryForbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryForbidden::Day { weekday, timezone } => {
                write!(f, "{weekday} is a forbidden day in {timezone}")
            }
            EntryForbidden::Hours {
                local_time,
                start,
                end,
                timezone,
            } => write!(
                f,
                "{local_time} in {timezone} is inside the forbidden hours {start}:00-{end}:00"
            ),
        }
    }
}

/// Why the clock forbids a new entry at `now`, if it does: a forbidden hour interval
/// (`[start, end)`, wrapping past midnight) or a forbidden weekday (0 = Monday), both in
/// the user's time zone.
pub fn entry_forbidden(settings: &BotSettings, now: DateTime<Utc>) -> Option<EntryForbidden> {
    let local = now.with_timezone(&settings.timezone());
    if settings.forbidden_days_enabled {
        let weekday = local.weekday().num_days_from_monday() as u8;
        if settings.forbidden_days.contains(&weekday) {
            return Some(EntryForbidden::Day {
                weekday: local.weekday(),
                timezone: settings.user_timezone.clone(),
            });
        }
    }
    if settings.forbidden_hours_enabled {
        let hour = local.hour() as u8;
        for &[start, end] in &settings.forbidden_hours {
            let inside = if start < end {
                (start..end).contains(&hour)
            } else {
                hour >= start || hour < end
            };
            if inside {
                return Some(EntryForbidden::Hours {
                    local_time: format!("{hour:02}:{:02}", local.minute()),
                    start,
                    end,
                    timezone: settings.user_timezone.clone(),
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_symbols_setting_limits_rating_signals_only() {
        let every = BotSettings::default();
        assert_eq!(symbol_not_chosen(&every, "WIFUSDT", false), None);
        let chosen = BotSettings {
            symbols: vec!["BTCUSDT".into()],
            ..BotSettings::default()
        };
        assert_eq!(symbol_not_chosen(&chosen, "BTCUSDT", false), None);
        assert!(symbol_not_chosen(&chosen, "ETHUSDT", false)
            .unwrap()
            .contains("ETHUSDT"));
        assert_eq!(symbol_not_chosen(&chosen, "ETHUSDT", true), None);
    }
    use chrono::TimeZone;
    use rust_decimal_macros::dec;

    fn btc() -> Instrument {
        Instrument {
            symbol: "BTCUSDT".into(),
            tick_size: dec!(0.1),
            qty_step: dec!(0.001),
            min_qty: dec!(0.001),
            min_notional: dec!(5),
            max_leverage: 100,
        }
    }

    fn idle() -> AccountView {
        AccountView {
            open_trades: 0,
            margin_in_use: dec!(0),
            symbol_has_position: false,
            available_balance: dec!(10000),
            max_slippage: dec!(0),
        }
    }

    #[test]
    fn extreme_user_numbers_never_overflow() {
        let big = dec!(1_000_000_000);
        let settings = BotSettings {
            leverage: crate::settings::MAX_LEVERAGE as u32,
            max_total_usdt: Decimal::MAX,
            martingale_initial_margin: big,
            martingale_step: big,
            martingale_max_depth: crate::settings::MAX_MARTINGALE_DEPTH,
            take_profit_first_pct: big,
            take_profit_next_pct: big,
            trail_activation_pct: big,
            trail_step_pct: big,
            initial_stop_loss_pct: dec!(99.99),
            use_trailing_stop: true,
            ..BotSettings::default()
        };
        let margin = crate::martingale::step_margin(&settings, settings.martingale_max_depth);
        assert_eq!(margin, Decimal::MAX);
        let account = AccountView {
            margin_in_use: Decimal::MAX,
            available_balance: Decimal::MAX,
            max_slippage: big,
            ..idle()
        };
        let tiny = Instrument {
            tick_size: dec!(0.0000000001),
            qty_step: dec!(0.0000000001),
            ..btc()
        };
        for (price, inst) in [(big, btc()), (dec!(0.0000000001), tiny.clone())] {
            for side in [PositionSide::Long, PositionSide::Short] {
                let _ = plan_entry(&settings, &inst, &idle(), side, margin, price);
                let _ = plan_entry(&settings, &inst, &account, side, margin, price);
                let _ = stop_loss_price(side, price, settings.initial_stop_loss_pct, &inst);
                let _ = take_profit_price(side, Decimal::MAX, &settings, 1000, &inst);
                let _ = trailing_plan(side, Decimal::MAX, &settings, &inst);
            }
        }
    }

    #[test]
    fn an_entry_is_sized_so_the_margin_at_the_worst_fill_stays_within_the_limit() {
        let settings = BotSettings {
            leverage: 10,
            ..BotSettings::default()
        };
        let instrument = Instrument {
            qty_step: dec!(0.00001),
            min_qty: dec!(0.00001),
            ..btc()
        };
        let margin = dec!(50);
        let price = dec!(50000);
        let account = AccountView {
            max_slippage: dec!(0.0002),
            ..idle()
        };
        let plan = plan_entry(
            &settings,
            &instrument,
            &account,
            PositionSide::Long,
            margin,
            price,
        )
        .unwrap();
        // Without the slippage it would be 0.01 BTC, whose margin at +2 bps is 50.01.
        assert_eq!(plan.qty, dec!(0.00999));
        let worst = price * dec!(1.0002);
        assert!(worst * plan.qty / dec!(10) <= margin);
        // One more step would break the limit at the worst fill.
        assert!(worst * (plan.qty + instrument.qty_step) / dec!(10) > margin);
    }

    #[test]
    fn only_a_change_into_a_strong_signal_is_an_entry() {
        use TradeSignal::*;
        assert!(is_entry_transition(Some(Neutral), StrongBuy));
        assert!(is_entry_transition(Some(StrongSell), StrongBuy));
        assert!(!is_entry_transition(Some(StrongBuy), StrongBuy));
        assert!(!is_entry_transition(Some(StrongBuy), Neutral));
        // The first signal seen says nothing about when it began.
        assert!(!is_entry_transition(None, StrongBuy));
    }

    #[test]
    fn reverse_mode_swaps_the_side() {
        assert_eq!(
            entry_side(TradeSignal::StrongBuy, false),
            Some(PositionSide::Long)
        );
        assert_eq!(
            entry_side(TradeSignal::StrongBuy, true),
            Some(PositionSide::Short)
        );
        assert_eq!(
            entry_side(TradeSignal::StrongSell, true),
            Some(PositionSide::Long)
        );
        assert_eq!(entry_side(TradeSignal::Neutral, true), None);
    }

    #[test]
    fn an_entry_is_margin_times_leverage_rounded_down_to_the_step() {
        let s = BotSettings::default(); // 100 USDT at 10x
        let plan = plan_entry(
            &s,
            &btc(),
            &idle(),
            PositionSide::Long,
            dec!(100),
            dec!(30000),
        )
        .unwrap();
        // 1000 / 30000 = 0.0333.. -> 0.033
        assert_eq!(plan.qty, dec!(0.033));
        assert_eq!(plan.notional, dec!(990.000));
        assert_eq!(plan.leverage, 10);
    }

    #[test]
    fn each_limit_skips_with_its_reason() {
        let s = BotSettings::default();
        let plan = |account: &AccountView, margin, price| {
            plan_entry(&s, &btc(), account, PositionSide::Long, margin, price)
        };
        let mut a = idle();
        a.symbol_has_position = true;
        assert_eq!(plan(&a, dec!(100), dec!(30000)), Err(Skip::PositionOpen));
        let mut a = idle();
        a.open_trades = 3;
        assert_eq!(
            plan(&a, dec!(100), dec!(30000)),
            Err(Skip::MaxTrades { max: 3 })
        );
        let mut a = idle();
        a.margin_in_use = dec!(950);
        assert!(matches!(
            plan(&a, dec!(100), dec!(30000)),
            Err(Skip::MaxTotal { .. })
        ));
        a.margin_in_use = dec!(900);
        assert!(
            plan(&a, dec!(100), dec!(30000)).is_ok(),
            "exactly at the limit is allowed"
        );
        // 0.4 USDT x 10 = 4 USDT of notional: below the 5 USDT minimum.
        let skip = plan(&idle(), dec!(0.4), dec!(30000)).unwrap_err();
        assert!(matches!(skip, Skip::BelowMinimum { .. }));
        assert!(skip.to_string().contains("below the instrument's minimum"));
        let mut a = idle();
        a.available_balance = dec!(50);
        assert!(matches!(
            plan(&a, dec!(100), dec!(30000)),
            Err(Skip::InsufficientBalance { .. })
        ));
        let high = BotSettings {
            leverage: 75,
            ..BotSettings::default()
        };
        let mut low_max = btc();
        low_max.max_leverage = 50;
        assert!(matches!(
            plan_entry(
                &high,
                &low_max,
                &idle(),
                PositionSide::Long,
                dec!(100),
                dec!(30000)
            ),
            Err(Skip::LeverageAboveInstrument { .. })
        ));
    }

    #[test]
    fn stops_and_ladder_sit_where_the_settings_say() {
        let s = BotSettings::default(); // SL 5 %, TP 10 % then every 10 %
        let i = btc();
        assert_eq!(
            stop_loss_price(PositionSide::Long, dec!(30000), dec!(5), &i),
            dec!(28500)
        );
        assert_eq!(
            stop_loss_price(PositionSide::Short, dec!(30000), dec!(5), &i),
            dec!(31500)
        );
        // Rounded to the tick on the side that keeps the loss within the setting.
        assert_eq!(
            stop_loss_price(PositionSide::Long, dec!(100.05), dec!(1), &i),
            dec!(99.1)
        );
        assert_eq!(
            take_profit_price(PositionSide::Long, dec!(30000), &s, 0, &i),
            dec!(33000)
        );
        assert_eq!(
            take_profit_price(PositionSide::Long, dec!(30000), &s, 1, &i),
            dec!(36000)
        );
        assert_eq!(
            take_profit_price(PositionSide::Short, dec!(30000), &s, 0, &i),
            dec!(27000)
        );
        assert_eq!(
            take_profit_price(PositionSide::Short, dec!(30000), &s, 1, &i),
            dec!(24000)
        );
        assert!(reached_in_favour(
            PositionSide::Short,
            dec!(26999),
            dec!(27000)
        ));
        assert!(!reached_in_favour(
            PositionSide::Long,
            dec!(32999.9),
            dec!(33000)
        ));
    }

    #[test]
    fn a_take_profit_closes_half_or_all_of_a_small_remainder() {
        let i = btc();
        assert_eq!(take_profit_qty(dec!(0.033), &i), dec!(0.016));
        assert_eq!(take_profit_qty(dec!(0.002), &i), dec!(0.001));
        assert_eq!(
            take_profit_qty(dec!(0.001), &i),
            dec!(0.001),
            "too small to halve"
        );
    }

    #[test]
    fn the_trailing_stop_activates_in_favour_at_a_fraction_of_the_entry() {
        let s = BotSettings::default(); // activation 1 %, step 0.5 %
        let t = trailing_plan(PositionSide::Long, dec!(30000), &s, &btc()).unwrap();
        assert_eq!(t.activation_price, dec!(30300));
        assert_eq!(t.distance, dec!(150));
        let t = trailing_plan(PositionSide::Short, dec!(30000), &s, &btc()).unwrap();
        assert_eq!(t.activation_price, dec!(29700));
        let off = BotSettings {
            use_trailing_stop: false,
            ..BotSettings::default()
        };
        assert!(trailing_plan(PositionSide::Long, dec!(30000), &off, &btc()).is_none());
    }

    #[test]
    fn forbidden_hours_wrap_past_midnight_in_the_users_zone() {
        let s = BotSettings {
            user_timezone: "Asia/Tokyo".into(), // UTC+9, no DST
            forbidden_hours_enabled: true,
            forbidden_hours: vec![[23, 1], [6, 8]],
            ..BotSettings::default()
        };
        let at = |h: u32, m: u32| Utc.with_ymd_and_hms(2026, 11, 23, h, m, 0).unwrap();
        // 14:00 UTC = 23:00 Tokyo: blocked; 15:59 UTC = 00:59: blocked; 16:00 = 01:00: free.
        assert!(entry_forbidden(&s, at(14, 0)).is_some());
        assert!(entry_forbidden(&s, at(15, 59)).is_some());
        assert!(entry_forbidden(&s, at(16, 0)).is_none());
        assert!(entry_forbidden(&s, at(13, 59)).is_none());
        // 21:30 UTC = 06:30 Tokyo.
        assert_eq!(
            entry_forbidden(&s, at(21, 30)).unwrap().to_string(),
            "06:30 in Asia/Tokyo is inside the forbidden hours 6:00-8:00"
        );
        let off = BotSettings {
            forbidden_hours_enabled: false,
            ..s.clone()
        };
        assert!(entry_forbidden(&off, at(14, 0)).is_none());
    }

    #[test]
    fn forbidden_days_are_local_weekdays() {
        let s = BotSettings {
            user_timezone: "America/New_York".into(),
            forbidden_days_enabled: true,
            forbidden_days: vec![6], // Sunday
            ..BotSettings::default()
        };
        // Monday 2026-11-23 03:00 UTC is still Sunday 22:00 in New York.
        let monday_utc = Utc.with_ymd_and_hms(2026, 11, 23, 3, 0, 0).unwrap();
        assert_eq!(
            entry_forbidden(&s, monday_utc).unwrap().to_string(),
            "Sun is a forbidden day in America/New_York"
        );
        let later = Utc.with_ymd_and_hms(2026, 11, 23, 5, 0, 0).unwrap();
        assert!(entry_forbidden(&s, later).is_none());
    }
}
