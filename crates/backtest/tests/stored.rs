//! A run on stored (Bybit) candles reads them from the database a day at a time, on every
//! database, and trades exactly as a run on the same candles held whole: with minutes
//! missing inside a day and across midnight, and symbols whose history starts late and ends
//! early.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{TimeZone, Utc};
use signaldesk_backtest::data::{fill_gaps, simulated_minutes};
use signaldesk_backtest::{Backtest, BacktestError, Candles, Progress, Signals, StoredCandles};
use signaldesk_core::market::Candle;
use signaldesk_core::settings::BotSettings;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::paper::PaperConfig;

use common::comparable;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 1440 * MINUTE_MS;

fn start_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 2, 0, 0, 0)
        .unwrap()
        .timestamp_millis()
}

/// The minutes Bybit "had": BTC without the five minutes either side of every midnight and
/// an hour and a half in the middle of a day; ETH from six hours in to three hours before
/// the end.
fn with_holes(symbol: &str, minutes: &[Candle], from_ms: i64, to_ms: i64) -> Vec<Candle> {
    minutes
        .iter()
        .filter(|c| {
            let t = c.open_time_ms;
            match symbol {
                "BTCUSDT" => {
                    let into_day = (t - from_ms).rem_euclid(DAY_MS);
                    let near_midnight =
                        !(5 * MINUTE_MS..DAY_MS - 5 * MINUTE_MS).contains(&into_day);
                    let midday = (from_ms + DAY_MS + 600 * MINUTE_MS
                        ..from_ms + DAY_MS + 690 * MINUTE_MS)
                        .contains(&t);
                    !near_midnight && !midday
                }
                _ => t >= from_ms + 360 * MINUTE_MS && t < to_ms - 180 * MINUTE_MS,
            }
        })
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_reading_stored_candles_as_it_goes_equals_one_on_them_held_whole() {
    let symbols: Vec<String> = ["BTCUSDT", "ETHUSDT"].map(String::from).to_vec();
    let trading_from = start_ms() + 3 * DAY_MS;
    let (from_ms, to_ms) = (start_ms(), trading_from + 3 * DAY_MS);
    let (instruments, minutes) = simulated_minutes(7, &symbols, from_ms, to_ms).unwrap();
    for (db, store) in TestDatabase::all_connected().await {
        let mut whole = BTreeMap::new();
        for symbol in &symbols {
            let kept = with_holes(symbol, &minutes[symbol], from_ms, to_ms);
            store.save_candles(symbol, &kept).await.unwrap();
            whole.insert(symbol.clone(), fill_gaps(kept));
        }
        let stored = StoredCandles::open(&store, &symbols, from_ms, to_ms)
            .await
            .unwrap();

        let read = Candles::Stored(stored.clone());
        let loaded = tokio::task::spawn_blocking(move || read.load())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(*loaded, whole, "{}: the stored minutes as read", db.url);

        let held = Backtest {
            settings: BotSettings::default(),
            instruments: instruments.clone(),
            candles: Candles::Loaded(Arc::new(whole)),
            from_ms: trading_from,
            signals: Signals::Ratings {
                interval_minutes: 15,
            },
            funding: FundingRates::None,
            paper: PaperConfig::default(),
            walk_every_candle: false,
        };
        let streamed = Backtest {
            candles: Candles::Stored(stored),
            ..held.clone()
        };
        let (a, b) = tokio::task::spawn_blocking(move || {
            (
                held.run_on_a_core(&Progress::default()),
                streamed.run_on_a_core(&Progress::default()),
            )
        })
        .await
        .unwrap();
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(a.trades.len() >= 3, "{}: {:#?}", db.url, a.log);
        assert_eq!(comparable(&a.trades), comparable(&b.trades), "{}", db.url);
        assert_eq!(a.summary, b.summary, "{}", db.url);
    }
}

/// A day of `symbol`'s stored candles, on a new SQLite database that has none.
async fn open_on_an_empty_database(symbol: &str) -> Result<StoredCandles, BacktestError> {
    let db = TestDatabase::sqlite();
    let store = signaldesk_store::Store::connect(&db.url).await.unwrap();
    let symbols = [symbol.to_string()];
    StoredCandles::open(&store, &symbols, start_ms(), start_ms() + DAY_MS).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symbol_without_stored_candles_is_named() {
    let refused = open_on_an_empty_database("SOLUSDT").await;
    assert!(
        matches!(&refused, Err(BacktestError::NoCandles(s)) if s == "SOLUSDT"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn stored_candles_are_not_read_through_a_single_threaded_runtime() {
    let refused = open_on_an_empty_database("BTCUSDT").await;
    assert!(
        matches!(&refused, Err(BacktestError::Data(why)) if why.contains("multi-threaded")),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_lost_during_the_run_fails_it_with_its_error() {
    let db = TestDatabase::sqlite();
    let store = signaldesk_store::Store::connect(&db.url).await.unwrap();
    let symbols = vec!["BTCUSDT".to_string()];
    let (from_ms, to_ms) = (start_ms(), start_ms() + 3 * DAY_MS);
    let (instruments, minutes) = simulated_minutes(7, &symbols, from_ms, to_ms).unwrap();
    store
        .save_candles("BTCUSDT", &minutes["BTCUSDT"])
        .await
        .unwrap();
    let stored = StoredCandles::open(&store, &symbols, from_ms, to_ms)
        .await
        .unwrap();
    store.close().await;
    let run = Backtest {
        settings: BotSettings::default(),
        instruments,
        candles: Candles::Stored(stored),
        from_ms: from_ms + DAY_MS,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };
    let failed = tokio::task::spawn_blocking(move || run.run_on_a_core(&Progress::default()))
        .await
        .unwrap();
    assert!(
        matches!(&failed, Err(BacktestError::Store(_))),
        "{:?}",
        failed.map(|o| o.trades.len())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_on_stored_history_charges_the_stored_funding_rates() {
    use rust_decimal::Decimal;
    use rust_decimal_macros::dec;
    use signaldesk_backtest::data::stored_history;
    use signaldesk_backtest::ScriptedSignal;
    use signaldesk_store::{StoredInstrument, TradeStatus};
    use signaldesk_venue::market::funding::settlements_between;

    let db = TestDatabase::sqlite();
    let store = signaldesk_store::Store::connect(&db.url).await.unwrap();
    let symbols = vec!["BTCUSDT".to_string()];
    let (from_ms, to_ms) = (start_ms(), start_ms() + 2 * DAY_MS);
    let (instruments, minutes) = simulated_minutes(3, &symbols, from_ms, to_ms).unwrap();
    let btc = &minutes["BTCUSDT"];
    store.save_candles("BTCUSDT", btc).await.unwrap();
    store
        .save_instrument(&StoredInstrument {
            instrument: instruments[0].clone(),
            risk_tiers: vec![signaldesk_core::market::RiskTier {
                risk_limit_value: dec!(2000000),
                maintenance_margin_rate: dec!(0.005),
                mm_deduction: dec!(0),
                max_leverage: dec!(100),
            }],
            fetched_at: 0,
        })
        .await
        .unwrap();
    // Bybit's rates: a different one at each settlement, one of them negative.
    let settlements: Vec<i64> = settlements_between(from_ms, to_ms).collect();
    let rates: Vec<(i64, Decimal)> = settlements
        .iter()
        .enumerate()
        .map(|(i, &at)| (at, Decimal::new(i as i64 * 7 - 10, 5)))
        .collect();
    store.save_funding_rates("BTCUSDT", &rates).await.unwrap();

    let history = stored_history(&store, &symbols, from_ms, from_ms, to_ms)
        .await
        .unwrap();
    let run = Backtest {
        settings: BotSettings {
            initial_stop_loss_pct: dec!(50),
            take_profit_first_pct: dec!(50),
            use_trailing_stop: false,
            leverage: 1,
            ..BotSettings::default()
        },
        instruments: history.instruments,
        candles: history.candles,
        funding: history.funding,
        from_ms,
        signals: Signals::Scripted(Arc::new(vec![ScriptedSignal {
            at_ms: from_ms + MINUTE_MS,
            candle_ms: from_ms,
            symbol: "BTCUSDT".into(),
            rating: "STRONG_BUY".into(),
            stored: None,
        }])),
        paper: PaperConfig::default(),
        walk_every_candle: false,
    };
    let outcome = tokio::task::spawn_blocking(move || run.run_on_a_core(&Progress::default()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome.trades.len(), 1, "{:#?}", outcome.log);
    let t = &outcome.trades[0];
    assert_eq!(t.status, TradeStatus::Open);
    let open_at = |at: i64| btc.iter().find(|c| c.open_time_ms == at).unwrap().open;
    let expected: Decimal = rates
        .iter()
        .filter(|(at, _)| *at < to_ms)
        .map(|&(at, rate)| -(t.qty * open_at(at) * rate))
        .sum();
    assert_eq!(settlements.len(), 6);
    assert_eq!(t.funding, expected);
    assert_eq!(outcome.summary.funding, expected);
    assert_eq!(
        outcome.summary.final_balance,
        PaperConfig::default().starting_balance - t.fees + expected
    );
}
