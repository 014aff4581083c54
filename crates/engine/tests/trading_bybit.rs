//! The trading worker on Bybit: the real BybitVenue (signed REST and the private stream)
//! against the fake Bybit on loopback, which runs the stops. The rules are the ones
//! `trading.rs` checks on paper; these scenarios check that they hold when orders, stops and
//! closes travel through Bybit's API: an entry with its exchange-side stop loss, the
//! take-profit ladder's reduce-only order and break-even stop, the trailing stop, a manual
//! close, and a stop that fires while the bot is away.
#![allow(clippy::unwrap_used)]

mod desk_support;

use std::sync::Arc;

use desk_support::{classic, instrument, store_signal, store_with_trader, trades, worker};
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::settings::BotSettings;
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::trading::{Command, TradingWorker};
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, KeySpec};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, Trade, TradeStatus};
use signaldesk_venue::bybit::private::{BybitConfig, BybitVenue, Credentials, Environment};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::PaperConfig;
use signaldesk_venue::{CloseReason, Venue, VenueEvent};
use tokio::sync::{broadcast, oneshot};

/// One user's worker trading on the fake Bybit.
struct BybitDesk {
    _db: TestDatabase,
    store: Store,
    user: i64,
    market: Arc<ManualMarket>,
    fake: FakeBybit,
    venue: Arc<dyn Venue>,
    events: broadcast::Receiver<VenueEvent>,
    worker: TradingWorker,
    now: DateTime<Utc>,
}

impl BybitDesk {
    /// BTC at 30,000 on the market and the exchange, with `settings`.
    async fn new(settings: BotSettings) -> BybitDesk {
        let (db, store, user) = store_with_trader(&settings).await;
        let now = Utc::now();
        let market = Arc::new(ManualMarket::new(
            vec![instrument("BTCUSDT")],
            now.timestamp_millis(),
        ));
        let mut config = FakeConfig::new(vec![instrument("BTCUSDT")]);
        config.paper = PaperConfig {
            slippage_bps: Decimal::ZERO,
            ..PaperConfig::default()
        };
        let fake = FakeBybit::start(config).await.unwrap();
        fake.add_key(KeySpec::new("KEY", "SECRET"));
        market.set_price("BTCUSDT", dec!(30000));
        fake.set_price("BTCUSDT", dec!(30000));
        let venue: Arc<dyn Venue> = Arc::new(venue_on(&fake));
        let events = venue.subscribe();
        let worker = worker(
            &store,
            user,
            &venue,
            &market,
            Notifier::disabled(),
            &["BTCUSDT"],
            now,
        )
        .await;
        BybitDesk {
            _db: db,
            store,
            user,
            market,
            fake,
            venue,
            events,
            worker,
            now,
        }
    }

    async fn signal(&mut self, rating: &str) {
        let stored = store_signal(&self.store, self.user, "BTCUSDT", rating, self.now).await;
        self.worker.on_signal(&stored, self.now).await;
    }

    /// A new price on the market and on Bybit; `closes` venue closes are expected from it
    /// before the worker runs its ladder on the tick.
    async fn price(&mut self, price: Decimal, closes: usize) {
        self.now += Duration::seconds(1);
        self.market.set_price("BTCUSDT", price);
        self.fake.set_price("BTCUSDT", price);
        let mut seen = 0;
        while seen < closes {
            let event = tokio::time::timeout(StdDuration::from_secs(5), self.events.recv())
                .await
                .expect("the close reaches the worker through Bybit's stream")
                .unwrap();
            if matches!(&event, VenueEvent::PositionClosed(c) if c.reason != CloseReason::Manual) {
                seen += 1;
            }
            self.worker.on_venue_event(event, self.now).await;
        }
        self.worker.on_tick("BTCUSDT", price, self.now).await;
    }

    async fn only_trade(&self) -> Trade {
        let all = trades(&self.store, self.user).await;
        assert_eq!(all.len(), 1, "{all:#?}");
        all.into_iter().next().unwrap()
    }
}

fn venue_on(fake: &FakeBybit) -> BybitVenue {
    let mut config = BybitConfig::new(Environment::Demo, Credentials::new("KEY", "SECRET"));
    config.rest_url = fake.rest_url();
    config.private_ws_url = fake.private_ws_url();
    config.reconnect_min = StdDuration::from_millis(50);
    BybitVenue::new(config).unwrap()
}

