//! What only Bybit has, beyond the scenarios `trading.rs` runs on both venues: a close
//! that reaches the worker through the private stream alone (no catch-up asked for), a
//! stop that fires while the bot is away, booked by a new client at the next start, and
//! funding settlements booked on their trade once, live or at the next start.
#![allow(clippy::unwrap_used)]

mod desk_support;

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use desk_support::{
    bybit_venue, classic, instrument, store_signal, store_with_trader, trades, worker,
};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::trading::TradingWorker;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, Fault, KeySpec};
use signaldesk_store::{Store, TradeStatus};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::PaperConfig;
use signaldesk_venue::{CloseReason, Venue, VenueEvent};

const KEY: &str = "KEY";

/// The fake Bybit with BTC at 30,000, no slippage, and the market the worker reads.
async fn exchange() -> (FakeBybit, Arc<ManualMarket>) {
    let mut config = FakeConfig::new(vec![instrument("BTCUSDT")]);
    config.paper = PaperConfig {
        slippage_bps: Decimal::ZERO,
        ..PaperConfig::default()
    };
    let fake = FakeBybit::start(config).await.unwrap();
    fake.add_key(KeySpec::new(KEY, "SECRET"));
    fake.set_price("BTCUSDT", dec!(30000));
    let market = Arc::new(ManualMarket::new(
        vec![instrument("BTCUSDT")],
        Utc::now().timestamp_millis(),
    ));
    market.set_price("BTCUSDT", dec!(30000));
    (fake, market)
}

/// The user's worker on `venue`, which has just opened a BTC long on a STRONG_BUY.
async fn worker_long(
    store: &Store,
    user: i64,
    venue: &Arc<dyn Venue>,
    market: &Arc<ManualMarket>,
    now: DateTime<Utc>,
) -> TradingWorker {
    worker_opening(store, user, venue, market, "STRONG_BUY", now).await
}

/// The user's worker on `venue`, which has just opened a BTC position on `signal`.
async fn worker_opening(
    store: &Store,
    user: i64,
    venue: &Arc<dyn Venue>,
    market: &Arc<ManualMarket>,
    signal: &str,
    now: DateTime<Utc>,
) -> TradingWorker {
    let mut worker = worker(
        store,
        user,
        venue,
        market,
        Notifier::disabled(),
        &["BTCUSDT"],
        now,
    )
    .await;
    let signal = store_signal(store, user, "BTCUSDT", signal, now).await;
    worker.on_signal(&signal, now).await;
    worker
}

/// Feeds the worker every event of `events` until `last` matches one (5 s at most).
async fn feed_until(
    worker: &mut TradingWorker,
    events: &mut tokio::sync::broadcast::Receiver<VenueEvent>,
    now: DateTime<Utc>,
    last: impl Fn(&VenueEvent) -> bool,
) -> VenueEvent {
    loop {
        let event = tokio::time::timeout(StdDuration::from_secs(5), events.recv())
            .await
            .expect("the event comes through Bybit's private stream")
            .unwrap();
        let done = last(&event);
        worker.on_venue_event(event.clone(), now).await;
        if done {
            return event;
        }
    }
}

#[tokio::test]
async fn a_stop_fired_on_bybit_reaches_the_worker_through_the_private_stream() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let mut events = venue.subscribe();
    let now = Utc::now();
    let mut worker = worker_long(&store, user, &venue, &market, now).await;
    assert_eq!(fake.position_qty(KEY, "BTCUSDT"), dec!(0.033));

    // The next REST resync is a minute away: only the stream can bring the close in time.
    fake.set_price("BTCUSDT", dec!(28400));
    loop {
        let event = tokio::time::timeout(StdDuration::from_secs(5), events.recv())
            .await
            .expect("the close comes through Bybit's private stream")
            .unwrap();
        let stop =
            matches!(&event, VenueEvent::PositionClosed(c) if c.reason == CloseReason::StopLoss);
        worker.on_venue_event(event, now).await;
        if stop {
            break;
        }
    }
    let trade = trades(&store, user).await.remove(0);
    assert_eq!(trade.status, TradeStatus::Closed);
    assert_eq!(trade.close_reason.as_deref(), Some("stop_loss"));
    // Price pnl -1,600 x 0.033 = -52.8; fees 30,000 x 0.033 x 0.00055 = 0.5445 and
    // 28,400 x 0.033 x 0.00055 = 0.515460.
    assert_eq!(trade.pnl, dec!(-53.859960));
    assert_eq!(fake.position_qty(KEY, "BTCUSDT"), Decimal::ZERO);
}

