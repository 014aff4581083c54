//! What the trading scenario tests share, whatever the venue: the instruments, the settings
//! the scenarios start from, a store with one user, stored signals, the worker and its trades,
//! and the real Bybit client pointed at the fake Bybit.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use rust_decimal_macros::dec;
use signaldesk_core::market::Instrument;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::signal::TradeSignal;
use signaldesk_engine::journal::BotJournal;
use signaldesk_engine::notify::{Outbound, SmtpConfig};
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::trading::{TradingDeps, TradingWorker};
use signaldesk_engine::{Alerts, EventBus, Notifications};
use signaldesk_fake_bybit::FakeBybit;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{SecretCipher, Store, StoredSignal, Trade};
use signaldesk_venue::bybit::private::{BybitConfig, BybitVenue, Credentials, Environment};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::Venue;

/// A USDT perpetual with a 0.1 tick, a 0.001 quantity step and a 5 USDT minimum.
pub fn instrument(symbol: &str) -> Instrument {
    Instrument {
        symbol: symbol.into(),
        tick_size: dec!(0.1),
        qty_step: dec!(0.001),
        min_qty: dec!(0.001),
        min_notional: dec!(5),
        max_leverage: 100,
    }
}

/// The defaults (margin 100 USDT, 10x, stop loss 5 %, take profits every 10 %) with the
/// trailing stop off, so only the rule under test moves the position.
pub fn classic() -> BotSettings {
    BotSettings {
        use_trailing_stop: false,
        ..BotSettings::default()
    }
}

/// A SQLite store with one user, "trader", trading with `settings`.
pub async fn store_with_trader(settings: &BotSettings) -> (TestDatabase, Store, i64) {
    trader_on(TestDatabase::sqlite(), settings).await
}

/// `db` with one user, "trader", trading with `settings`.
pub async fn trader_on(db: TestDatabase, settings: &BotSettings) -> (TestDatabase, Store, i64) {
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("trader", "h", 0).await.unwrap().id;
    let record = store.settings_or_default(user, 0).await.unwrap();
    store
        .update_settings(user, record.id, settings, 0)
        .await
        .unwrap();
    (db, store, user)
}

/// Stores a rating of `symbol` as the signal worker would, at `now`.
pub async fn store_signal(
    store: &Store,
    user: i64,
    symbol: &str,
    rating: &str,
    now: DateTime<Utc>,
) -> StoredSignal {
    store
        .insert_signal(&StoredSignal {
            id: 0,
            user_id: user,
            symbol: symbol.into(),
            rating: rating.into(),
            total: None,
            ma: None,
            osc: None,
            candle_time: now.timestamp_millis(),
            source: "ratings".into(),
            created_at: now.timestamp_millis(),
        })
        .await
        .unwrap()
}

/// The user's trading worker on `venue`, knowing every one of `symbols` as NEUTRAL, and
/// reconciled at `now`.
pub async fn worker(
    store: &Store,
    user: i64,
    venue: &Arc<dyn Venue>,
    market: &Arc<ManualMarket>,
    telegram: Notifier,
    symbols: &[&str],
    now: DateTime<Utc>,
) -> TradingWorker {
    let bus = EventBus::new();
    let deps = deps(store, venue, market, telegram, bus);
    let known = symbols
        .iter()
        .map(|s| (s.to_string(), TradeSignal::Neutral));
    let mut worker = TradingWorker::new(user, deps, known).await.unwrap();
    worker.reconcile(now).await;
    worker
}

/// What a worker needs, its notices going to Telegram through `telegram` and to the user's
/// channels, its alerts raised on `bus`.
pub fn deps(
    store: &Store,
    venue: &Arc<dyn Venue>,
    market: &Arc<ManualMarket>,
    telegram: Notifier,
    bus: Arc<EventBus>,
) -> TradingDeps {
    let notices = Notifications::start(
        store.clone(),
        Arc::new(SecretCipher::random()),
        telegram,
        Outbound::new(&SmtpConfig::default(), Some(store.clone())),
    );
    TradingDeps {
        account_venue: signaldesk_core::account::AccountVenue::Paper,
        store: store.clone(),
        ledger: Arc::new(store.clone()),
        journal: BotJournal::new(store.clone(), bus.clone()),
        alerts: Alerts::start(store.clone(), bus.clone(), notices.clone()),
        bus,
        venue: venue.clone(),
        market: market.clone(),
        notices,
        feed_stale_after: signaldesk_engine::trading::DEFAULT_FEED_STALE_AFTER,
    }
}

/// The user's trades, oldest first.
pub async fn trades(store: &Store, user: i64) -> Vec<Trade> {
    let q = signaldesk_store::TradeQuery {
        limit: 100,
        ..Default::default()
    };
    let (mut all, _) = store.trades_page(user, &q).await.unwrap();
    all.reverse();
    all
}

/// The real Bybit client trading for `key` (secret "SECRET") on the fake, with a quick
/// reconnect.
pub fn bybit_venue(fake: &FakeBybit, key: &str) -> BybitVenue {
    let mut config = BybitConfig::new(Environment::Demo, Credentials::new(key, "SECRET"));
    config.rest_url = fake.rest_url();
    config.private_ws_url = fake.private_ws_url();
    config.reconnect_min = std::time::Duration::from_millis(50);
    // The fake fills a market order at its last price exactly: sized as on paper without
    // slippage, the scenarios' figures are the same on both venues.
    config.market_price_limit = Some(rust_decimal::Decimal::ZERO);
    BybitVenue::new(config).unwrap()
}
