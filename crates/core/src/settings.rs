//! A user's trading settings (spec section 3) and the server's validation of them
//! (spec section 5, DESIGN.md section 5).

use std::str::FromStr;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::validation::{whole_number, FieldErrors, FieldReader};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BotMode {
    Classic,
    Martingale,
}

impl BotMode {
    pub fn as_str(self) -> &'static str {
        match self {
            BotMode::Classic => "classic",
            BotMode::Martingale => "martingale",
        }
    }

    pub fn parse(s: &str) -> Option<BotMode> {
        match s {
            "classic" => Some(BotMode::Classic),
            "martingale" => Some(BotMode::Martingale),
            _ => None,
        }
    }
}

/// What the protection check does when a position's stop loss cannot be put back on the
/// venue after [`PROTECTION_TRIES`] tries (docs/alerts.md, "unprotected").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UnprotectedAction {
    /// Close the position at market (the default).
    #[default]
    Close,
    /// Keep it open, raise the alert and try again at the next check.
    Alert,
}

impl UnprotectedAction {
    pub fn as_str(self) -> &'static str {
        match self {
            UnprotectedAction::Close => "close",
            UnprotectedAction::Alert => "alert",
        }
    }

    pub fn parse(s: &str) -> Option<UnprotectedAction> {
        match s {
            "close" => Some(UnprotectedAction::Close),
            "alert" => Some(UnprotectedAction::Alert),
            _ => None,
        }
    }
}

/// How many times in a row the protection check tries to put a missing stop back.
pub const PROTECTION_TRIES: u32 = 3;

/// An hour interval `[start, end)` in the user's time zone, wrapping past midnight.
pub type HourRange = [u8; 2];

/// Every tunable of a user's bot. Percentages are price moves from the entry price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BotSettings {
    pub bot_mode: BotMode,
    pub max_trades: u32,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub max_total_usdt: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub max_trade_usdt: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub initial_stop_loss_pct: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub take_profit_first_pct: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub take_profit_next_pct: Decimal,
    pub use_trailing_stop: bool,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub trail_activation_pct: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub trail_step_pct: Decimal,
    pub leverage: u32,
    pub reverse_mode: bool,
    pub telegram_id: String,
    pub telegram_notify_deals: bool,
    pub telegram_notify_stats: bool,
    pub user_timezone: String,
    pub martingale_max_depth: u32,
    pub martingale_max_active_chains: u32,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub martingale_step: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub martingale_initial_margin: Decimal,
    pub forbidden_hours_enabled: bool,
    #[schema(value_type = Vec<Vec<u8>>)]
    pub forbidden_hours: Vec<HourRange>,
    pub forbidden_days_enabled: bool,
    /// Weekdays 0 (Monday) to 6 (Sunday).
    pub forbidden_days: Vec<u8>,
    /// The symbols rating signals trade (TradingView alerts are not limited by it); empty:
    /// every symbol the account's market rates (docs/accounts.md).
    #[serde(default)]
    pub symbols: Vec<String>,
    /// A position whose stop loss cannot be put back: `close` it at market, or only `alert`.
    #[serde(default)]
    pub unprotected_action: UnprotectedAction,
    /// Circuit breaker: no new entries for the rest of the day (user's time zone) once the
    /// day's closed trades lost this percentage of the day's starting balance; 0: off.
    #[serde(default, with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub daily_loss_limit_pct: Decimal,
    /// Circuit breaker: no new entries for `losses_pause_minutes` after this many losing
    /// trades in a row; 0: off.
    #[serde(default)]
    pub max_losses_in_row: u32,
    /// How long the losses-in-a-row breaker stops entries, in minutes.
    #[serde(default = "default_losses_pause_minutes")]
    pub losses_pause_minutes: u32,
}

fn default_losses_pause_minutes() -> u32 {
    DEFAULT_LOSSES_PAUSE_MINUTES
}

