//! A walk-forward over five scripted days whose windows, chosen cells and figures can be
//! checked by hand: each day BTC is bought at 30,000, then either dips 2 % and rallies 10 %
//! (a "rally" day) or falls 8 % (a "crash" day), and the sweep tries a 2 % and an 8 % stop.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{NaiveDate, TimeZone, Utc};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::json;
use signaldesk_backtest::sweep::Axis;
use signaldesk_backtest::walk_forward::{far_below, walk_forward, Metric, WalkForward, Window};
use signaldesk_backtest::{Backtest, Candles, Progress, ScriptedSignal, Signals};
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_core::settings::BotSettings;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::paper::PaperConfig;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;

fn date(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

/// 2026-11-16 00:00 UTC, the first day.
fn first_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 16, 0, 0, 0)
        .unwrap()
        .timestamp_millis()
}

#[derive(Clone, Copy)]
enum Day {
    /// Down to 29,400 (the 2 % stop), up to 33,000 (the first take profit, +10 %: half the
    /// position), back to 30,000 (the rest at break-even).
    Rally,
    /// Down to 29,400 (the 2 % stop), then 27,600 (the 8 % stop), back to 30,000.
    Crash,
}

fn candle(at_ms: i64, [open, high, low, close]: [Decimal; 4]) -> Candle {
    Candle {
        open_time_ms: at_ms,
        open,
        high,
        low,
        close,
        volume: dec!(1),
    }
}

/// Every minute of `days`, flat at 30,000 but for minutes 2 to 4 of each day; a STRONG_BUY
/// at minute 1 of each day and a NEUTRAL at minute 600 (so the next day's buy is a new
/// signal).
fn history(days: &[Day]) -> (BTreeMap<String, Vec<Candle>>, Vec<ScriptedSignal>) {
    let flat = [dec!(30000); 4];
    let mut candles = Vec::new();
    let mut signals = Vec::new();
    for (d, day) in days.iter().enumerate() {
        let start = first_ms() + d as i64 * DAY_MS;
        let moves = match day {
            Day::Rally => [
                [dec!(30000), dec!(30000), dec!(29400), dec!(29400)],
                [dec!(29400), dec!(33000), dec!(29400), dec!(33000)],
                [dec!(33000), dec!(33000), dec!(30000), dec!(30000)],
            ],
            Day::Crash => [
                [dec!(30000), dec!(30000), dec!(29400), dec!(29400)],
                [dec!(29400), dec!(29400), dec!(27600), dec!(27600)],
                [dec!(27600), dec!(30000), dec!(27600), dec!(30000)],
            ],
        };
        for m in 0..1440 {
            let prices = match m {
                2..=4 => moves[m as usize - 2],
                _ => flat,
            };
            candles.push(candle(start + m * MINUTE_MS, prices));
        }
        for (minute, rating) in [(1, "STRONG_BUY"), (600, "NEUTRAL")] {
            signals.push(ScriptedSignal {
                at_ms: start + minute * MINUTE_MS,
                candle_ms: start + (minute - 1) * MINUTE_MS,
                symbol: "BTCUSDT".into(),
                rating: rating.into(),
                stored: None,
            });
        }
    }
    (BTreeMap::from([("BTCUSDT".to_string(), candles)]), signals)
}

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

fn base(days: &[Day]) -> Backtest {
    let (candles, signals) = history(days);
    Backtest {
        settings: BotSettings {
            use_trailing_stop: false,
            user_timezone: "UTC".into(),
            ..BotSettings::default()
        },
        instruments: vec![btc()],
        candles: Candles::Loaded(Arc::new(candles)),
        from_ms: first_ms(),
        signals: Signals::Scripted(Arc::new(signals)),
        funding: FundingRates::None,
        paper: PaperConfig {
            slippage_bps: dec!(0),
            ..PaperConfig::default()
        },
        walk_every_candle: false,
    }
}

fn stops() -> Vec<Axis> {
    vec![Axis {
        field: "initial_stop_loss_pct".into(),
        values: vec![json!(2), json!(8)],
    }]
}