#[tokio::test]
async fn a_stop_that_fires_while_the_bot_is_away_is_booked_at_the_next_start() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let now = Utc::now();
    {
        let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
        worker_long(&store, user, &venue, &market, now).await;
    }
    // The bot and its client are gone; the stop fires on Bybit meanwhile.
    market.set_price("BTCUSDT", dec!(28000));
    fake.set_price("BTCUSDT", dec!(28000));

    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let later = now + Duration::minutes(5);
    let _worker = worker(
        &store,
        user,
        &venue,
        &market,
        Notifier::disabled(),
        &["BTCUSDT"],
        later,
    )
    .await;
    let all = trades(&store, user).await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].status, TradeStatus::Closed);
    assert_eq!(all[0].close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(all[0].exit_price, Some(dec!(28000)));
}

#[tokio::test]
async fn an_entry_bybit_acknowledged_but_could_not_be_read_stays_pending_and_is_protected_at_the_next_start(
) {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let now = Utc::now();
    // Bybit takes the order, then every look-up of it fails and its pushes are lost.
    let refused = || Fault::RetCode(10001, "params error".into());
    fake.hold_order_pushes(true);
    fake.fault_always("/v5/order/realtime", refused());
    fake.fault_always("/v5/order/history", refused());
    {
        let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
        worker_long(&store, user, &venue, &market, now).await;
    }
    let all = trades(&store, user).await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].status, TradeStatus::Pending, "not a rejection");
    assert_eq!(fake.position_qty(KEY, "BTCUSDT"), dec!(0.033));

    fake.clear_fault("/v5/order/realtime");
    fake.clear_fault("/v5/order/history");
    fake.hold_order_pushes(false);
    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let _worker = worker(
        &store,
        user,
        &venue,
        &market,
        Notifier::disabled(),
        &["BTCUSDT"],
        now + Duration::minutes(1),
    )
    .await;
    let all = trades(&store, user).await;
    assert_eq!(all[0].status, TradeStatus::Open);
    assert_eq!(all[0].qty, dec!(0.033));
    let stop = all[0].stop_loss.expect("the trade has its stop loss");
    assert_eq!(fake.stop_loss(KEY, "BTCUSDT"), Some(stop));
}

// ---------------------------------------------------------------- funding

/// BTC funding on 0.033 BTC at a mark of 30,000 and a rate of 0.0001: 0.099 USDT.
const FUNDING: Decimal = dec!(0.099);

#[tokio::test]
async fn a_settlement_on_the_stream_lands_on_the_trade_once_and_the_close_still_matches_bybit() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let mut events = venue.subscribe();
    let now = Utc::now();
    let mut worker = worker_long(&store, user, &venue, &market, now).await;
    let before = trades(&store, user).await.remove(0).pnl;

    fake.settle_funding("BTCUSDT", dec!(0.0001), fake.now_ms());
    let settled = feed_until(&mut worker, &mut events, now, |e| {
        matches!(e, VenueEvent::Funding(_))
    })
    .await;
    let trade = trades(&store, user).await.remove(0);
    assert_eq!(trade.funding, -FUNDING, "a long pays a positive rate");
    assert_eq!(trade.pnl, before - FUNDING);

    // The same settlement again, live and read back by reconciliation: booked once.
    worker.on_venue_event(settled, now).await;
    assert!(worker.reconcile(now).await);
    let trade = trades(&store, user).await.remove(0);
    assert_eq!((trade.funding, trade.pnl), (-FUNDING, before - FUNDING));

    fake.set_price("BTCUSDT", dec!(28400));
    feed_until(
        &mut worker,
        &mut events,
        now,
        |e| matches!(e, VenueEvent::PositionClosed(c) if c.reason == CloseReason::StopLoss),
    )
    .await;
    let trade = trades(&store, user).await.remove(0);
    assert_eq!(trade.status, TradeStatus::Closed);
    // Bybit's closedPnl (the stop test's -53.859960) leaves funding out; the trade has both.
    assert_eq!(trade.funding, -FUNDING);
    assert_eq!(trade.pnl, dec!(-53.859960) - FUNDING);
}

