//! Backtest against reality (docs/parity.md), the report's side: a bot's trades of a period,
//! made by the trading worker and paper exchange on the live market's ticks from stored
//! signals, read back from the store and replayed by `parity` agree trade for trade (every
//! compared field, matched by the signal that opened each trade); a setting changed since,
//! and a trade closed by hand, are reported with their reasons. The whole live path (the
//! server's market, signal and trading workers in real time) is proven against its replay in
//! the server's tests (`crates/server/tests/api/parity.rs`).

use std::collections::HashSet;

use chrono::NaiveDate;
use rust_decimal_macros::dec;
use serde_json::{json, Map};
use signaldesk_backtest::parity::{self, AccountMarket, Replayed};
use signaldesk_backtest::replay::TickReplay;
use signaldesk_backtest::{Data, Market, Outcome, Request, ScriptedSignal, Source};
use signaldesk_core::account::AccountVenue;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::stats::local_dates_range;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, StoredSignal, Trade};
use signaldesk_venue::market::sim::{SimAnchor, SimConfig};
use signaldesk_venue::paper::PaperConfig;

fn market() -> Market {
    Market {
        seed: 42,
        interval_minutes: 15,
        paper: PaperConfig::default(),
    }
}

/// The live simulated market: its path began a day before the period.
fn anchor(from_ms: i64) -> SimAnchor {
    let origin = from_ms - 86_400_000;
    let config = SimConfig {
        seed: 42,
        start_ms: Some(origin),
        ..SimConfig::default()
    };
    SimAnchor::fresh(&config, origin)
}

fn account_market(from_ms: i64) -> AccountMarket {
    AccountMarket::Simulated {
        anchor: anchor(from_ms),
        paper: PaperConfig::default(),
    }
}

fn symbols() -> Vec<String> {
    ["BTCUSDT", "ETHUSDT", "SOLUSDT", "XRPUSDT"]
        .map(String::from)
        .to_vec()
}

fn period(settings: &BotSettings) -> (NaiveDate, NaiveDate, i64, i64) {
    let from = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
    let to = NaiveDate::from_ymd_opt(2026, 11, 11).unwrap();
    let (from_ms, to_ms) = local_dates_range(from, to, settings.timezone());
    (from, to, from_ms, to_ms)
}

/// What the bot did in the period: the rating engine's signals stored as the signal worker
/// stores them (with their ids), then the trading worker and the paper exchange trading on
/// them tick by tick on the live market's path with the user's settings; its trades go into
/// the user's books on the paper account.
async fn live_bot(store: &Store, user: i64, settings: &BotSettings) -> Outcome {
    let (from, to, from_ms, to_ms) = period(settings);
    let request = Request {
        date_from: from,
        date_to: to,
        symbols: symbols(),
        source: Source::Ratings,
        data: Data::Simulated,
        overrides: Map::new(),
        sweep: Vec::new(),
        walk_forward: None,
    };
    let rated = request
        .check(settings, to)
        .unwrap()
        .build(&market(), None, None)
        .await
        .unwrap();
    let mut stored = Vec::new();
    for s in rated.signals_once().unwrap().iter() {
        let row = store
            .insert_signal(&StoredSignal {
                id: 0,
                user_id: user,
                symbol: s.symbol.clone(),
                rating: s.rating.clone(),
                total: None,
                ma: None,
                osc: None,
                candle_time: s.candle_ms,
                source: "ratings".into(),
                created_at: s.at_ms,
            })
            .await
            .unwrap();
        stored.push(ScriptedSignal {
            stored: Some((row.id, row.source)),
            ..s.clone()
        });
    }
    let outcome = TickReplay {
        settings: settings.clone(),
        anchor: anchor(from_ms),
        symbols: symbols(),
        from_ms,
        to_ms,
        signals: stored,
        paper: PaperConfig::default(),
    }
    .run()
    .await
    .unwrap();
    for t in &outcome.trades {
        store
            .insert_trade(&Trade {
                user_id: user,
                venue: Some(AccountVenue::Paper),
                ..t.clone()
            })
            .await
            .unwrap();
    }
    outcome
}

async fn user_with(store: &Store, settings: &BotSettings) -> i64 {
    let user = store.create_user("trader", "-", 0).await.unwrap().id;
    let record = store.settings_or_default(user, 0).await.unwrap();
    store
        .update_settings(user, record.id, settings, 0)
        .await
        .unwrap();
    user
}