// Each trade is 0.033 BTC (100 USDT of margin at 10x), fees 0.055 % of each fill.
/// The 2 % stop, any day: -600 x 0.033, less the fees at 30,000 and 29,400.
fn stopped_at_2() -> Decimal {
    dec!(-19.8) - dec!(0.5445) - dec!(0.53361)
}
/// The 8 % stop on a rally day: 0.016 x 3,000 taken at 33,000, 0.017 back at 30,000.
fn rally_at_8() -> Decimal {
    dec!(48) - dec!(0.5445) - dec!(0.2904) - dec!(0.2805)
}
/// The 8 % stop on a crash day: -2,400 x 0.033, less the fees at 30,000 and 27,600.
fn crash_at_8() -> Decimal {
    dec!(-79.2) - dec!(0.5445) - dec!(0.50094)
}

#[test]
fn the_windows_are_consecutive_tests_each_after_its_training_the_last_ending_on_the_last_day() {
    let plan = WalkForward {
        train_days: 2,
        test_days: 1,
        metric: Metric::TotalPnl,
    };
    let layout = plan.layout(date(16), date(20));
    let w = |a, b, c, d| Window {
        train_from: date(a),
        train_to: date(b),
        test_from: date(c),
        test_to: date(d),
    };
    assert_eq!(
        layout.windows,
        vec![w(16, 17, 18, 18), w(17, 18, 19, 19), w(18, 19, 20, 20)]
    );
    assert_eq!(layout.unused, None);
    // 6 days, 2 + 3: one window; the first day is left over.
    let longer = WalkForward {
        train_days: 2,
        test_days: 3,
        metric: Metric::TotalPnl,
    };
    let layout = longer.layout(date(16), date(21));
    assert_eq!(layout.windows, vec![w(17, 18, 19, 21)]);
    assert_eq!(layout.unused, Some((date(16), date(16))));
    // Too short, or a window of no day.
    assert_eq!(
        longer.problems(date(16), date(19)),
        vec![
            "The period (4 days) is shorter than one training window and one test window (2 + 3 days)."
        ]
    );
    let empty = WalkForward {
        train_days: 0,
        test_days: -1,
        metric: Metric::TotalPnl,
    };
    assert_eq!(
        empty.problems(date(16), date(21)),
        vec![
            "train_days must be at least 1 day.",
            "test_days must be at least 1 day."
        ]
    );
}

#[test]
fn far_below_means_less_than_half_the_training_pnl_a_day() {
    // 100 over 10 training days is 10 a day: 4.99 a day over 2 test days is far below.
    assert!(far_below(dec!(100), 10, dec!(9.98), 2));
    assert!(!far_below(dec!(100), 10, dec!(10), 2));
    assert!(far_below(dec!(100), 10, dec!(-1), 2));
    // A training window that lost promised nothing.
    assert!(!far_below(dec!(-5), 10, dec!(-50), 2));
    assert!(!far_below(dec!(0), 10, dec!(-50), 2));
}