/// The losses-in-a-row breaker's pause when none is set.
pub const DEFAULT_LOSSES_PAUSE_MINUTES: u32 = 60;
/// The longest losses-in-a-row pause: a week.
pub const MAX_LOSSES_PAUSE_MINUTES: i64 = 7 * 24 * 60;
/// The most losses in a row the breaker may wait for.
pub const MAX_LOSSES_IN_ROW: i64 = 1000;

/// Used when the user leaves `trail_activation_pct` empty (DESIGN.md section 5).
pub const DEFAULT_TRAIL_ACTIVATION_PCT: Decimal = dec!(1.0);
pub const DEFAULT_TIMEZONE: &str = "Europe/Moscow";
pub const MIN_LEVERAGE: i64 = 1;
pub const MAX_LEVERAGE: i64 = 100;
/// The deepest martingale chain a trader may configure: step 20 already stakes
/// `martingale_step^19` times the first margin (524,288 x at the usual x2), see docs/rules.md.
pub const MAX_MARTINGALE_DEPTH: u32 = 20;
/// The stop loss must be below 100 % (a 100 % stop is no stop: the price would have to reach 0).
pub const MAX_STOP_LOSS_PCT_EXCLUSIVE: Decimal = dec!(100);
/// At most this many forbidden-hour intervals, as sent and after duplicates are removed.
pub const MAX_FORBIDDEN_HOURS: usize = 24;
/// At most this many symbols in `symbols`.
pub const MAX_SYMBOLS: usize = 100;
/// The longest `telegram_id`, in characters.
pub const TELEGRAM_ID_MAX_CHARS: usize = 64;
const TIMEZONE_MAX_CHARS: usize = 64;
/// A guard against typos of many digits, far above any real account: the largest amount or
/// percentage a setting may hold.
pub const MAX_AMOUNT: Decimal = dec!(1_000_000_000);
/// The largest `max_trades` and `martingale_max_active_chains`.
pub const MAX_COUNT: i64 = 1_000_000;
/// The smallest percentage a setting may hold (and the smallest martingale margin and step).
pub const MIN_PCT: Decimal = dec!(0.01);
/// The smallest `max_total_usdt` and `max_trade_usdt`.
pub const MIN_USDT: Decimal = dec!(1);

/// What [`BotSettings::apply`] accepts for one field. The OpenAPI document, and through it the
/// web form, read the bounds from here, so the server and the form cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// A whole number in `min..=max`.
    Count { min: i64, max: i64 },
    /// A decimal number `>= min` and `<= max`, or `< max` when `max_exclusive`; a whole
    /// multiple of `step` when there is one.
    Amount {
        min: Decimal,
        max: Decimal,
        max_exclusive: bool,
        step: Option<Decimal>,
    },
    /// Text of at most `max_chars` characters.
    Text { max_chars: usize },
    /// A list of at most `max_items` entries.
    List { max_items: usize },
}

const fn amount(min: Decimal) -> Bound {
    Bound::Amount {
        min,
        max: MAX_AMOUNT,
        max_exclusive: false,
        step: None,
    }
}

