//! The checks the cargo-fuzz targets in `fuzz/` run on every input, one function per
//! target: each feeds the bytes to the very function the product reads them with and asserts
//! what must hold of the answer, so a panic is either a crash in the product's code or a
//! broken invariant. `tests/seed_corpora.rs` runs every check over its committed seed corpus
//! (`fuzz/corpus/<target>/`) on the stable toolchain, so the corpora and the checks cannot
//! rot; docs/security.md ("Fuzzing") says how to run the fuzzers.

use std::collections::HashSet;
use std::str::FromStr;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::Value;
use signaldesk_core::alert::{
    normalise_symbol, parse_alert, AlertError, LAST_TIME_MS, MAX_SYMBOL_LEN,
};
use signaldesk_core::client_message::{read_client_message, ClientMessage, UnreadFrame};
use signaldesk_core::martingale::{after_close, risk_preview, step_margin, ChainOutcome};
use signaldesk_core::settings::{
    parse_hour_ranges, BotSettings, MAX_AMOUNT, MAX_COUNT, MAX_FORBIDDEN_HOURS, MAX_LEVERAGE,
    MAX_MARTINGALE_DEPTH, MAX_STOP_LOSS_PCT_EXCLUSIVE, MIN_LEVERAGE, MIN_PCT, MIN_USDT,
    TELEGRAM_ID_MAX_CHARS,
};
use signaldesk_core::signal::RATING_LEVELS;
use signaldesk_core::validation::whole_number;
use signaldesk_venue::bybit::private::models::PositionRecord;
use signaldesk_venue::bybit::private::push::{push_items, read_push_items, PushItem};
use signaldesk_venue::bybit::private::stream::{read_push, StreamEvent};
use signaldesk_venue::bybit::ws::messages::{self as public, PublicMessage};

/// A fuzz target: its name (also its corpus folder) and its check.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by the name `cargo fuzz run` takes.
pub const TARGETS: [Target; 5] = [
    ("forbidden_hours", forbidden_hours),
    ("bot_settings", bot_settings),
    ("ws_client_message", ws_client_message),
    ("webhook_alert", webhook_alert),
    ("bybit_ws", bybit_ws),
];

/// The maintenance margin rate the server's risk preview uses (Bybit's first tier).
const MAINTENANCE_MARGIN_RATE: Decimal = dec!(0.005);

/// `forbidden_hours` of a settings payload: any JSON array. Accepted intervals are distinct
/// pairs of different hours 0 to 23, at most [`MAX_FORBIDDEN_HOURS`], in the order given.
pub fn forbidden_hours(data: &[u8]) {
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(ranges) = parse_hour_ranges(&items) else {
        return;
    };
    assert_hour_ranges(&ranges);
    // Every item was a valid pair, and every pair is kept once, first occurrence first.
    let mut expected: Vec<[u8; 2]> = Vec::new();
    for item in &items {
        let pair: Vec<u64> = item
            .as_array()
            .expect("an accepted item is a pair")
            .iter()
            // Whole numbers written with a fraction (`2.0`, `-0`) count, as in JSON Schema.
            .map(|h| whole_number(h).expect("an accepted hour is a whole number") as u64)
            .collect();
        let range = [pair[0] as u8, pair[1] as u8];
        if !expected.contains(&range) {
            expected.push(range);
        }
    }
    assert_eq!(ranges, expected);
}

fn assert_hour_ranges(ranges: &[[u8; 2]]) {
    assert!(ranges.len() <= MAX_FORBIDDEN_HOURS, "{ranges:?}");
    let distinct: HashSet<&[u8; 2]> = ranges.iter().collect();
    assert_eq!(distinct.len(), ranges.len(), "duplicates in {ranges:?}");
    for [start, end] in ranges {
        assert!(*start <= 23 && *end <= 23 && start != end, "{ranges:?}");
    }
}