#[tokio::test]
async fn each_window_trades_the_best_training_cell_and_chains_the_balance() {
    use Day::{Crash, Rally};
    let days = [Rally, Rally, Crash, Crash, Rally];
    let run = base(&days);
    let plan = WalkForward {
        train_days: 2,
        test_days: 1,
        metric: Metric::TotalPnl,
    };
    let layout = plan.layout(date(16), date(20));
    let for_thread = run.clone();
    let (plan_t, layout_t) = (plan, layout.clone());
    let progress = Arc::new(Progress::default());
    let watched = progress.clone();
    let walked = tokio::task::spawn_blocking(move || {
        walk_forward(
            &for_thread,
            &stops(),
            &plan_t,
            &layout_t,
            chrono_tz::UTC,
            2,
            &watched,
        )
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(progress.share(), 1.0);
    assert_eq!(walked.windows.len(), 3);

    // Window 1: trained on rally, rally: 2 % loses twice, 8 % wins twice.
    // Window 2: rally, crash: 2 % loses 2 x 20.88, 8 % wins 46.88 and loses 80.25: 8 %.
    // Window 3: crash, crash: 2 % loses 2 x 20.88, 8 % loses 2 x 80.25: 2 %.
    let chosen: Vec<_> = walked
        .windows
        .iter()
        .map(|w| w.chosen.as_ref().unwrap()["initial_stop_loss_pct"].clone())
        .collect();
    assert_eq!(chosen, vec![json!(8), json!(8), json!(2)]);
    let in_sample: Vec<Decimal> = walked
        .windows
        .iter()
        .map(|w| w.in_sample.as_ref().unwrap().closed_pnl)
        .collect();
    assert_eq!(
        in_sample,
        vec![
            rally_at_8() * dec!(2),
            rally_at_8() + crash_at_8(),
            stopped_at_2() * dec!(2)
        ]
    );
    // Traded on the next day: crash (8 %), crash (8 %), rally (2 %).
    let out: Vec<Decimal> = walked
        .windows
        .iter()
        .map(|w| w.out_of_sample.as_ref().unwrap().closed_pnl)
        .collect();
    assert_eq!(out, vec![crash_at_8(), crash_at_8(), stopped_at_2()]);
    // Only window 1 promised anything (its training made money) and its test lost.
    let warned: Vec<bool> = walked.windows.iter().map(|w| w.far_below).collect();
    assert_eq!(warned, vec![true, false, false]);
    assert_eq!(walked.out_of_sample_pnl, out.iter().sum::<Decimal>());
    assert_eq!(walked.in_sample_pnl, in_sample.iter().sum::<Decimal>());
    assert!(walked.far_below);

    // Each test window starts from the balance the ones before left.
    let starts: Vec<Decimal> = walked
        .windows
        .iter()
        .map(|w| w.out_of_sample.as_ref().unwrap().starting_balance)
        .collect();
    let start = dec!(10000);
    assert_eq!(
        starts,
        vec![start, start + crash_at_8(), start + crash_at_8() * dec!(2)]
    );
    // The curve: the pnl since the first test began, after each test trade's close
    // (minute 3 of days 3 and 4, minute 2 of day 5).
    let closes = [
        first_ms() + 2 * DAY_MS + 3 * MINUTE_MS,
        first_ms() + 3 * DAY_MS + 3 * MINUTE_MS,
        first_ms() + 4 * DAY_MS + 2 * MINUTE_MS,
    ];
    let levels = [-80.24544, -160.49088, -181.36899];
    assert_eq!(walked.equity.len(), 3, "{:?}", walked.equity);
    for ((at, level), (close, expected)) in walked.equity.iter().zip(closes.iter().zip(levels)) {
        assert!(*at >= *close && *at < close + MINUTE_MS, "{at} vs {close}");
        assert!((level - expected).abs() < 1e-9, "{level} vs {expected}");
    }

    // Window 3's test is the single run of the 2 % stop on 2026-11-20 from its balance,
    // with the whole history before it.
    let (all, signals) = history(&days);
    let single = Backtest {
        settings: BotSettings {
            initial_stop_loss_pct: dec!(2),
            ..run.settings.clone()
        },
        candles: Candles::Loaded(Arc::new(all)),
        signals: Signals::Scripted(Arc::new(signals)),
        from_ms: first_ms() + 4 * DAY_MS,
        paper: PaperConfig {
            starting_balance: starts[2],
            ..run.paper.clone()
        },
        ..run.clone()
    };
    let alone = single.run(&Progress::default()).await.unwrap();
    assert_eq!(
        walked.windows[2].out_of_sample.as_ref().unwrap(),
        &alone.summary
    );
}

#[tokio::test]
async fn equal_scores_go_to_the_first_cell_and_pnl_over_drawdown_is_pnl_per_usdt_of_fall() {
    use Day::{Crash, Rally};
    // Trained on crash, rally, rally: the 8 % stop makes 13.52 after a fall of 80.25.
    let days = [Crash, Rally, Rally, Rally];
    let layout_of = |plan: &WalkForward| plan.layout(date(16), date(19));
    // Twice the same value: equal scores, the first is picked.
    let same = vec![Axis {
        field: "initial_stop_loss_pct".into(),
        values: vec![json!(8), json!(8.0)],
    }];
    let plan = WalkForward {
        train_days: 3,
        test_days: 1,
        metric: Metric::PnlOverDrawdown,
    };
    let run = base(&days);
    let layout = layout_of(&plan);
    let walked = tokio::task::spawn_blocking(move || {
        walk_forward(
            &run,
            &same,
            &plan,
            &layout,
            chrono_tz::UTC,
            2,
            &Progress::default(),
        )
    })
    .await
    .unwrap()
    .unwrap();
    let window = &walked.windows[0];
    assert_eq!(
        window.chosen.as_ref().unwrap()["initial_stop_loss_pct"],
        json!(8)
    );
    let pnl = crash_at_8() + rally_at_8() * dec!(2);
    assert_eq!(window.in_sample.as_ref().unwrap().closed_pnl, pnl);
    assert_eq!(
        window.in_sample.as_ref().unwrap().max_drawdown_usdt,
        -crash_at_8()
    );
    assert_eq!(window.in_sample_score, Some(pnl / -crash_at_8()));
}
