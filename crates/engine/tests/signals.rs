//! The rating hub and a user's signal worker on a hand-moved market and a real SQLite store.

use std::sync::Arc;
use std::time::Duration;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_engine::signals::RatingHub;
mod common;

use signaldesk_core::signal::TradeSignal;
use signaldesk_engine::signal_worker::{Alert, ALERT_SWEEP};
use signaldesk_engine::{EngineError, UserEvent};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, WebhookAlert};
use signaldesk_venue::market::manual::ManualMarket;

const MINUTE: i64 = 60_000;

fn instrument(symbol: &str) -> Instrument {
    Instrument {
        symbol: symbol.into(),
        tick_size: dec!(0.01),
        qty_step: dec!(0.001),
        min_qty: dec!(0.001),
        min_notional: dec!(5),
        max_leverage: 100,
    }
}

fn candle(i: i64, close: Decimal) -> Candle {
    Candle {
        open_time_ms: i * MINUTE,
        open: close,
        high: close + dec!(1),
        low: close - dec!(1),
        close,
        volume: dec!(100),
    }
}

/// An alert as the webhook accepts it: kept with its claim (expiring `ttl_ms` after `at`),
/// then handed to the worker.
async fn accepted(store: &Store, user: i64, symbol: &str, rating: &'static str, at: i64) -> Alert {
    kept(store, user, symbol, rating, at, 300_000).await
}

async fn kept(
    store: &Store,
    user: i64,
    symbol: &str,
    rating: &'static str,
    at: i64,
    ttl_ms: i64,
) -> Alert {
    let body_hash = format!("{symbol}-{rating}-{at}");
    let alert = WebhookAlert {
        symbol: symbol.into(),
        rating: rating.into(),
        expires_at: at + ttl_ms,
    };
    assert!(store
        .claim_webhook_delivery(user, &body_hash, at, 10_000, &alert)
        .await
        .unwrap());
    Alert {
        symbol: symbol.into(),
        rating,
        received_at: at,
        body_hash,
    }
}