#[tokio::test]
async fn a_short_receives_a_positive_rate() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let mut events = venue.subscribe();
    let now = Utc::now();
    let mut worker = worker_opening(&store, user, &venue, &market, "STRONG_SELL", now).await;
    assert_eq!(fake.position_qty(KEY, "BTCUSDT"), dec!(0.033));
    let before = trades(&store, user).await.remove(0).pnl;

    fake.settle_funding("BTCUSDT", dec!(0.0001), fake.now_ms());
    feed_until(&mut worker, &mut events, now, |e| {
        matches!(e, VenueEvent::Funding(_))
    })
    .await;
    let trade = trades(&store, user).await.remove(0);
    assert_eq!(trade.funding, FUNDING);
    assert_eq!(trade.pnl, before + FUNDING);
}

#[tokio::test]
async fn settlements_while_the_bot_is_away_are_booked_at_the_next_start_also_after_the_close() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let now = Utc::now();
    let start = |at: DateTime<Utc>| {
        let (store, market) = (store.clone(), market.clone());
        let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
        async move {
            worker(
                &store,
                user,
                &venue,
                &market,
                Notifier::disabled(),
                &["BTCUSDT"],
                at,
            )
            .await
        }
    };
    {
        let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
        worker_long(&store, user, &venue, &market, now).await;
    }
    let before = trades(&store, user).await.remove(0).pnl;

    // Away: one settlement; the next start books it on the open trade.
    fake.settle_funding("BTCUSDT", dec!(0.0001), fake.now_ms());
    drop(start(now + Duration::minutes(1)).await);
    let trade = trades(&store, user).await.remove(0);
    assert_eq!(trade.status, TradeStatus::Open);
    assert_eq!((trade.funding, trade.pnl), (-FUNDING, before - FUNDING));

    // Away again: a second settlement, then the stop fires. Both are booked at the start.
    fake.settle_funding("BTCUSDT", dec!(0.0001), fake.now_ms());
    market.set_price("BTCUSDT", dec!(28400));
    fake.set_price("BTCUSDT", dec!(28400));
    drop(start(now + Duration::minutes(2)).await);
    let all = trades(&store, user).await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].status, TradeStatus::Closed);
    assert_eq!(all[0].funding, -FUNDING * dec!(2));
    assert_eq!(all[0].pnl, dec!(-53.859960) - FUNDING * dec!(2));
}

#[tokio::test]
async fn the_audit_checks_each_trades_funding_against_bybits_settlements() {
    use signaldesk_engine::audit::{differences, VenueAccount};
    let (_db, store, user) = store_with_trader(&classic()).await;
    let (fake, market) = exchange().await;
    let venue: Arc<dyn Venue> = Arc::new(bybit_venue(&fake, KEY));
    let mut events = venue.subscribe();
    let now = Utc::now();
    let mut worker = worker_long(&store, user, &venue, &market, now).await;
    fake.settle_funding("BTCUSDT", dec!(0.0001), fake.now_ms());
    feed_until(&mut worker, &mut events, now, |e| {
        matches!(e, VenueEvent::Funding(_))
    })
    .await;
    let audit = || async {
        let account = VenueAccount::live(venue.clone()).await.unwrap();
        differences(&store, user, &account).await.unwrap()
    };
    // Booked funding sits in pnl; the pnl check leaves it aside.
    assert_eq!(audit().await, Vec::<String>::new());

    // A settlement the books never heard of.
    fake.settle_funding("BTCUSDT", dec!(0.0002), fake.now_ms());
    let found = audit().await;
    let id = trades(&store, user).await[0].id;
    assert_eq!(
        found,
        [format!(
            "BTCUSDT trade #{id}: booked funding -0.099 but the venue's settlements of its position add up to -0.297"
        )]
    );
}