/// Every bounded field of [`BotSettings`], with its bound.
pub const SETTINGS_BOUNDS: [(&str, Bound); 23] = [
    ("bot_mode", Bound::Text { max_chars: 32 }),
    (
        "max_trades",
        Bound::Count {
            min: 1,
            max: MAX_COUNT,
        },
    ),
    ("max_total_usdt", amount(MIN_USDT)),
    ("max_trade_usdt", amount(MIN_USDT)),
    (
        "initial_stop_loss_pct",
        // The spec's form steps the stop loss by 0.01.
        Bound::Amount {
            min: MIN_PCT,
            max: MAX_STOP_LOSS_PCT_EXCLUSIVE,
            max_exclusive: true,
            step: Some(MIN_PCT),
        },
    ),
    ("take_profit_first_pct", amount(MIN_PCT)),
    ("take_profit_next_pct", amount(MIN_PCT)),
    ("trail_activation_pct", amount(MIN_PCT)),
    ("trail_step_pct", amount(MIN_PCT)),
    (
        "leverage",
        Bound::Count {
            min: MIN_LEVERAGE,
            max: MAX_LEVERAGE,
        },
    ),
    (
        "telegram_id",
        Bound::Text {
            max_chars: TELEGRAM_ID_MAX_CHARS,
        },
    ),
    (
        "user_timezone",
        Bound::Text {
            max_chars: TIMEZONE_MAX_CHARS,
        },
    ),
    (
        "martingale_max_depth",
        Bound::Count {
            min: 1,
            max: MAX_MARTINGALE_DEPTH as i64,
        },
    ),
    (
        "martingale_max_active_chains",
        Bound::Count {
            min: 1,
            max: MAX_COUNT,
        },
    ),
    ("martingale_step", amount(MIN_PCT)),
    ("martingale_initial_margin", amount(MIN_PCT)),
    (
        "forbidden_hours",
        Bound::List {
            max_items: MAX_FORBIDDEN_HOURS,
        },
    ),
    ("forbidden_days", Bound::List { max_items: 7 }),
    (
        "symbols",
        Bound::List {
            max_items: MAX_SYMBOLS,
        },
    ),
    ("unprotected_action", Bound::Text { max_chars: 16 }),
    (
        "daily_loss_limit_pct",
        // 0 turns the breaker off.
        Bound::Amount {
            min: Decimal::ZERO,
            max: dec!(100),
            max_exclusive: false,
            step: None,
        },
    ),
    (
        "max_losses_in_row",
        Bound::Count {
            min: 0,
            max: MAX_LOSSES_IN_ROW,
        },
    ),
    (
        "losses_pause_minutes",
        Bound::Count {
            min: 1,
            max: MAX_LOSSES_PAUSE_MINUTES,
        },
    ),
];

/// The bound of a field listed in [`SETTINGS_BOUNDS`].
pub fn bound(field: &str) -> Option<Bound> {
    SETTINGS_BOUNDS
        .iter()
        .find(|(name, _)| *name == field)
        .map(|(_, bound)| *bound)
}

/// Every IANA time zone name `user_timezone` accepts.
pub fn time_zone_names() -> impl Iterator<Item = &'static str> {
    chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name())
}

fn text_limit(field: &str) -> usize {
    match bound(field) {
        Some(Bound::Text { max_chars }) => max_chars,
        _ => 0,
    }
}

impl Default for BotSettings {
    /// The spec's defaults (section 3).
    fn default() -> Self {
        BotSettings {
            bot_mode: BotMode::Classic,
            max_trades: 3,
            max_total_usdt: dec!(1000),
            max_trade_usdt: dec!(100),
            initial_stop_loss_pct: dec!(5),
            take_profit_first_pct: dec!(10),
            take_profit_next_pct: dec!(10),
            use_trailing_stop: true,
            trail_activation_pct: DEFAULT_TRAIL_ACTIVATION_PCT,
            trail_step_pct: dec!(0.5),
            leverage: 10,
            reverse_mode: false,
            telegram_id: String::new(),
            telegram_notify_deals: true,
            telegram_notify_stats: true,
            user_timezone: DEFAULT_TIMEZONE.to_string(),
            martingale_max_depth: 4,
            martingale_max_active_chains: 1,
            martingale_step: dec!(2),
            martingale_initial_margin: dec!(2),
            forbidden_hours_enabled: false,
            forbidden_hours: Vec::new(),
            forbidden_days_enabled: false,
            forbidden_days: Vec::new(),
            symbols: Vec::new(),
            unprotected_action: UnprotectedAction::Close,
            daily_loss_limit_pct: Decimal::ZERO,
            max_losses_in_row: 0,
            losses_pause_minutes: DEFAULT_LOSSES_PAUSE_MINUTES,
        }
    }
}

impl BotSettings {
    /// The user's time zone (validated on every write, so it always parses).
    pub fn timezone(&self) -> chrono_tz::Tz {
        chrono_tz::Tz::from_str(&self.user_timezone).unwrap_or(chrono_tz::Europe::Moscow)
    }