fn wall_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Polls the store until `check` holds (the worker runs on its own task).
async fn eventually<F: Fn(&[signaldesk_store::StoredSignal]) -> bool>(
    store: &Store,
    user: i64,
    check: F,
) -> Vec<signaldesk_store::StoredSignal> {
    for _ in 0..200 {
        let recent = store.recent_signals(user, 100).await.unwrap();
        if check(&recent) {
            return recent;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the condition never held");
}

#[tokio::test]
async fn a_falling_then_rising_market_is_rated_and_each_closed_candle_is_stored_for_the_user() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let market = Arc::new(ManualMarket::new(vec![instrument("AAAUSDT")], 0));
    // 250 one-minute candles of a steady fall, then the worker starts.
    for i in 0..250 {
        market.push_candle("AAAUSDT", 1, candle(i, Decimal::from(1000 - i)));
    }
    let (hub, _task) = RatingHub::start(market.clone(), vec!["AAAUSDT".into()], 1)
        .await
        .unwrap();
    let falling = hub.latest()[0].rating;
    assert!(
        falling.total < -0.1 && falling.ma < -0.5,
        "a steady fall rates as a sell: {falling:?}"
    );
    let sup = common::engine(&store, market.clone(), hub).await;
    sup.supervisor().start_signals(user).await.unwrap();
    let first = eventually(&store, user, |s| s.len() == 1).await;
    assert_eq!(first[0].symbol, "AAAUSDT");
    assert_eq!(first[0].rating, falling.recommendation.as_str());
    assert_eq!(first[0].candle_time, 249 * MINUTE);

    // A sharp reversal: every closed candle is rated and stored, the change is logged.
    for i in 250..330 {
        market.push_candle("AAAUSDT", 1, candle(i, Decimal::from(751 + (i - 249) * 20)));
    }
    let all = eventually(&store, user, |s| s.len() == 81).await;
    assert_eq!(all[0].candle_time, 329 * MINUTE);
    assert!(all[0].total.unwrap() > 0.1, "a sharp rally rates as a buy");
    assert!(all[0].rating.ends_with("BUY"));
    sup.supervisor().stop_signals(user).await.unwrap();
    let logs = store.recent_logs(user, None, 500).await.unwrap();
    assert!(logs
        .iter()
        .any(|e| e.message.starts_with("AAAUSDT: ") && e.message.contains("-> STRONG_BUY")));

    // Stopped: new candles are no longer stored for this user.
    market.push_candle("AAAUSDT", 1, candle(330, dec!(3000)));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(store.recent_signals(user, 1000).await.unwrap().len(), 81);
}

/// The next event on `sub` that `pick` accepts, within a second.
async fn next_matching<T>(
    sub: &mut signaldesk_engine::Subscription,
    pick: impl Fn(&UserEvent) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    loop {
        let event = tokio::time::timeout_at(deadline, sub.recv())
            .await
            .expect("the event came in time")
            .expect("still subscribed");
        if let Some(found) = pick(&event) {
            return found;
        }
    }
}

#[tokio::test]
async fn the_worker_publishes_the_list_per_candle_changes_as_signals_and_webhook_alerts() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let other = store.create_user("v", "h", 0).await.unwrap().id;
    let market = Arc::new(ManualMarket::new(
        vec![instrument("AAAUSDT"), instrument("BBBUSDT")],
        0,
    ));
    for i in 0..250 {
        market.push_candle("AAAUSDT", 1, candle(i, Decimal::from(1000 - i)));
        market.push_candle("BBBUSDT", 1, candle(i, Decimal::from(500)));
    }
    let universe = vec!["AAAUSDT".to_string(), "BBBUSDT".to_string()];
    let (hub, _task) = RatingHub::start(market.clone(), universe, 1).await.unwrap();
    let sup = common::engine(&store, market.clone(), hub).await;
    let mut events = sup.bus().subscribe(user);
    let mut others = sup.bus().subscribe(other);

    let alert = accepted(&store, user, "BBBUSDT", "STRONG_BUY", wall_ms()).await;
    assert!(matches!(
        sup.supervisor().submit_alert(user, alert.clone()).await,
        Err(EngineError::SignalsInactive)
    ));
    // Refused: the webhook gives its claim back (and answers 409).
    store
        .release_webhook_delivery(user, &alert.body_hash, alert.received_at)
        .await
        .unwrap();

    sup.supervisor().start_signals(user).await.unwrap();
    let first = next_matching(&mut events, |e| match e {
        UserEvent::SignalsUpdate(list) => Some(list.clone()),
        _ => None,
    })
    .await;
    assert_eq!(first.len(), 2, "the whole list at once");

    // A sharp rally on AAA: its rating changes, so a `signal` goes out, and the list follows.
    for i in 250..330 {
        market.push_candle("AAAUSDT", 1, candle(i, Decimal::from(751 + (i - 249) * 20)));
    }
    let changed = next_matching(&mut events, |e| match e {
        UserEvent::Signal(s) => Some(s.clone()),
        _ => None,
    })
    .await;
    assert_eq!(changed.symbol, "AAAUSDT");
    assert_eq!(changed.source, "ratings");

    let alert = accepted(&store, user, "BBBUSDT", "STRONG_BUY", wall_ms()).await;
    sup.supervisor().submit_alert(user, alert).await.unwrap();
    let from_alert = next_matching(&mut events, |e| match e {
        UserEvent::Signal(s) if s.source == "webhook" => Some(s.clone()),
        _ => None,
    })
    .await;
    assert_eq!(from_alert.symbol, "BBBUSDT");
    assert_eq!(from_alert.rating, "STRONG_BUY");
    let list = next_matching(&mut events, |e| match e {
        UserEvent::SignalsUpdate(list) if list.iter().any(|s| s.source == "webhook") => {
            Some(list.clone())
        }
        _ => None,
    })
    .await;
    let weights: Vec<u8> = list
        .iter()
        .map(|s| TradeSignal::from_rating(&s.rating).weight())
        .collect();
    assert!(
        weights.windows(2).all(|w| w[0] >= w[1]),
        "by weight: {list:?}"
    );
    let logged = store.recent_logs(user, None, 10).await.unwrap();
    assert!(logged
        .iter()
        .any(|e| e.message == "BBBUSDT: webhook alert STRONG_BUY"));

    // Nothing of this reached the other user.
    assert!(others.try_recv().is_none());
}

