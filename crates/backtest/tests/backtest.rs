//! A backtest trades exactly as the live worker does on the same signals and prices (the
//! figures of the engine's scenario tests, crates/engine/tests/trading.rs), and the same
//! history gives the same trades every time.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{TimeZone, Utc};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_backtest::data::simulated_minutes;
use signaldesk_backtest::{Backtest, BacktestError, Candles, Progress, ScriptedSignal, Signals};
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_core::settings::BotSettings;
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::paper::PaperConfig;

use common::comparable;

const MINUTE_MS: i64 = 60_000;

/// Monday 2026-11-23 12:00 UTC, as in the engine's scenarios.
fn start_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
        .unwrap()
        .timestamp_millis()
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

/// The defaults with the trailing stop off (the scenarios' `classic()`).
fn classic() -> BotSettings {
    BotSettings {
        use_trailing_stop: false,
        ..BotSettings::default()
    }
}

/// BTC minutes from `start_ms()`, each `[open, high, low, close]`.
fn minutes(prices: &[[Decimal; 4]]) -> BTreeMap<String, Vec<Candle>> {
    let candles = prices
        .iter()
        .enumerate()
        .map(|(i, [open, high, low, close])| Candle {
            open_time_ms: start_ms() + i as i64 * MINUTE_MS,
            open: *open,
            high: *high,
            low: *low,
            close: *close,
            volume: dec!(1),
        })
        .collect();
    BTreeMap::from([("BTCUSDT".to_string(), candles)])
}

/// STRONG_BUY on BTC at the start of minute 1, on a paper exchange without slippage.
fn scripted(prices: &[[Decimal; 4]]) -> Backtest {
    Backtest {
        settings: classic(),
        instruments: vec![btc()],
        candles: Candles::Loaded(Arc::new(minutes(prices))),
        from_ms: start_ms(),
        signals: Signals::Scripted(Arc::new(vec![ScriptedSignal {
            at_ms: start_ms() + MINUTE_MS,
            candle_ms: start_ms(),
            symbol: "BTCUSDT".into(),
            rating: "STRONG_BUY".into(),
            stored: None,
        }])),
        paper: PaperConfig {
            slippage_bps: dec!(0),
            ..PaperConfig::default()
        },
        funding: FundingRates::None,
        walk_every_candle: false,
    }
}

