//! The protection check (docs/alerts.md, `unprotected`): a stop removed behind the bot's back
//! is put back by the worker's timer and after a reconnect of Bybit's private stream, logged
//! and alerted; a stop the venue refuses closes the position, or with
//! `unprotected_action: "alert"` leaves it open with the alert raised. On the fake Bybit and
//! on the paper exchange.
#![allow(clippy::unwrap_used)]

mod desk_support;

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use desk_support::{
    bybit_venue, classic, instrument, store_signal, store_with_trader, trades, worker,
};
use rust_decimal_macros::dec;
use signaldesk_core::settings::{BotSettings, UnprotectedAction};
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::trading::TradingWorker;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, KeySpec};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{AlertRecord, Store, TradeStatus};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::{Stops, Venue};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

const KEY: &str = "KEY";

struct Bot {
    _db: TestDatabase,
    store: Store,
    user: i64,
    venue: Arc<dyn Venue>,
    worker: TradingWorker,
    now: DateTime<Utc>,
}

fn market(now: DateTime<Utc>) -> Arc<ManualMarket> {
    let market = Arc::new(ManualMarket::new(
        vec![instrument("BTCUSDT")],
        now.timestamp_millis(),
    ));
    market.set_price("BTCUSDT", dec!(30000));
    market
}

/// A worker on `venue` that has opened a BTC long on a STRONG_BUY at 30,000.
async fn opened(settings: &BotSettings, venue: Arc<dyn Venue>, market: Arc<ManualMarket>) -> Bot {
    let (db, store, user) = store_with_trader(settings).await;
    let now = DateTime::from_timestamp_millis(market_now(&market)).unwrap();
    let mut worker = worker(
        &store,
        user,
        &venue,
        &market,
        Notifier::disabled(),
        &["BTCUSDT"],
        now,
    )
    .await;
    let signal = store_signal(&store, user, "BTCUSDT", "STRONG_BUY", now).await;
    worker.on_signal(&signal, now).await;
    let t = trades(&store, user).await;
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].status, TradeStatus::Open);
    assert_eq!(t[0].stop_loss, Some(dec!(28500)));
    Bot {
        _db: db,
        store,
        user,
        venue,
        worker,
        now,
    }
}

fn market_now(market: &ManualMarket) -> i64 {
    use signaldesk_venue::market::MarketData;
    market.now_ms()
}

async fn fake_bybit() -> FakeBybit {
    let mut config = FakeConfig::new(vec![instrument("BTCUSDT")]);
    config.paper = PaperConfig {
        slippage_bps: dec!(0),
        ..PaperConfig::default()
    };
    let fake = FakeBybit::start(config).await.unwrap();
    fake.add_key(KeySpec::new(KEY, "SECRET"));
    fake.set_price("BTCUSDT", dec!(30000));
    fake
}

async fn on_bybit(settings: &BotSettings) -> (FakeBybit, Bot) {
    let fake = fake_bybit().await;
    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let bot = opened(settings, venue, market(Utc::now())).await;
    (fake, bot)
}