/// Warming up rates the histories at once (the cold batch, two symbols at a time), and gives
/// exactly what feeding each candle by candle gives, a refused candle in the middle of one
/// history (beside a good one in its pair) included.
#[test]
fn a_warm_up_rates_the_history_exactly_as_candle_by_candle() {
    use signaldesk_engine::signals::{ratings_candle, warmed_all};
    use signaldesk_ratings::RatingEngine;

    let steady: Vec<Candle> = (0..300)
        .map(|i| candle(i, Decimal::from(1000 + (i * 7919) % 113 - i / 3)))
        .collect();
    let mut broken = steady.clone();
    // High below low: the engine refuses it, live and at warm-up alike.
    broken[150].high = broken[150].low - dec!(1);
    let shorter: Vec<Candle> = (0..240)
        .map(|i| candle(i, Decimal::from(2000 + (i * 104_729) % 211 + i / 2)))
        .collect();
    let histories: Vec<Vec<_>> = [steady, broken, shorter]
        .iter()
        .map(|h| h.iter().map(ratings_candle).collect())
        .collect();
    let bits = |r: &signaldesk_ratings::Rating| {
        (
            r.total.to_bits(),
            r.ma.to_bits(),
            r.osc.to_bits(),
            r.recommendation,
        )
    };
    let all = warmed_all(&histories);
    assert_eq!(all.len(), histories.len());
    for (candles, (engine, rating)) in histories.iter().zip(all) {
        let mut one_by_one = RatingEngine::new();
        let mut expected = one_by_one.rating();
        for c in candles {
            expected = one_by_one.update(c);
        }
        let alone = warmed_all(&[candles])
            .pop()
            .expect("one engine per history");
        for (engine, rating) in [(engine, rating), alone] {
            assert_eq!(bits(&rating), bits(&expected));
            assert_eq!(engine.candle_count(), one_by_one.candle_count());
            assert_eq!(bits(&engine.rating()), bits(&one_by_one.rating()));
            assert_eq!(engine.report(), one_by_one.report());
        }
    }
}

/// Alerts accepted (queued for the worker) just before the signals stop are still acted on:
/// each was answered 202 and its body claimed, so its resend would be a duplicate.
#[tokio::test]
async fn alerts_queued_when_the_signals_stop_are_stored() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let (sup, _hub) = one_symbol_engine(&store).await;
    sup.supervisor().start_signals(user).await.unwrap();
    let ratings = ["STRONG_BUY", "BUY", "SELL", "STRONG_SELL", "NEUTRAL", "BUY"];
    let now = wall_ms();
    for (i, rating) in ratings.into_iter().enumerate() {
        let alert = accepted(
            &store,
            user,
            "AAAUSDT",
            rating,
            now + i64::try_from(i).unwrap(),
        )
        .await;
        sup.supervisor().submit_alert(user, alert).await.unwrap();
    }
    sup.supervisor().stop_signals(user).await.unwrap();
    let stored: Vec<String> = store
        .recent_signals(user, 100)
        .await
        .unwrap()
        .into_iter()
        .filter(|s| s.source == "webhook")
        .map(|s| s.rating)
        .collect();
    assert_eq!(stored.len(), ratings.len(), "{stored:?}");
}

/// A hub over one flat market, and an engine on it, for the kept-alert tests.
async fn one_symbol_engine(
    store: &Store,
) -> (Arc<signaldesk_engine::Engine>, tokio::task::JoinHandle<()>) {
    let market = Arc::new(ManualMarket::new(vec![instrument("AAAUSDT")], 0));
    for i in 0..250 {
        market.push_candle("AAAUSDT", 1, candle(i, Decimal::from(500)));
    }
    let (hub, task) = RatingHub::start(market.clone(), vec!["AAAUSDT".into()], 1)
        .await
        .unwrap();
    (common::engine(store, market, hub).await, task)
}