#[tokio::test]
async fn an_entry_carries_its_stop_loss_on_bybit_and_the_stop_closes_the_trade() {
    let mut desk = BybitDesk::new(classic()).await;
    desk.signal("STRONG_BUY").await;
    // 100 USDT x 10 / 30,000 = 0.0333…, rounded down to the 0.001 step.
    assert_eq!(desk.fake.position_qty("KEY", "BTCUSDT"), dec!(0.033));
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert_eq!(position.stops.stop_loss, Some(dec!(28500)));
    assert_eq!(desk.only_trade().await.status, TradeStatus::Open);

    desk.price(dec!(28400), 1).await;
    let trade = desk.only_trade().await;
    assert_eq!(trade.status, TradeStatus::Closed);
    assert_eq!(trade.close_reason.as_deref(), Some("stop_loss"));
    // Price pnl -1,600 x 0.033 = -52.8; fees 30,000 x 0.033 x 0.00055 = 0.5445 and
    // 28,400 x 0.033 x 0.00055 = 0.515460.
    assert_eq!(trade.pnl, dec!(-53.859960));
    assert_eq!(desk.fake.position_qty("KEY", "BTCUSDT"), Decimal::ZERO);
}

#[tokio::test]
async fn the_first_take_profit_closes_half_on_bybit_and_moves_the_stop_to_break_even() {
    let mut desk = BybitDesk::new(classic()).await;
    desk.signal("STRONG_BUY").await;
    desk.price(dec!(33000), 0).await;
    // Half of 0.033 rounded down to the step: 0.016 closed, 0.017 left.
    assert_eq!(desk.fake.position_qty("KEY", "BTCUSDT"), dec!(0.017));
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert_eq!(position.stops.stop_loss, Some(dec!(30000)));
    let trade = desk.only_trade().await;
    assert_eq!(trade.status, TradeStatus::Open);
    assert_eq!(trade.closed_qty, dec!(0.016));
}

#[tokio::test]
async fn a_stop_that_fires_while_the_bot_is_away_is_booked_at_the_next_start() {
    let mut desk = BybitDesk::new(classic()).await;
    desk.signal("STRONG_BUY").await;
    // The bot stops; the stop fires on Bybit meanwhile.
    let BybitDesk {
        store,
        user,
        market,
        fake,
        worker: old_worker,
        venue: old_venue,
        now,
        _db,
        ..
    } = desk;
    drop(old_worker);
    drop(old_venue);
    market.set_price("BTCUSDT", dec!(28000));
    fake.set_price("BTCUSDT", dec!(28000));

    let venue: Arc<dyn Venue> = Arc::new(venue_on(&fake));
    let _worker = worker(
        &store,
        user,
        &venue,
        &market,
        Notifier::disabled(),
        &["BTCUSDT"],
        now + Duration::minutes(5),
    )
    .await;
    let q = signaldesk_store::TradeQuery {
        limit: 10,
        ..Default::default()
    };
    let (trades, _) = store.trades_page(user, &q).await.unwrap();
    assert_eq!(trades.len(), 1);
    assert_eq!(trades[0].status, TradeStatus::Closed);
    assert_eq!(trades[0].close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(trades[0].exit_price, Some(dec!(28000)));
}

#[tokio::test]
async fn the_trailing_stop_travels_to_bybit_with_its_activation_price_and_closes_the_trade() {
    let mut desk = BybitDesk::new(BotSettings::default()).await; // activation 1 %, step 0.5 %
    desk.signal("STRONG_BUY").await;
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert_eq!(
        position.stops.trailing.map(|t| t.distance),
        Some(dec!(150)),
        "0.5 % of the 30,000 entry"
    );
    // Before the activation price nothing trails: an immediate trail (29,850) would have
    // closed at 29,800.
    desk.price(dec!(29800), 0).await;
    assert_eq!(desk.fake.position_qty("KEY", "BTCUSDT"), dec!(0.033));
    desk.price(dec!(30300), 0).await; // activates: stop at 30,150
    desk.price(dec!(30600), 0).await; // tightens: stop at 30,450
    desk.price(dec!(30400), 1).await; // through the stop: filled at 30,400
    let trade = desk.only_trade().await;
    assert_eq!(trade.status, TradeStatus::Closed);
    assert_eq!(trade.close_reason.as_deref(), Some("trailing"));
    assert_eq!(trade.exit_price, Some(dec!(30400)));
}

#[tokio::test]
async fn a_manual_close_is_a_reduce_only_order_on_bybit() {
    let mut desk = BybitDesk::new(classic()).await;
    desk.signal("STRONG_BUY").await;
    desk.price(dec!(30300), 0).await;
    let id = desk.only_trade().await.id;
    let (reply, answer) = oneshot::channel();
    desk.worker
        .handle(
            Command::Close {
                trade_id: id,
                reply,
            },
            desk.now,
        )
        .await;
    let closed = answer.await.unwrap().unwrap();
    assert_eq!(closed.close_reason.as_deref(), Some("manual"));
    assert_eq!(closed.exit_price, Some(dec!(30300)));
    // Price pnl 300 x 0.033 = 9.9; fees 0.5445 and 30,300 x 0.033 x 0.00055 = 0.549945.
    assert_eq!(closed.pnl, dec!(8.805555));
    assert_eq!(desk.fake.position_qty("KEY", "BTCUSDT"), Decimal::ZERO);
    assert_eq!(desk.fake.order_count("KEY"), 2);
}