/// The user's alerts of `kind`, once the alert writer has stored one (5 s at most).
async fn alerts_of(store: &Store, user: i64, kind: &str, cleared: bool) -> Vec<AlertRecord> {
    for _ in 0..100 {
        let found: Vec<AlertRecord> = store
            .recent_alerts(user, 50)
            .await
            .unwrap()
            .into_iter()
            .filter(|a| a.kind == kind)
            .collect();
        if !found.is_empty() && found.iter().all(|a| a.cleared_at.is_some() == cleared) {
            return found;
        }
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
    panic!("no {kind} alert (cleared: {cleared})");
}

async fn logged(store: &Store, user: i64, needle: &str) -> bool {
    store
        .recent_logs(user, None, 500)
        .await
        .unwrap()
        .iter()
        .any(|e| e.message.contains(needle))
}

/// Runs the worker with its protection check every `every`; answers how to stop it.
/// Runs the worker with its check every `every` (`None`: production's 30 s).
fn run(
    worker: TradingWorker,
    every: impl Into<Option<StdDuration>>,
) -> (CancellationToken, tokio::task::JoinHandle<()>) {
    let every = every.into();
    let (_signals_tx, signals) = broadcast::channel(8);
    let (commands_tx, commands) = mpsc::channel(8);
    let stop = CancellationToken::new();
    let token = stop.clone();
    let handle = tokio::spawn(async move {
        // Kept alive for the worker's lifetime: a closed channel would end it.
        let _keep = (_signals_tx, commands_tx);
        let worker = match every {
            Some(every) => worker.with_protection_every(every),
            None => worker,
        };
        worker.run(signals, commands, token).await;
    });
    (stop, handle)
}

/// Waits (10 s at most) until `ready` holds.
async fn until(ready: impl FnMut() -> bool) {
    until_within(StdDuration::from_secs(10), ready).await;
}

async fn until_within(within: StdDuration, mut ready: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + within;
    while std::time::Instant::now() < deadline {
        if ready() {
            return;
        }
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
    panic!("not within {within:?}");
}

/// The figure on production's timer: a stop cancelled in Bybit's app is back within
/// 35 s (the check runs every 30 s), with no reconnect to bring it.
#[tokio::test]
async fn a_stop_cancelled_in_bybits_app_is_back_within_35_s_on_the_production_timer() {
    let (fake, bot) = on_bybit(&classic()).await;
    let (store, user) = (bot.store.clone(), bot.user);
    let (stop, handle) = run(bot.worker, None);
    until(|| fake.stats().ws_subscribes >= 1).await;
    tokio::time::sleep(StdDuration::from_millis(300)).await;
    assert!(fake.cancel_stops_by_hand(KEY, "BTCUSDT"));
    assert_eq!(fake.stop_loss(KEY, "BTCUSDT"), None);
    until_within(StdDuration::from_secs(35), || {
        fake.stop_loss(KEY, "BTCUSDT") == Some(dec!(28500))
    })
    .await;
    assert_eq!(fake.stats().ws_subscribes, 1, "the timer did it");
    alerts_of(&store, user, "unprotected", true).await;
    assert!(logged(&store, user, "stop loss put back at 28500").await);
    stop.cancel();
    handle.await.unwrap();
}

#[tokio::test]
async fn a_stop_cancelled_in_bybits_app_is_put_back_by_the_workers_timer() {
    let (fake, bot) = on_bybit(&classic()).await;
    assert_eq!(fake.stop_loss(KEY, "BTCUSDT"), Some(dec!(28500)));
    let (store, user) = (bot.store.clone(), bot.user);
    // A period of 1 s stands for the 30 s of production: the same timer, the same check.
    let (stop, handle) = run(bot.worker, StdDuration::from_secs(1));
    // Past the worker's first reconciliation and the check at the stream's first login,
    // either of which would put it back too.
    until(|| fake.stats().ws_subscribes >= 1).await;
    tokio::time::sleep(StdDuration::from_millis(300)).await;
    assert!(fake.cancel_stops_by_hand(KEY, "BTCUSDT"));
    assert_eq!(fake.stop_loss(KEY, "BTCUSDT"), None);
    until(|| fake.stop_loss(KEY, "BTCUSDT") == Some(dec!(28500))).await;
    assert!(
        fake.trailing_stop_price(KEY, "BTCUSDT").is_none(),
        "not yet activated"
    );

    let alert = alerts_of(&store, user, "unprotected", true).await.remove(0);
    assert!(alert.detail.contains("BTCUSDT"), "{}", alert.detail);
    assert!(
        alert.detail.contains("put the stop loss back at 28500"),
        "{}",
        alert.detail
    );
    assert!(logged(&store, user, "the stop loss is missing on the exchange").await);
    assert!(logged(&store, user, "stop loss put back at 28500").await);
    assert_eq!(
        fake.stats().ws_subscribes,
        1,
        "no reconnect: the timer did it"
    );
    stop.cancel();
    handle.await.unwrap();
    assert_eq!(trades(&store, user).await[0].status, TradeStatus::Open);
}

#[tokio::test]
async fn a_stop_cancelled_while_the_private_stream_was_down_is_put_back_at_the_reconnect() {
    let (fake, bot) = on_bybit(&classic()).await;
    let (store, user) = (bot.store.clone(), bot.user);
    // The timer is an hour away: only the reconnect can bring the check.
    let (stop, handle) = run(bot.worker, StdDuration::from_secs(3600));
    // Let the worker's first look (at the stream's first login) pass.
    until(|| fake.stats().ws_subscribes >= 1).await;
    tokio::time::sleep(StdDuration::from_millis(300)).await;
    assert!(fake.cancel_stops_by_hand(KEY, "BTCUSDT"));
    fake.drop_streams();
    until(|| fake.stop_loss(KEY, "BTCUSDT") == Some(dec!(28500))).await;
    assert!(fake.stats().ws_subscribes >= 2, "after the reconnect");
    alerts_of(&store, user, "unprotected", true).await;
    assert!(logged(&store, user, "stop loss put back at 28500").await);
    stop.cancel();
    handle.await.unwrap();
}

#[tokio::test]
async fn a_trailing_stop_removed_or_a_stop_moved_is_put_back() {
    let settings = BotSettings {
        use_trailing_stop: true,
        ..classic()
    };
    let (fake, mut bot) = on_bybit(&settings).await;
    // A stop moved further away by hand: back to the booked level.
    let moved = Stops {
        stop_loss: Some(dec!(28000)),
        take_profit: None,
        trailing: None,
    };
    bot.venue.set_stops("BTCUSDT", moved).await.unwrap();
    assert_eq!(bot.worker.check_protection(bot.now).await, 1);
    assert_eq!(fake.stop_loss(KEY, "BTCUSDT"), Some(dec!(28500)));
    let resting = bot.venue.resting_stops("BTCUSDT").await.unwrap().unwrap();
    assert!(resting.trailing.is_some(), "the trailing stop is back too");
    assert!(
        logged(
            &bot.store,
            bot.user,
            "rests at 28000 instead of the booked 28500"
        )
        .await
    );
    // Nothing wrong: nothing done.
    assert_eq!(bot.worker.check_protection(bot.now).await, 0);
}

#[tokio::test]
async fn a_stop_bybit_refuses_to_take_back_closes_the_position() {
    let (fake, mut bot) = on_bybit(&classic()).await;
    fake.cancel_stops_by_hand(KEY, "BTCUSDT");
    fake.refuse_stops(true);
    let before = fake.requests("/v5/position/trading-stop");
    assert_eq!(bot.worker.check_protection(bot.now).await, 1);
    assert!(
        fake.requests("/v5/position/trading-stop") - before >= 3,
        "three tries"
    );
    assert_eq!(
        fake.position_qty(KEY, "BTCUSDT"),
        dec!(0),
        "closed at market"
    );
    let trade = trades(&bot.store, bot.user).await.remove(0);
    assert_eq!(trade.status, TradeStatus::Closed);
    assert!(logged(&bot.store, bot.user, "could not be put back after 3 tries").await);
    let alert = alerts_of(&bot.store, bot.user, "unprotected", true)
        .await
        .remove(0);
    assert!(
        alert.detail.contains("closes the position at market"),
        "{}",
        alert.detail
    );
}

#[tokio::test]
async fn with_unprotected_action_alert_the_position_stays_open_and_alerted() {
    let settings = BotSettings {
        unprotected_action: UnprotectedAction::Alert,
        ..classic()
    };
    let (fake, mut bot) = on_bybit(&settings).await;
    fake.cancel_stops_by_hand(KEY, "BTCUSDT");
    fake.refuse_stops(true);
    assert_eq!(bot.worker.check_protection(bot.now).await, 1);
    assert_eq!(fake.position_qty(KEY, "BTCUSDT"), dec!(0.033), "still open");
    assert_eq!(
        trades(&bot.store, bot.user).await[0].status,
        TradeStatus::Open
    );
    let alert = alerts_of(&bot.store, bot.user, "unprotected", false)
        .await
        .remove(0);
    assert!(
        alert.detail.contains("stays open without it"),
        "{}",
        alert.detail
    );

    // Bybit takes it again: the next check puts it back and the alert clears.
    fake.refuse_stops(false);
    assert_eq!(bot.worker.check_protection(bot.now).await, 1);
    assert_eq!(fake.stop_loss(KEY, "BTCUSDT"), Some(dec!(28500)));
    alerts_of(&bot.store, bot.user, "unprotected", true).await;
}

#[tokio::test]
async fn on_paper_a_removed_stop_is_put_back_by_the_workers_timer() {
    let now = Utc::now();
    let market = market(now);
    let no_slippage = PaperConfig {
        slippage_bps: dec!(0),
        ..PaperConfig::default()
    };
    let exchange = PaperExchange::new(market.clone(), no_slippage, Arc::new(NoJournal))
        .await
        .unwrap();
    exchange.on_tick("BTCUSDT", dec!(30000), now.timestamp_millis());
    let (db, store, user) = store_with_trader(&classic()).await;
    let venue: Arc<dyn Venue> = Arc::new(exchange.account(user));
    let mut worker = worker(
        &store,
        user,
        &venue,
        &market,
        Notifier::disabled(),
        &["BTCUSDT"],
        now,
    )
    .await;
    let signal = store_signal(&store, user, "BTCUSDT", "STRONG_BUY", now).await;
    worker.on_signal(&signal, now).await;
    let resting = || async { venue.resting_stops("BTCUSDT").await.unwrap().unwrap() };
    assert_eq!(resting().await.stop_loss, Some(dec!(28500)));

    let (stop, handle) = run(worker, StdDuration::from_millis(500));
    // Removed behind the bot's back, past the worker's first reconciliation.
    tokio::time::sleep(StdDuration::from_millis(200)).await;
    venue.set_stops("BTCUSDT", Stops::default()).await.unwrap();
    let mut back = false;
    for _ in 0..100 {
        if resting().await.stop_loss == Some(dec!(28500)) {
            back = true;
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
    assert!(back, "the stop is back");
    alerts_of(&store, user, "unprotected", true).await;
    assert!(logged(&store, user, "stop loss put back at 28500").await);
    stop.cancel();
    handle.await.unwrap();
    drop(db);
}