/// Alerts accepted (answered 202) but never acted on, as when the process is killed with
/// them queued, are acted on when the signal worker next starts: the fresh one is stored,
/// the one older than the alerts accepted at all is not, and the bot log says so.
#[tokio::test]
async fn alerts_kept_from_before_a_crash_are_acted_on_at_the_next_start_unless_too_old() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let now = wall_ms();
    kept(
        &store,
        user,
        "AAAUSDT",
        "STRONG_SELL",
        now - 400_000,
        300_000,
    )
    .await;
    kept(&store, user, "AAAUSDT", "BUY", now - 1_000, 300_000).await;
    assert_eq!(store.pending_webhook_alerts(user).await.unwrap().len(), 2);

    let (sup, _hub) = one_symbol_engine(&store).await;
    sup.supervisor().start_signals(user).await.unwrap();
    let stored = eventually(&store, user, |s| s.iter().any(|s| s.source == "webhook")).await;
    let from_alerts: Vec<&str> = stored
        .iter()
        .filter(|s| s.source == "webhook")
        .map(|s| s.rating.as_str())
        .collect();
    assert_eq!(from_alerts, ["BUY"]);
    assert!(store.pending_webhook_alerts(user).await.unwrap().is_empty());
    sup.supervisor().stop_signals(user).await.unwrap();
    let logged = store.recent_logs(user, None, 50).await.unwrap();
    assert!(
        logged.iter().any(|e| e
            .message
            .starts_with("AAAUSDT: webhook alert STRONG_SELL not acted on: it arrived 400 s ago")),
        "{logged:#?}"
    );

    // Acted on once: a second start finds nothing kept.
    sup.supervisor().start_signals(user).await.unwrap();
    sup.supervisor().stop_signals(user).await.unwrap();
    let webhook = store
        .recent_signals(user, 100)
        .await
        .unwrap()
        .into_iter()
        .filter(|s| s.source == "webhook")
        .count();
    assert_eq!(webhook, 1);
}

/// An alert whose write fails (the database takes no writes) is not lost: it stays kept and
/// is stored once the database takes writes again, exactly once.
#[tokio::test]
async fn an_alert_whose_write_failed_is_stored_when_the_store_takes_writes_again() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let (sup, _hub) = one_symbol_engine(&store).await;
    sup.supervisor().start_signals(user).await.unwrap();
    let alert = accepted(&store, user, "AAAUSDT", "STRONG_BUY", wall_ms()).await;
    store
        .on_every_connection("PRAGMA query_only = 1")
        .await
        .unwrap();
    sup.supervisor().submit_alert(user, alert).await.unwrap();
    // The worker takes it at once; its write fails (proved by the log line below), and so
    // does the retry 2 s later.
    tokio::time::sleep(Duration::from_millis(2_800)).await;
    store
        .on_every_connection("PRAGMA query_only = 0")
        .await
        .unwrap();
    // The retry comes within ALERT_RETRY (2 s).
    let stored = match tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let s = store.recent_signals(user, 100).await.unwrap();
            if s.iter().any(|s| s.source == "webhook") {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    {
        Ok(stored) => stored,
        Err(_) => panic!("the kept alert was never stored"),
    };
    sup.supervisor().stop_signals(user).await.unwrap();
    assert_eq!(stored.iter().filter(|s| s.source == "webhook").count(), 1);
    assert!(store.pending_webhook_alerts(user).await.unwrap().is_empty());
    // The failed write is in the bot log (written once the database takes writes), once.
    let failed = "Could not store the AAAUSDT webhook alert STRONG_BUY (tried again every 2 s)";
    for _ in 0..100 {
        if sup.journal().pending() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        sup.journal().pending(),
        0,
        "the log lines waiting were written"
    );
    let logged = store.recent_logs(user, None, 50).await.unwrap();
    let lines = logged
        .iter()
        .filter(|e| e.message.starts_with(failed))
        .count();
    // None would mean the test tested no failure; one per retry would flood the log.
    assert_eq!(lines, 1, "one line for the run of failures: {logged:#?}");
}

/// An alert kept but never handed to the worker (accepted on another instance whose
/// hand-over failed) is found by the worker's sweep and acted on while it runs.
#[tokio::test]
async fn a_kept_alert_never_handed_over_is_found_by_the_sweep() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let (sup, _hub) = one_symbol_engine(&store).await;
    sup.supervisor().start_signals(user).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    kept(&store, user, "AAAUSDT", "SELL", wall_ms(), 300_000).await;
    let deadline = tokio::time::Instant::now() + ALERT_SWEEP * 2;
    loop {
        let recent = store.recent_signals(user, 100).await.unwrap();
        if let Some(s) = recent.iter().find(|s| s.source == "webhook") {
            assert_eq!(s.rating, "SELL");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the sweep never acted on the kept alert"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    sup.supervisor().stop_signals(user).await.unwrap();
    assert!(store.pending_webhook_alerts(user).await.unwrap().is_empty());
}