    /// Applies a JSON payload on top of these settings: fields present are validated and
    /// replaced, absent ones kept (so a whole form and `{"bot_mode": …}` alone both work).
    /// Read-only fields (`id`, the running flags) and unknown fields are ignored.
    pub fn apply(&self, payload: &Map<String, Value>) -> Result<BotSettings, FieldErrors> {
        let mut r = FieldReader::new(payload);
        let mut s = self.clone();

        if let Some(mode) = r.string("bot_mode", text_limit("bot_mode")) {
            match BotMode::parse(&mode) {
                Some(m) => s.bot_mode = m,
                None => r.error("bot_mode", "Must be \"classic\" or \"martingale\"."),
            }
        }
        if let Some(action) = r.string("unprotected_action", text_limit("unprotected_action")) {
            match UnprotectedAction::parse(&action) {
                Some(a) => s.unprotected_action = a,
                None => r.error("unprotected_action", "Must be \"close\" or \"alert\"."),
            }
        }
        let counts: [(&str, &mut u32); 6] = [
            ("max_losses_in_row", &mut s.max_losses_in_row),
            ("losses_pause_minutes", &mut s.losses_pause_minutes),
            ("max_trades", &mut s.max_trades),
            ("martingale_max_depth", &mut s.martingale_max_depth),
            (
                "martingale_max_active_chains",
                &mut s.martingale_max_active_chains,
            ),
            ("leverage", &mut s.leverage),
        ];
        for (field, slot) in counts {
            let Some(Bound::Count { min, max }) = bound(field) else {
                continue;
            };
            if let Some(n) = r
                .integer(field, min, max)
                .and_then(|n| u32::try_from(n).ok())
            {
                *slot = n;
            }
        }
        let amounts: [(&str, &mut Decimal); 10] = [
            ("daily_loss_limit_pct", &mut s.daily_loss_limit_pct),
            ("max_total_usdt", &mut s.max_total_usdt),
            ("max_trade_usdt", &mut s.max_trade_usdt),
            ("initial_stop_loss_pct", &mut s.initial_stop_loss_pct),
            ("take_profit_first_pct", &mut s.take_profit_first_pct),
            ("take_profit_next_pct", &mut s.take_profit_next_pct),
            ("trail_activation_pct", &mut s.trail_activation_pct),
            ("trail_step_pct", &mut s.trail_step_pct),
            ("martingale_step", &mut s.martingale_step),
            (
                "martingale_initial_margin",
                &mut s.martingale_initial_margin,
            ),
        ];
        for (field, slot) in amounts {
            if field == "trail_activation_pct" && r.is_null(field) {
                *slot = DEFAULT_TRAIL_ACTIVATION_PCT;
                continue;
            }
            let Some(Bound::Amount {
                min,
                max,
                max_exclusive,
                step,
            }) = bound(field)
            else {
                continue;
            };
            match r.decimal(field, min, Some(max)) {
                Some(d) if max_exclusive && d >= max => {
                    r.error(field, format!("Ensure this value is less than {max}."));
                }
                Some(d) if step.is_some_and(|step| !(d % step).is_zero()) => {
                    let places = step.map(|s| s.normalize().scale()).unwrap_or_default();
                    r.error(
                        field,
                        format!("Ensure that there are no more than {places} decimal places."),
                    );
                }
                Some(d) => *slot = d,
                None => {}
            }
        }
        let flags: [(&str, &mut bool); 6] = [
            ("use_trailing_stop", &mut s.use_trailing_stop),
            ("reverse_mode", &mut s.reverse_mode),
            ("telegram_notify_deals", &mut s.telegram_notify_deals),
            ("telegram_notify_stats", &mut s.telegram_notify_stats),
            ("forbidden_hours_enabled", &mut s.forbidden_hours_enabled),
            ("forbidden_days_enabled", &mut s.forbidden_days_enabled),
        ];
        for (field, slot) in flags {
            if let Some(b) = r.boolean(field) {
                *slot = b;
            }
        }
        if r.is_null("telegram_id") {
            // An empty messaging id is allowed: it just means no notifications.
            r.errors.remove("telegram_id");
            s.telegram_id.clear();
        } else if let Some(id) = r.string("telegram_id", text_limit("telegram_id")) {
            s.telegram_id = id;
        }
        if let Some(zone) = r.string("user_timezone", text_limit("user_timezone")) {
            if chrono_tz::Tz::from_str(&zone).is_ok() {
                s.user_timezone = zone;
            } else {
                r.error(
                    "user_timezone",
                    format!("\"{zone}\" is not a known IANA time zone."),
                );
            }
        }
        if let Some(items) = r.array("forbidden_hours") {
            match parse_hour_ranges(items) {
                Ok(ranges) => s.forbidden_hours = ranges,
                Err(msg) => r.error("forbidden_hours", msg),
            }
        }
        if let Some(items) = r.array("forbidden_days") {
            match parse_weekdays(items) {
                Ok(days) => s.forbidden_days = days,
                Err(msg) => r.error("forbidden_days", msg),
            }
        }
        if let Some(items) = r.array("symbols") {
            match parse_symbols(items) {
                Ok(symbols) => s.symbols = symbols,
                Err(msg) => r.error("symbols", msg),
            }
        }
        r.finish().map(|()| s)
    }
}

