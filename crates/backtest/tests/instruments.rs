//! Bybit's instruments in backtests on stored candles, on every database: `candles fetch`
//! stores a symbol's instrument and risk limit tiers from the fake Bybit (refusing one Bybit
//! does not trade, storing nothing), a run trades a symbol the simulated market does not
//! have on Bybit's steps and liquidates at its first tier's maintenance rate, and a run on
//! candles whose instrument was never fetched is refused with the command to run.

use std::sync::Arc;
use std::time::Duration;

use chrono::{NaiveDate, TimeZone, Utc};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::json;
use signaldesk_backtest::data::simulated_minutes;
use signaldesk_backtest::fetch::fetch_candles;
use signaldesk_backtest::fetch_instruments::fetch_instruments;
use signaldesk_backtest::{
    Backtest, BacktestError, Data, Market, Progress, Request, ScriptedSignal, Signals, Source,
};
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_core::settings::BotSettings;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, RiskTier};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, StoredInstrument, Trade, TradeStatus};
use signaldesk_venue::bybit::http::BybitHttpClient;
use signaldesk_venue::market::sim::default_symbols;
use signaldesk_venue::paper::PaperConfig;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 1440 * MINUTE_MS;

/// Bybit's WIFUSDT as the fake lists it: a tick and a quantity step the simulated market
/// has for none of its symbols.
fn wif() -> Instrument {
    Instrument {
        symbol: "WIFUSDT".into(),
        tick_size: dec!(0.0005),
        qty_step: dec!(5),
        min_qty: dec!(10),
        min_notional: dec!(5),
        max_leverage: 25,
    }
}

/// WIFUSDT's risk limit: 2 % maintenance up to 200,000 USDT, then 3 %.
fn wif_tiers() -> Vec<RiskTier> {
    vec![
        RiskTier {
            risk_limit_value: dec!(200000),
            maintenance_margin: dec!(0.02),
            initial_margin: dec!(0.04),
            max_leverage: dec!(25),
            mm_deduction: None,
        },
        RiskTier {
            risk_limit_value: dec!(400000),
            maintenance_margin: dec!(0.03),
            initial_margin: dec!(0.05),
            max_leverage: dec!(20),
            mm_deduction: Some(dec!(2000)),
        },
    ]
}

#[test]
fn wif_is_not_a_symbol_of_the_simulated_market_nor_on_any_of_its_steps() {
    for spec in default_symbols() {
        let i = spec.instrument;
        assert_ne!(i.symbol, "WIFUSDT");
        assert_ne!(i.tick_size, wif().tick_size, "{}", i.symbol);
        assert_ne!(i.qty_step, wif().qty_step, "{}", i.symbol);
    }
}

/// The first of the five days of history: three of warm-up (300 quarter hours is 75
/// hours; the first 3 are before the history), then the two traded days.
fn start_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis()
}

fn traded_days() -> (NaiveDate, NaiveDate) {
    (
        NaiveDate::from_ymd_opt(2026, 11, 4).unwrap(),
        NaiveDate::from_ymd_opt(2026, 11, 5).unwrap(),
    )
}

/// The end of the history: the end of the traded days.
fn history_end_ms() -> i64 {
    start_ms() + 5 * DAY_MS
}

/// A moving WIF history on its tick: the simulated market's ADA minutes, four times the
/// price, each price rounded to WIF's tick (Bybit's prices are whole ticks).
fn wif_minutes() -> Vec<Candle> {
    let symbols = ["ADAUSDT".to_string()];
    let (_, minutes) = simulated_minutes(11, &symbols, start_ms(), history_end_ms()).unwrap();
    let on_tick = |p: Decimal| wif().round_price(p * dec!(4));
    minutes["ADAUSDT"]
        .iter()
        .map(|c| Candle {
            open: on_tick(c.open),
            high: on_tick(c.high),
            low: on_tick(c.low),
            close: on_tick(c.close),
            ..c.clone()
        })
        .collect()
}

async fn fake() -> FakeBybit {
    let mut instruments: Vec<Instrument> = default_symbols()
        .into_iter()
        .map(|s| s.instrument)
        .collect();
    instruments.push(wif());
    let fake = FakeBybit::start(FakeConfig::new(instruments))
        .await
        .unwrap();
    fake.set_risk_tiers("WIFUSDT", wif_tiers());
    fake.add_klines("WIFUSDT", &wif_minutes());
    fake
}

fn client(fake: &FakeBybit) -> BybitHttpClient {
    BybitHttpClient::new(&fake.rest_url(), Duration::from_secs(5)).unwrap()
}