#[tokio::test]
async fn the_stop_loss_closes_the_trade_as_in_the_live_scenario() {
    let run = scripted(&[
        [dec!(30000), dec!(30000), dec!(30000), dec!(30000)],
        // Down through 28,600 to the stop at 28,500 (5 % below the entry).
        [dec!(30000), dec!(30000), dec!(28500), dec!(28700)],
        [dec!(28700), dec!(28800), dec!(28600), dec!(28700)],
    ]);
    let outcome = run.run(&Progress::default()).await.unwrap();
    assert_eq!(outcome.trades.len(), 1, "{:#?}", outcome.log);
    let t = &outcome.trades[0];
    assert_eq!(t.status, TradeStatus::Closed);
    assert_eq!(t.entry_price, Some(dec!(30000)));
    assert_eq!(t.qty, dec!(0.033));
    assert_eq!(t.close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(t.exit_price, Some(dec!(28500)));
    // The live scenario's figure: (28,500 - 30,000) x 0.033 - 0.5445 - 0.517275.
    assert_eq!(t.pnl, dec!(-49.5) - dec!(0.5445) - dec!(0.517275));
    let s = &outcome.summary;
    assert_eq!((s.stats.total_trades, s.stats.lose_trades), (1, 1));
    assert_eq!(s.final_balance, dec!(10000) + t.pnl);
    assert_eq!(s.open_at_end, 0);
}

#[tokio::test]
async fn the_take_profit_ladder_and_the_break_even_stop_as_in_the_live_scenario() {
    let run = scripted(&[
        [dec!(30000), dec!(30000), dec!(30000), dec!(30000)],
        // +10 %: half of 0.033 (0.016) taken at 33,000, the stop to break-even.
        [dec!(30000), dec!(33000), dec!(30000), dec!(33000)],
        // +20 %: half of 0.017 (0.008) at 36,000.
        [dec!(33000), dec!(36000), dec!(33000), dec!(36000)],
        // Back to the entry: the rest (0.009) stopped at break-even.
        [dec!(36000), dec!(36000), dec!(30000), dec!(30000)],
    ]);
    let outcome = run.run(&Progress::default()).await.unwrap();
    assert_eq!(outcome.trades.len(), 1, "{:#?}", outcome.log);
    let t = &outcome.trades[0];
    assert_eq!(t.status, TradeStatus::Closed);
    assert_eq!(t.tp_step, 2);
    assert_eq!(t.close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(t.stop_loss, Some(dec!(30000)));
    // 0.016 x 3,000 + 0.008 x 6,000 + 0, less the fees of 0.033 at 30,000, 0.016 at
    // 33,000, 0.008 at 36,000 and 0.009 at 30,000 (0.055 %).
    let fees = dec!(0.5445) + dec!(0.2904) + dec!(0.1584) + dec!(0.1485);
    assert_eq!(t.fees, fees);
    assert_eq!(t.pnl, dec!(96) - fees);
    assert!(outcome
        .log
        .iter()
        .any(|l| l.contains("stop loss moved to break-even at 30000")));
}

#[tokio::test]
async fn the_same_history_gives_the_same_trades() {
    let symbols: Vec<String> = ["BTCUSDT", "ETHUSDT", "SOLUSDT"].map(String::from).to_vec();
    let from = start_ms();
    let (instruments, candles) =
        simulated_minutes(7, &symbols, from - 2 * 86_400_000, from + 86_400_000).unwrap();
    assert_eq!(candles["BTCUSDT"].len(), 3 * 1440);
    let run = Backtest {
        settings: BotSettings::default(),
        instruments,
        candles: Candles::Loaded(Arc::new(candles)),
        from_ms: from,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };
    let progress = Progress::default();
    let first = run.run(&progress).await.unwrap();
    let second = run.run(&Progress::default()).await.unwrap();
    assert!(
        first.trades.len() >= 3,
        "too few trades to compare: {:#?}",
        first.log
    );
    // Everything but the opening orders' ids, which are unique by design (a random part).
    let results = |trades: &[Trade]| {
        trades
            .iter()
            .map(|t| Trade {
                client_order_id: String::new(),
                ..t.clone()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(results(&first.trades), results(&second.trades));
    assert_eq!(first.summary, second.summary);
    assert_eq!(progress.share(), 1.0);
    // Nothing traded during the warm-up.
    assert!(first.trades.iter().all(|t| t.created_at >= from));
}

#[tokio::test]
async fn a_cancelled_run_stops_and_says_so() {
    let symbols = vec!["BTCUSDT".to_string()];
    let from = start_ms();
    let (instruments, minutes) =
        simulated_minutes(7, &symbols, from - 86_400_000, from + 86_400_000).unwrap();
    let run = Backtest {
        settings: BotSettings::default(),
        instruments,
        candles: Candles::Loaded(Arc::new(minutes)),
        from_ms: from,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };
    let progress = Progress::default();
    progress.cancel();
    let stopped = run.run(&progress).await;
    assert!(
        matches!(stopped, Err(BacktestError::Cancelled)),
        "{stopped:?}"
    );
    assert_eq!(progress.share(), 0.0);
}

#[tokio::test]
async fn a_sweep_computes_the_signals_once_and_each_cell_is_the_single_run_of_its_settings() {
    use signaldesk_backtest::sweep::{combinations, sweep, Axis};
    let symbols: Vec<String> = ["BTCUSDT", "SOLUSDT"].map(String::from).to_vec();
    let from = start_ms();
    let (instruments, minutes) =
        simulated_minutes(7, &symbols, from - 2 * 86_400_000, from + 86_400_000).unwrap();
    let base = Backtest {
        settings: BotSettings::default(),
        instruments,
        candles: Candles::Loaded(Arc::new(minutes)),
        from_ms: from,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };
    let axes = [
        Axis {
            field: "initial_stop_loss_pct".into(),
            values: vec![serde_json::json!(1), serde_json::json!(3)],
        },
        Axis {
            field: "take_profit_first_pct".into(),
            values: vec![serde_json::json!(2), serde_json::json!(-5)],
        },
    ];
    assert_eq!(combinations(&axes).len(), 4);
    let base_for_threads = base.clone();
    let cells = tokio::task::spawn_blocking(move || {
        sweep(&base_for_threads, &axes, 2, &Progress::default())
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(cells.len(), 4);
    // A value the settings refuse is that cell's error, not the sweep's.
    for cell in [&cells[1], &cells[3]] {
        let error = cell.outcome.as_ref().expect_err("-5 % is refused");
        assert!(error.contains("take_profit_first_pct"), "{error}");
    }
    // The cell (3 %, 2 %) is the single run of those settings, ratings computed in the run.
    let single = Backtest {
        settings: BotSettings {
            initial_stop_loss_pct: dec!(3),
            take_profit_first_pct: dec!(2),
            ..BotSettings::default()
        },
        ..base
    };
    let alone = single.run(&Progress::default()).await.unwrap();
    let cell = cells[2].outcome.as_ref().unwrap();
    assert!(cell.stats.total_trades > 0, "{cell:?}");
    assert_eq!(cell, &alone.summary);
    assert_ne!(
        cells[0].outcome.as_ref().unwrap(),
        cell,
        "the settings changed the result"
    );
}

#[tokio::test]
async fn skipping_quiet_candles_trades_exactly_as_walking_every_candle() {
    use signaldesk_core::settings::BotMode;
    let symbols: Vec<String> = ["BTCUSDT", "ETHUSDT", "SOLUSDT", "DOGEUSDT"]
        .map(String::from)
        .to_vec();
    let from = start_ms();
    let candles = Candles::Simulated {
        seed: 11,
        symbols: symbols.clone(),
        from_ms: from - 2 * 86_400_000,
        to_ms: from + 2 * 86_400_000,
    };
    let instruments = signaldesk_backtest::data::instruments_of(&symbols).unwrap();
    // Trailing stops, the take-profit ladder, tight stops and martingale chains: every
    // level the quiet bands must know of.
    let settings = [
        BotSettings::default(),
        BotSettings {
            initial_stop_loss_pct: dec!(1),
            take_profit_first_pct: dec!(0.5),
            ..classic()
        },
        BotSettings {
            bot_mode: BotMode::Martingale,
            initial_stop_loss_pct: dec!(1.5),
            ..BotSettings::default()
        },
    ];
    for settings in settings {
        let skipping = Backtest {
            settings: settings.clone(),
            instruments: instruments.clone(),
            candles: candles.clone(),
            from_ms: from,
            signals: Signals::Ratings {
                interval_minutes: 15,
            },
            funding: FundingRates::Simulated { seed: 11 },
            paper: PaperConfig::default(),
            walk_every_candle: false,
        };
        let walking = Backtest {
            walk_every_candle: true,
            ..skipping.clone()
        };
        let quick = skipping.run(&Progress::default()).await.unwrap();
        let slow = walking.run(&Progress::default()).await.unwrap();
        assert!(
            slow.trades.len() >= 5,
            "too few trades to compare: {:#?}",
            slow.log
        );
        assert_eq!(comparable(&quick.trades), comparable(&slow.trades));
        assert_eq!(quick.summary, slow.summary);
    }
}

#[tokio::test]
async fn a_run_generating_its_history_as_it_goes_equals_one_on_the_history_in_memory() {
    let symbols: Vec<String> = ["BTCUSDT", "XRPUSDT"].map(String::from).to_vec();
    let from = start_ms();
    let (instruments, loaded) =
        simulated_minutes(5, &symbols, from - 86_400_000, from + 86_400_000).unwrap();
    let in_memory = Backtest {
        settings: BotSettings::default(),
        instruments,
        candles: Candles::Loaded(Arc::new(loaded)),
        from_ms: from,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };
    let streamed = Backtest {
        candles: Candles::Simulated {
            seed: 5,
            symbols,
            from_ms: from - 86_400_000,
            to_ms: from + 86_400_000,
        },
        ..in_memory.clone()
    };
    let a = in_memory.run(&Progress::default()).await.unwrap();
    let b = streamed.run(&Progress::default()).await.unwrap();
    assert!(!a.trades.is_empty(), "{:#?}", a.log);
    assert_eq!(comparable(&a.trades), comparable(&b.trades));
    assert_eq!(a.summary, b.summary);
}

#[tokio::test]
async fn a_position_held_across_settlements_pays_the_simulated_series() {
    use signaldesk_venue::market::funding::{settlements_between, simulated_rate};
    let seed = 5;
    let symbols = vec!["BTCUSDT".to_string()];
    let from = start_ms();
    let to = from + 2 * 86_400_000;
    let (instruments, loaded) = simulated_minutes(seed, &symbols, from, to).unwrap();
    let minutes = loaded["BTCUSDT"].clone();
    let run = Backtest {
        settings: BotSettings {
            initial_stop_loss_pct: dec!(50),
            take_profit_first_pct: dec!(50),
            leverage: 1,
            ..classic()
        },
        instruments,
        candles: Candles::Loaded(Arc::new(loaded)),
        funding: FundingRates::Simulated { seed },
        ..scripted(&[])
    };
    let outcome = run.run(&Progress::default()).await.unwrap();
    assert_eq!(outcome.trades.len(), 1, "{:#?}", outcome.log);
    let t = &outcome.trades[0];
    assert_eq!(t.status, TradeStatus::Open, "held to the end");
    let last_minute = minutes.last().unwrap().open_time_ms;
    let open_at = |at: i64| minutes.iter().find(|c| c.open_time_ms == at).unwrap().open;
    // A long pays qty x the price at the settlement (its minute's open) x the series' rate.
    let settled: Vec<i64> = settlements_between(t.opened_at.unwrap(), last_minute).collect();
    assert_eq!(settled.len(), 6);
    let expected: Decimal = settled
        .iter()
        .map(|&at| -(t.qty * open_at(at) * simulated_rate(seed, "BTCUSDT", at)))
        .sum();
    assert_ne!(expected, Decimal::ZERO);
    assert_eq!(t.funding, expected);
    assert_eq!(outcome.summary.funding, expected);
    // The wallet moved by exactly the funding and the opening fee.
    assert_eq!(
        outcome.summary.final_balance,
        dec!(10000) - t.fees + expected
    );
}

#[tokio::test]
async fn a_circuit_breaker_holds_back_entries_in_a_backtest_as_live() {
    let flat = [dec!(30000); 4];
    let mut run = scripted(&[
        flat,
        flat,
        // The stop at 28,500 fires: a loss.
        [dec!(30000), dec!(30000), dec!(28500), dec!(28700)],
        [dec!(28700), dec!(30000), dec!(28700), dec!(30000)],
        flat,
        flat,
    ]);
    let signal = |minute: i64, rating: &str| ScriptedSignal {
        at_ms: start_ms() + minute * MINUTE_MS,
        candle_ms: start_ms() + (minute - 1) * MINUTE_MS,
        symbol: "BTCUSDT".into(),
        rating: rating.into(),
        stored: None,
    };
    run.signals = Signals::Scripted(Arc::new(vec![
        signal(1, "STRONG_BUY"),
        signal(3, "NEUTRAL"),
        signal(4, "STRONG_BUY"),
    ]));
    // Without a breaker the second signal opens a second trade.
    let outcome = run.run(&Progress::default()).await.unwrap();
    assert_eq!(outcome.trades.len(), 2, "{:#?}", outcome.log);

    run.settings.max_losses_in_row = 1;
    run.settings.losses_pause_minutes = 60;
    let outcome = run.run(&Progress::default()).await.unwrap();
    assert_eq!(outcome.trades.len(), 1, "{:#?}", outcome.log);
    assert_eq!(outcome.skipped.len(), 1, "{:#?}", outcome.log);
    assert!(
        outcome.skipped[0]
            .1
            .contains("losses-in-a-row breaker tripped"),
        "{:?}",
        outcome.skipped
    );
    assert!(outcome
        .log
        .iter()
        .any(|l| l.contains("Circuit breaker: the losses-in-a-row breaker tripped")));
}

#[tokio::test]
async fn books_kept_in_memory_give_the_same_trades_chains_and_log_as_the_stores_statements() {
    use signaldesk_backtest::ScratchBooks;
    use signaldesk_core::settings::BotMode;
    let symbols: Vec<String> = ["BTCUSDT", "ETHUSDT", "SOLUSDT", "DOGEUSDT"]
        .map(String::from)
        .to_vec();
    let from = start_ms();
    let candles = Candles::Simulated {
        seed: 11,
        symbols: symbols.clone(),
        from_ms: from - 2 * 86_400_000,
        to_ms: from + 2 * 86_400_000,
    };
    let instruments = signaldesk_backtest::data::instruments_of(&symbols).unwrap();
    // Every book the worker reads and writes: the take-profit ladder and trailing stops
    // (the busy case of issue 32), martingale chains, both circuit breakers (they read the
    // closed trades back) and funding (booked on its trade).
    let settings = [
        BotSettings {
            leverage: 10,
            initial_stop_loss_pct: dec!(0.2),
            take_profit_first_pct: dec!(0.4),
            take_profit_next_pct: dec!(0.4),
            trail_activation_pct: dec!(0.1),
            trail_step_pct: dec!(0.05),
            max_trades: 3,
            max_trade_usdt: dec!(100),
            max_total_usdt: dec!(300),
            ..BotSettings::default()
        },
        BotSettings {
            bot_mode: BotMode::Martingale,
            initial_stop_loss_pct: dec!(1),
            ..BotSettings::default()
        },
        BotSettings {
            initial_stop_loss_pct: dec!(0.5),
            take_profit_first_pct: dec!(0.5),
            daily_loss_limit_pct: dec!(0.2),
            max_losses_in_row: 2,
            losses_pause_minutes: 30,
            ..classic()
        },
    ];
    for settings in settings {
        let run = Backtest {
            settings,
            instruments: instruments.clone(),
            candles: candles.clone(),
            from_ms: from,
            signals: Signals::Ratings {
                interval_minutes: 15,
            },
            funding: FundingRates::Simulated { seed: 11 },
            paper: PaperConfig::default(),
            walk_every_candle: false,
        };
        let memory = run
            .run_keeping(ScratchBooks::Memory, &Progress::default())
            .await
            .unwrap();
        let store = run
            .run_keeping(ScratchBooks::Store, &Progress::default())
            .await
            .unwrap();
        assert!(
            store.trades.len() >= 5,
            "too few trades to compare: {:#?}",
            store.log
        );
        assert_eq!(comparable(&memory.trades), comparable(&store.trades));
        assert_eq!(memory.chains, store.chains);
        assert_eq!(memory.summary, store.summary);
        assert_eq!(memory.skipped, store.skipped);
        assert_eq!(memory.log, store.log);
        if run.settings.bot_mode == BotMode::Martingale {
            assert!(!store.chains.is_empty(), "no chain to compare");
        }
        if run.settings.max_losses_in_row > 0 {
            assert!(
                store.skipped.iter().any(|(_, why)| why.contains("breaker")),
                "no breaker tripped: {:?}",
                store.skipped
            );
        }
    }
}