/// USDT perpetual symbols as the exchange spells them (`BTCUSDT`, `1000PEPEUSDT`), upper-cased,
/// in the order given, duplicates removed; at most [`MAX_SYMBOLS`]. Whether the account's
/// market lists them is the server's check.
pub fn parse_symbols(items: &[Value]) -> Result<Vec<String>, String> {
    if items.len() > MAX_SYMBOLS {
        return Err(format!(
            "Ensure there are no more than {MAX_SYMBOLS} symbols (there are {}).",
            items.len()
        ));
    }
    let mut symbols: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let symbol = item
            .as_str()
            .map(|s| s.trim().to_ascii_uppercase())
            .filter(|s| is_usdt_perpetual(s))
            .ok_or_else(|| format!("{item} is not a USDT perpetual symbol such as BTCUSDT."))?;
        if !symbols.contains(&symbol) {
            symbols.push(symbol);
        }
    }
    Ok(symbols)
}

/// Letters and digits ending in USDT, at most 30 characters.
fn is_usdt_perpetual(symbol: &str) -> bool {
    symbol.len() > 4
        && symbol.len() <= 30
        && symbol.ends_with("USDT")
        && symbol
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// The intervals in the order given, duplicates removed; at most [`MAX_FORBIDDEN_HOURS`] as
/// sent (so at most that many after duplicates are removed too).
pub fn parse_hour_ranges(items: &[Value]) -> Result<Vec<HourRange>, String> {
    let too_many = |n: usize| {
        format!("Ensure there are no more than {MAX_FORBIDDEN_HOURS} intervals (there are {n}).")
    };
    if items.len() > MAX_FORBIDDEN_HOURS {
        return Err(too_many(items.len()));
    }
    let bad = || "Each interval must be a pair [start, end] of whole hours 0 to 23.".to_string();
    let parsed: Vec<HourRange> = items
        .iter()
        .map(|item| {
            let pair = item.as_array().filter(|p| p.len() == 2).ok_or_else(bad)?;
            let hour = |v: &Value| {
                whole_number(v)
                    .filter(|h| (0..=23).contains(h))
                    .map(|h| h as u8)
                    .ok_or_else(bad)
            };
            let (start, end) = (hour(&pair[0])?, hour(&pair[1])?);
            if start == end {
                return Err(format!(
                    "The interval [{start}, {end}] is empty: start and end must differ."
                ));
            }
            Ok([start, end])
        })
        .collect::<Result<_, String>>()?;
    let mut ranges: Vec<HourRange> = Vec::with_capacity(parsed.len());
    for range in parsed {
        if !ranges.contains(&range) {
            ranges.push(range);
        }
    }
    Ok(ranges)
}

fn parse_weekdays(items: &[Value]) -> Result<Vec<u8>, String> {
    let mut days = Vec::with_capacity(items.len());
    for item in items {
        let day = whole_number(item)
            .filter(|d| (0..=6).contains(d))
            .ok_or("Weekdays must be whole numbers 0 (Monday) to 6 (Sunday).")?
            as u8;
        if days.contains(&day) {
            return Err(format!("Weekday {day} is listed twice."));
        }
        days.push(day);
    }
    Ok(days)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn apply(payload: Value) -> Result<BotSettings, FieldErrors> {
        BotSettings::default().apply(payload.as_object().unwrap())
    }

    fn error_fields(payload: Value) -> Vec<String> {
        apply(payload).unwrap_err().into_keys().collect()
    }

    #[test]
    fn defaults_match_the_spec() {
        let d = BotSettings::default();
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(
            v,
            json!({
                "bot_mode": "classic", "max_trades": 3, "max_total_usdt": 1000.0,
                "max_trade_usdt": 100.0, "initial_stop_loss_pct": 5.0,
                "take_profit_first_pct": 10.0, "take_profit_next_pct": 10.0,
                "use_trailing_stop": true, "trail_activation_pct": 1.0, "trail_step_pct": 0.5,
                "leverage": 10, "reverse_mode": false, "telegram_id": "",
                "telegram_notify_deals": true, "telegram_notify_stats": true,
                "user_timezone": "Europe/Moscow", "martingale_max_depth": 4,
                "martingale_max_active_chains": 1, "martingale_step": 2.0,
                "martingale_initial_margin": 2.0, "forbidden_hours_enabled": false,
                "forbidden_hours": [], "forbidden_days_enabled": false, "forbidden_days": [],
                "unprotected_action": "close", "daily_loss_limit_pct": 0.0,
                "max_losses_in_row": 0, "losses_pause_minutes": 60,
                "symbols": []
            })
        );
    }

    #[test]
    fn symbols_are_upper_cased_once_each_and_bad_ones_refused() {
        let s =
            apply(json!({"symbols": [" wifusdt", "BTCUSDT", "WIFUSDT", "1000PEPEUSDT"]})).unwrap();
        assert_eq!(s.symbols, ["WIFUSDT", "BTCUSDT", "1000PEPEUSDT"]);
        for bad in [
            json!(["BTCUSD"]),
            json!(["BTC-USDT"]),
            json!([5]),
            json!("BTCUSDT"),
        ] {
            assert_eq!(error_fields(json!({"symbols": bad})), ["symbols"], "{bad}");
        }
        let too_many: Vec<String> = (0..=MAX_SYMBOLS).map(|i| format!("A{i}USDT")).collect();
        assert_eq!(error_fields(json!({"symbols": too_many})), ["symbols"]);
        // A record stored before the setting existed reads as "every symbol".
        let mut stored = serde_json::to_value(BotSettings::default()).unwrap();
        stored.as_object_mut().unwrap().remove("symbols");
        let old: BotSettings = serde_json::from_value(stored).unwrap();
        assert!(old.symbols.is_empty());
    }

    #[test]
    fn bot_mode_alone_changes_only_the_mode() {
        let s = apply(json!({"bot_mode": "martingale"})).unwrap();
        assert_eq!(s.bot_mode, BotMode::Martingale);
        assert_eq!(
            BotSettings {
                bot_mode: BotMode::Classic,
                ..s
            },
            BotSettings::default()
        );
    }

    #[test]
    fn a_whole_valid_form_is_applied_exactly() {
        let s = apply(json!({
            "max_trades": 5, "max_total_usdt": "2500.5", "max_trade_usdt": 50,
            "initial_stop_loss_pct": 0.25, "leverage": 100, "forbidden_hours_enabled": true,
            "forbidden_hours": [[23, 1], [6, 8]], "forbidden_days": [5, 6],
            "user_timezone": "America/New_York", "telegram_id": " 12345 ",
            "id": 99, "is_bot_running": true, "unknown": 1
        }))
        .unwrap();
        assert_eq!(s.max_trades, 5);
        assert_eq!(s.max_total_usdt, dec!(2500.5));
        assert_eq!(s.initial_stop_loss_pct, dec!(0.25));
        assert_eq!(s.leverage, 100);
        assert_eq!(s.forbidden_hours, vec![[23, 1], [6, 8]]);
        assert_eq!(s.forbidden_days, vec![5, 6]);
        assert_eq!(s.telegram_id, "12345");
        assert_eq!(s.timezone(), chrono_tz::America::New_York);
    }

    #[test]
    fn every_minimum_is_enforced() {
        for (field, bad) in [
            ("max_trades", json!(0)),
            ("max_total_usdt", json!(0.99)),
            ("max_trade_usdt", json!(0)),
            ("initial_stop_loss_pct", json!(0.009)),
            ("take_profit_first_pct", json!(0)),
            ("take_profit_next_pct", json!(-1)),
            ("trail_activation_pct", json!(0.001)),
            ("trail_step_pct", json!(0)),
            ("martingale_max_depth", json!(0)),
            ("martingale_max_active_chains", json!(0)),
            ("martingale_step", json!(0)),
            ("martingale_initial_margin", json!(0.001)),
        ] {
            assert_eq!(
                error_fields(json!({ field: bad })),
                vec![field.to_string()],
                "{field}"
            );
        }
    }

    #[test]
    fn a_number_just_over_a_maximum_is_read_exactly_and_refused() {
        // 1,000,000,000.0000001 is a double of its own (1e9 + 2^-23): a parser that rounds
        // it to 1e9 would let it through (schemathesis found this on the risk preview).
        let payload: Value =
            serde_json::from_str(r#"{"take_profit_first_pct": 1000000000.0000001}"#).unwrap();
        assert_eq!(
            error_fields(payload),
            vec!["take_profit_first_pct".to_string()]
        );
        assert!(apply(json!({"take_profit_first_pct": 1_000_000_000})).is_ok());
    }

    #[test]
    fn trader_bounds_depth_stop_loss_and_hour_intervals() {
        assert!(apply(json!({"martingale_max_depth": 20})).is_ok());
        assert_eq!(
            error_fields(json!({"martingale_max_depth": 21})),
            ["martingale_max_depth"]
        );
        assert_eq!(
            error_fields(json!({"martingale_max_depth": 1_000_000})),
            ["martingale_max_depth"]
        );
        assert!(apply(json!({"initial_stop_loss_pct": 99.99})).is_ok());
        for bad in [json!(100), json!("100.00"), json!(150)] {
            assert_eq!(
                error_fields(json!({ "initial_stop_loss_pct": bad })),
                ["initial_stop_loss_pct"]
            );
        }
        // Duplicates are removed on save; a list longer than 24 is refused as sent.
        let s = apply(json!({"forbidden_hours": [[1, 2], [22, 6], [1, 2]]})).unwrap();
        assert_eq!(s.forbidden_hours, vec![[1, 2], [22, 6]]);
        let dupes: Vec<Value> = (0..10_000).map(|_| json!([22, 6])).collect();
        assert_eq!(
            error_fields(json!({ "forbidden_hours": dupes })),
            ["forbidden_hours"]
        );
        let distinct = |n: u8| -> Vec<Value> { (0..n).map(|h| json!([h, (h + 1) % 24])).collect() };
        assert_eq!(
            apply(json!({"forbidden_hours": distinct(24)}))
                .unwrap()
                .forbidden_hours
                .len(),
            24
        );
        let too_many: Vec<Value> = distinct(24).into_iter().chain([json!([0, 2])]).collect();
        assert_eq!(
            error_fields(json!({ "forbidden_hours": too_many })),
            ["forbidden_hours"]
        );
    }

    #[test]
    fn leverage_hours_days_zone_and_types() {
        assert_eq!(error_fields(json!({"leverage": 0})), ["leverage"]);
        assert_eq!(error_fields(json!({"leverage": 101})), ["leverage"]);
        assert_eq!(error_fields(json!({"leverage": 2.5})), ["leverage"]);
        assert!(apply(json!({"leverage": 1})).is_ok());
        assert_eq!(
            error_fields(json!({"forbidden_hours": [[22, 24]]})),
            ["forbidden_hours"]
        );
        assert_eq!(
            error_fields(json!({"forbidden_hours": [[1]]})),
            ["forbidden_hours"]
        );
        assert_eq!(
            error_fields(json!({"forbidden_hours": [[3, 3]]})),
            ["forbidden_hours"]
        );
        assert_eq!(
            error_fields(json!({"forbidden_hours": "23-1"})),
            ["forbidden_hours"]
        );
        assert_eq!(
            error_fields(json!({"forbidden_days": [7]})),
            ["forbidden_days"]
        );
        assert_eq!(
            error_fields(json!({"forbidden_days": [1, 1]})),
            ["forbidden_days"]
        );
        assert_eq!(
            error_fields(json!({"forbidden_days": [-1]})),
            ["forbidden_days"]
        );
        assert_eq!(
            error_fields(json!({"user_timezone": "Mars/Olympus"})),
            ["user_timezone"]
        );
        assert_eq!(error_fields(json!({"max_trades": "many"})), ["max_trades"]);
        assert_eq!(
            error_fields(json!({"use_trailing_stop": "yes"})),
            ["use_trailing_stop"]
        );
        assert_eq!(error_fields(json!({"bot_mode": "yolo"})), ["bot_mode"]);
        assert_eq!(error_fields(json!({"max_trades": null})), ["max_trades"]);
        assert_eq!(
            error_fields(json!({"initial_stop_loss_pct": 1.005})),
            ["initial_stop_loss_pct"]
        );
    }

    #[test]
    fn several_bad_fields_are_all_reported() {
        let fields = error_fields(json!({"max_trades": 0, "leverage": 500, "forbidden_days": [9]}));
        assert_eq!(fields, ["forbidden_days", "leverage", "max_trades"]);
    }

    #[test]
    fn empty_trail_activation_becomes_the_default() {
        let start = BotSettings {
            trail_activation_pct: dec!(3),
            ..BotSettings::default()
        };
        let s = start
            .apply(json!({"trail_activation_pct": null}).as_object().unwrap())
            .unwrap();
        assert_eq!(s.trail_activation_pct, DEFAULT_TRAIL_ACTIVATION_PCT);
    }

    #[test]
    fn protection_and_circuit_breaker_fields_are_validated() {
        let s = apply(json!({
            "unprotected_action": "alert", "daily_loss_limit_pct": 3.5,
            "max_losses_in_row": 4, "losses_pause_minutes": 90
        }))
        .unwrap();
        assert_eq!(s.unprotected_action, UnprotectedAction::Alert);
        assert_eq!(s.daily_loss_limit_pct, dec!(3.5));
        assert_eq!((s.max_losses_in_row, s.losses_pause_minutes), (4, 90));
        let fields = error_fields(json!({
            "unprotected_action": "flee", "daily_loss_limit_pct": 101,
            "max_losses_in_row": -1, "losses_pause_minutes": 0
        }));
        assert_eq!(
            fields,
            [
                "daily_loss_limit_pct",
                "losses_pause_minutes",
                "max_losses_in_row",
                "unprotected_action"
            ]
        );
        // Settings stored before these fields existed read as today's behaviour.
        let mut old = serde_json::to_value(BotSettings::default()).unwrap();
        for key in [
            "unprotected_action",
            "daily_loss_limit_pct",
            "max_losses_in_row",
            "losses_pause_minutes",
        ] {
            old.as_object_mut().unwrap().remove(key);
        }
        let read: BotSettings = serde_json::from_value(old).unwrap();
        assert_eq!(read, BotSettings::default());
    }
}