fn market() -> Market {
    Market {
        seed: 0,
        interval_minutes: 15,
        paper: PaperConfig::default(),
    }
}

/// A run of the traded days on stored Bybit history, with `overrides` on the defaults (in
/// UTC).
async fn stored_run(
    store: &Store,
    symbols: &[&str],
    overrides: serde_json::Value,
    market: &Market,
) -> Result<Backtest, BacktestError> {
    let mut overrides = overrides.as_object().cloned().unwrap_or_default();
    overrides.insert("user_timezone".into(), json!("UTC"));
    let (date_from, date_to) = traded_days();
    let request = Request {
        date_from,
        date_to,
        symbols: symbols.iter().map(|s| s.to_string()).collect(),
        source: Source::Ratings,
        data: Data::Bybit,
        overrides,
        sweep: Vec::new(),
        walk_forward: None,
    };
    let today = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
    let checked = request.check(&BotSettings::default(), today)?;
    checked.check_stored(store).await?;
    checked.load(market, store, 1).await
}

async fn run(backtest: Backtest) -> signaldesk_backtest::Outcome {
    tokio::task::spawn_blocking(move || backtest.run_on_a_core(&Progress::default()))
        .await
        .unwrap()
        .unwrap()
}

fn assert_on_bybit_s_steps(trades: &[Trade]) {
    let wif = wif();
    for t in trades {
        let entry = t.entry_price.unwrap();
        assert!(wif.is_on_tick(entry), "entry {entry}: {t:?}");
        assert!(wif.is_on_step(t.qty) && t.qty >= wif.min_qty, "qty: {t:?}");
        assert!(wif.is_on_step(t.closed_qty), "closed: {t:?}");
        if let Some(stop) = t.stop_loss {
            assert!(wif.is_on_tick(stop), "stop {stop}: {t:?}");
        }
        // One close (no take profit taken before it): its price is the exit price.
        if let (TradeStatus::Closed, 0, Some(exit)) = (t.status, t.tp_step, t.exit_price) {
            assert!(wif.is_on_tick(exit), "exit {exit}: {t:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symbol_the_simulated_market_lacks_is_fetched_and_traded_on_bybit_s_instrument() {
    for (db, store) in TestDatabase::all_connected().await {
        let fake = fake().await;
        let client = client(&fake);
        let symbols = ["WIFUSDT".to_string()];
        let fetched = fetch_instruments(&client, &store, &symbols, Duration::ZERO)
            .await
            .unwrap();
        let stored = store.instrument("WIFUSDT").await.unwrap().unwrap();
        assert_eq!(fetched, std::slice::from_ref(&stored), "{}", db.url);
        assert_eq!(stored.instrument, wif(), "{}", db.url);
        let rates: Vec<Decimal> = stored
            .risk_tiers
            .iter()
            .map(|t| t.maintenance_margin_rate)
            .collect();
        assert_eq!(rates, [dec!(0.02), dec!(0.03)], "{}", db.url);
        assert_eq!(stored.risk_tiers[1].mm_deduction, dec!(2000));
        let candles = fetch_candles(
            &client,
            &store,
            "WIFUSDT",
            start_ms(),
            history_end_ms(),
            Duration::ZERO,
            |_, _| {},
        )
        .await
        .unwrap();
        assert_eq!(candles.missing, 0, "{}", db.url);

        let overrides = json!({"initial_stop_loss_pct": 1, "take_profit_first_pct": 0.5});
        let backtest = stored_run(&store, &["WIFUSDT"], overrides, &market())
            .await
            .unwrap();
        assert_eq!(backtest.instruments, [wif()], "{}", db.url);
        assert_eq!(
            backtest.paper.maintenance_margin_rate_of("WIFUSDT"),
            dec!(0.02)
        );
        let outcome = run(backtest).await;
        assert!(outcome.trades.len() >= 3, "{}: {:#?}", db.url, outcome.log);
        assert_on_bybit_s_steps(&outcome.trades);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_is_liquidated_at_the_first_risk_tier_s_maintenance_rate() {
    for (db, store) in TestDatabase::all_connected().await {
        // WIF at 2 until one minute that gaps to 1.80, an hour into the traded days, then at
        // 1.85; a buy signal the minute before.
        let traded_from = start_ms() + 3 * DAY_MS;
        let gap_ms = traded_from + 61 * MINUTE_MS;
        let flat: Vec<Candle> = (start_ms()..history_end_ms())
            .step_by(MINUTE_MS as usize)
            .map(|t| {
                let (low, close) = if t == gap_ms {
                    (dec!(1.8), dec!(1.85))
                } else if t > gap_ms {
                    (dec!(1.85), dec!(1.85))
                } else {
                    (dec!(2), dec!(2))
                };
                Candle {
                    open_time_ms: t,
                    open: if t > gap_ms { close } else { dec!(2) },
                    high: if t > gap_ms { close } else { dec!(2) },
                    low,
                    close,
                    volume: dec!(1),
                }
            })
            .collect();
        store.save_candles("WIFUSDT", &flat).await.unwrap();
        let mut tiers = vec![
            tier(dec!(200000), dec!(0.02)),
            tier(dec!(400000), dec!(0.03)),
        ];
        tiers[1].mm_deduction = dec!(2000);
        store
            .save_instrument(&StoredInstrument {
                instrument: wif(),
                risk_tiers: tiers,
                fetched_at: 0,
            })
            .await
            .unwrap();
        let no_slippage = Market {
            paper: PaperConfig {
                slippage_bps: dec!(0),
                ..PaperConfig::default()
            },
            ..market()
        };
        let overrides = json!({
            "leverage": 20, "initial_stop_loss_pct": 2, "use_trailing_stop": false
        });
        let mut backtest = stored_run(&store, &["WIFUSDT"], overrides, &no_slippage)
            .await
            .unwrap();
        backtest.signals = Signals::Scripted(Arc::new(vec![ScriptedSignal {
            at_ms: gap_ms - MINUTE_MS,
            candle_ms: gap_ms - MINUTE_MS,
            symbol: "WIFUSDT".into(),
            rating: "STRONG_BUY".into(),
            stored: None,
        }]));
        let outcome = run(backtest).await;
        let [trade] = outcome.trades.as_slice() else {
            panic!("{}: {:#?}", db.url, outcome.log);
        };
        assert_eq!(trade.entry_price, Some(dec!(2)), "{}", db.url);
        // The stop (1.96) is placed above the liquidation price; the gap to 1.80 jumps both,
        // so the long is liquidated at 2 x (1 + 0.02) - 2 / 20 = 1.94 (1.91 at the paper
        // exchange's 0.5 %, 1.96 at the second tier's 3 %, where no stop could be placed).
        assert_eq!(trade.stop_loss, Some(dec!(1.96)), "{}", db.url);
        assert_eq!(
            trade.close_reason.as_deref(),
            Some("liquidation"),
            "{}",
            db.url
        );
        assert_eq!(trade.exit_price, Some(dec!(1.94)), "{}", db.url);
    }
}

fn tier(value: Decimal, rate: Decimal) -> signaldesk_core::market::RiskTier {
    signaldesk_core::market::RiskTier {
        risk_limit_value: value,
        maintenance_margin_rate: rate,
        mm_deduction: dec!(0),
        max_leverage: dec!(25),
    }
}

#[tokio::test]
async fn a_symbol_bybit_does_not_trade_is_refused_by_name_and_nothing_is_stored() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let fake = fake().await;
    let client = client(&fake);
    let symbols = ["WIFUSDT".to_string(), "NOPEUSDT".to_string()];
    let refused = fetch_instruments(&client, &store, &symbols, Duration::ZERO).await;
    match refused {
        Err(BacktestError::NotOnBybit { symbol, .. }) => assert_eq!(symbol, "NOPEUSDT"),
        other => panic!("{other:?}"),
    }
    let error = fetch_instruments(&client, &store, &symbols, Duration::ZERO)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("NOPEUSDT") && error.contains("instruments-info"),
        "{error}"
    );
    assert_eq!(store.instrument("WIFUSDT").await.unwrap(), None);

    // Listed, but without a risk limit table: no maintenance rate to trade with.
    fake.set_risk_tiers("WIFUSDT", Vec::new());
    let error = fetch_instruments(&client, &store, &symbols[..1], Duration::ZERO)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("WIFUSDT") && error.contains("risk limit"),
        "{error}"
    );
    assert_eq!(store.instrument("WIFUSDT").await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_candles_without_their_instrument_are_refused_with_the_command_to_run() {
    for (db, store) in TestDatabase::all_connected().await {
        store.save_candles("WIFUSDT", &wif_minutes()).await.unwrap();
        let refused = stored_run(&store, &["WIFUSDT"], json!({}), &market()).await;
        let Err(BacktestError::Invalid(fields)) = refused else {
            panic!("{}: {refused:?}", db.url);
        };
        let said = fields["data"].join(" ");
        assert!(
            said.contains("No Bybit instrument")
                && said.contains("WIFUSDT")
                && said.contains("signaldesk candles fetch --symbols WIFUSDT"),
            "{said}"
        );
        // Not refused for the candles: they cover the period.
        assert!(!said.contains("do not cover"), "{said}");
    }
}