#[tokio::test]
async fn the_bots_own_trades_replayed_agree_trade_for_trade() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let settings = BotSettings::default();
    let user = user_with(&store, &settings).await;
    let live = live_bot(&store, user, &settings).await;
    assert!(live.trades.len() >= 3, "too few trades: {:#?}", live.log);

    let (_, _, from_ms, to_ms) = period(&settings);
    let report = parity::run(
        &store,
        user,
        AccountVenue::Paper,
        &settings,
        &account_market(from_ms),
        from_ms,
        to_ms,
    )
    .await
    .unwrap();
    assert_eq!(report.differences, 0, "{report:#?}");
    assert_eq!(
        report.rows.len(),
        live.trades.len(),
        "{:#?}",
        live.trades
            .iter()
            .map(|t| (
                t.status,
                t.signal_id,
                t.signal_at,
                t.opened_at,
                from_ms,
                to_ms
            ))
            .collect::<Vec<_>>()
    );
    assert!(report
        .rows
        .iter()
        .all(|r| r.agrees && r.signal_id.is_some()));
    assert_eq!(report.totals.live, report.totals.backtest);
    assert_eq!(report.totals.difference.pnl, dec!(0));
    let pnl: rust_decimal::Decimal = live.trades.iter().map(|t| t.pnl).sum();
    assert_eq!(report.totals.live.pnl, pnl);
    store.close().await;
}

#[tokio::test]
async fn a_setting_changed_since_and_a_manual_close_are_reported() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let settings = BotSettings::default();
    let user = user_with(&store, &settings).await;
    let live = live_bot(&store, user, &settings).await;
    let (_, _, from_ms, to_ms) = period(&settings);

    // At most one trade at a time now: the live trades opened while another was open are
    // live only, skipped by the backtest for max_trades.
    let changed = settings
        .apply(&Map::from_iter([("max_trades".to_string(), json!(1))]))
        .unwrap();
    let report = parity::run(
        &store,
        user,
        AccountVenue::Paper,
        &changed,
        &account_market(from_ms),
        from_ms,
        to_ms,
    )
    .await
    .unwrap();
    assert!(report.differences > 0, "{report:#?}");
    let skipped: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.backtest.is_none())
        .collect();
    assert!(!skipped.is_empty(), "{report:#?}");
    for row in &skipped {
        let reason = row.reason.as_deref().unwrap();
        assert!(reason.contains("max_trades"), "{reason}");
    }
    assert_eq!(
        report.totals.difference.trades,
        -(skipped.len() as i64) + report.rows.iter().filter(|r| r.live.is_none()).count() as i64
    );

    // A trade closed by hand live: the same trade on both sides, its exit differs.
    let mut books = live.trades.clone();
    let manual = books
        .iter_mut()
        .find(|t| t.exit_price.is_some())
        .expect("a closed trade");
    manual.close_reason = Some("manual".into());
    manual.exit_price = manual.exit_price.map(|p| p + dec!(1));
    manual.pnl += dec!(0.5);
    let ids: HashSet<i64> = books.iter().filter_map(|t| t.signal_id).collect();
    let report = parity::compare(
        from_ms,
        to_ms,
        Data::Simulated,
        &books,
        &ids,
        Replayed {
            trades: &live.trades,
            skipped: &[],
        },
    );
    assert_eq!(report.differences, 1, "{report:#?}");
    let row = report.rows.iter().find(|r| !r.agrees).unwrap();
    assert_eq!(row.reason.as_deref(), Some("Closed by hand live."));
    let d = row.difference.as_ref().unwrap();
    assert_eq!(d.exit_price, Some(dec!(-1)));
    assert_eq!(d.pnl, dec!(-0.5));
    assert_eq!(report.totals.difference.pnl, dec!(-0.5));

    // A trade still open live at the end of the period that the backtest closed.
    let mut books = live.trades.clone();
    let open = books
        .iter_mut()
        .find(|t| t.exit_price.is_some())
        .expect("a closed trade");
    open.status = signaldesk_store::TradeStatus::Open;
    open.closed_at = None;
    open.exit_price = None;
    let report = parity::compare(
        from_ms,
        to_ms,
        Data::Simulated,
        &books,
        &ids,
        Replayed {
            trades: &live.trades,
            skipped: &[],
        },
    );
    assert_eq!(report.differences, 1, "{report:#?}");
    let row = report.rows.iter().find(|r| !r.agrees).unwrap();
    assert_eq!(
        row.reason.as_deref(),
        Some("Not closed yet live at the end of the period.")
    );
    assert_eq!(row.difference.as_ref().unwrap().exit_price, None);
    store.close().await;
}