/// A settings payload (`POST`/`PUT /api/bot-settings/`, the risk preview): any JSON object
/// applied on the defaults. Accepted settings are within every documented bound, survive the
/// store's save and load and are accepted again, and the risk preview of them is computed
/// and serialised without a panic; refused ones say which fields and why.
pub fn bot_settings(data: &[u8]) {
    let Ok(Value::Object(payload)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let settings = match BotSettings::default().apply(&payload) {
        Ok(settings) => settings,
        Err(errors) => {
            assert!(!errors.is_empty());
            assert!(errors.values().all(|messages| !messages.is_empty()));
            return;
        }
    };
    assert_within_bounds(&settings);

    // The store keeps the settings as JSON and reads them back on every use.
    let saved = serde_json::to_string(&settings).expect("settings serialise");
    let loaded: BotSettings = serde_json::from_str(&saved).expect("saved settings load back");
    let reloaded = serde_json::to_value(&loaded).expect("loaded settings serialise");
    let again = BotSettings::default()
        .apply(reloaded.as_object().expect("settings are an object"))
        .unwrap_or_else(|e| panic!("saved settings {saved} are refused when sent back: {e:?}"));
    assert_within_bounds(&again);

    let wallet = Some(settings.max_total_usdt);
    let preview = risk_preview(&settings, wallet, MAINTENANCE_MARGIN_RATE);
    assert_eq!(preview.steps.len(), settings.martingale_max_depth as usize);
    for pair in preview.steps.windows(2) {
        assert!(pair[0].cumulative_margin <= pair[1].cumulative_margin);
    }
    serde_json::to_string(&preview).expect("the risk preview serialises");
    for step in 1..=settings.martingale_max_depth {
        assert!(step_margin(&settings, step) >= Decimal::ZERO);
        match after_close(&settings, step, dec!(-1)) {
            ChainOutcome::NextStep { step: next } => {
                assert_eq!(next, step + 1);
                assert!(next <= settings.martingale_max_depth);
            }
            ChainOutcome::Closed { won } => {
                assert!(!won);
                assert_eq!(step, settings.martingale_max_depth);
            }
        }
    }
}

fn assert_within_bounds(s: &BotSettings) {
    let count = 1..=MAX_COUNT;
    assert!(count.contains(&i64::from(s.max_trades)), "{s:?}");
    assert!(
        count.contains(&i64::from(s.martingale_max_active_chains)),
        "{s:?}"
    );
    assert!(
        (1..=MAX_MARTINGALE_DEPTH).contains(&s.martingale_max_depth),
        "{s:?}"
    );
    assert!(
        (MIN_LEVERAGE..=MAX_LEVERAGE).contains(&i64::from(s.leverage)),
        "{s:?}"
    );
    for usdt in [s.max_total_usdt, s.max_trade_usdt] {
        assert!((MIN_USDT..=MAX_AMOUNT).contains(&usdt), "{s:?}");
    }
    for pct in [
        s.initial_stop_loss_pct,
        s.take_profit_first_pct,
        s.take_profit_next_pct,
        s.trail_activation_pct,
        s.trail_step_pct,
        s.martingale_step,
        s.martingale_initial_margin,
    ] {
        assert!((MIN_PCT..=MAX_AMOUNT).contains(&pct), "{s:?}");
    }
    assert!(
        s.initial_stop_loss_pct < MAX_STOP_LOSS_PCT_EXCLUSIVE,
        "{s:?}"
    );
    assert!(s.initial_stop_loss_pct.normalize().scale() <= 2, "{s:?}");
    assert_hour_ranges(&s.forbidden_hours);
    let days: HashSet<&u8> = s.forbidden_days.iter().collect();
    assert_eq!(days.len(), s.forbidden_days.len(), "{s:?}");
    assert!(s.forbidden_days.iter().all(|d| *d <= 6), "{s:?}");
    assert!(
        s.telegram_id.chars().count() <= TELEGRAM_ID_MAX_CHARS,
        "{s:?}"
    );
    assert!(chrono_tz::Tz::from_str(&s.user_timezone).is_ok(), "{s:?}");
}

/// A text frame from a live-feed client (`/ws/dashboard/`): any UTF-8. Only frames within
/// the size limit are read, and an action read serialises back to the same action.
pub fn ws_client_message(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let within_limit = text.len() <= signaldesk_core::client_message::MAX_CLIENT_MESSAGE;
    match read_client_message(text) {
        Ok(message) => {
            assert!(within_limit);
            let json = serde_json::to_string(&message).expect("an action serialises");
            let back: ClientMessage = serde_json::from_str(&json).expect("and reads back");
            assert_eq!(back, message);
        }
        Err(UnreadFrame::TooBig) => assert!(!within_limit),
        Err(UnreadFrame::Unknown) => assert!(within_limit),
    }
}

/// A TradingView alert body (`POST /api/webhook/<secret>/`): any bytes. An accepted alert was
/// a JSON object and names a Bybit-style symbol and one of the rating levels, and its time (if
/// any) is within 0 to the year 9999; a refusal names the field. Symbol normalisation is
/// idempotent.
pub fn webhook_alert(data: &[u8]) {
    match parse_alert(data) {
        Ok(alert) => {
            assert!(
                matches!(serde_json::from_slice(data), Ok(Value::Object(_))),
                "an alert that is not a JSON object was accepted"
            );
            assert!(!alert.symbol.is_empty() && alert.symbol.len() <= MAX_SYMBOL_LEN);
            assert!(alert
                .symbol
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()));
            assert!(RATING_LEVELS.contains(&alert.rating));
            assert!(alert
                .sent_at
                .is_none_or(|ms| (0..=LAST_TIME_MS).contains(&ms)));
        }
        Err(AlertError::Field { field, message }) => {
            assert!(["symbol", "signal", "time"].contains(&field) && !message.is_empty());
        }
        Err(AlertError::NotAnAlert) => {}
    }
    if let Ok(raw) = std::str::from_utf8(data) {
        if let Some(symbol) = normalise_symbol(raw) {
            assert_eq!(normalise_symbol(&symbol).as_deref(), Some(symbol.as_str()));
        }
    }
}

/// A text frame from Bybit's public or private websocket: any UTF-8, read by the public
/// stream's parser and by the private stream's, whose pushes are then read item by item as
/// the venue reads them (positions as the REST resync reads them).
pub fn bybit_ws(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(messages) = public::parse(text) {
        for message in messages {
            if let PublicMessage::Kline {
                symbol, interval, ..
            } = &message
            {
                assert!(!symbol.contains('.') && !interval.contains('.'), "{text}");
            }
        }
    }
    let Some(StreamEvent::Push { topic, data }) = read_push(text) else {
        return;
    };
    assert!(!topic.contains('.'), "{topic}");
    if topic == "position" {
        for item in push_items(data) {
            if let Ok(record) = serde_json::from_value::<PositionRecord>(item) {
                let _ = record.to_position();
            }
        }
        return;
    }
    for item in read_push_items(&topic, data).into_iter().flatten() {
        if let PushItem::Order(order) = item {
            let _ = (order.is_done(), order.side(), order.close_reason());
            let _ = (order.executed_qty(), order.avg_price(), order.ts_ms());
        }
    }
}
