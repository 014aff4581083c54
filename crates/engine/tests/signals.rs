//! The rating hub and a user's signal worker on a hand-moved market and a real SQLite store.

use std::sync::Arc;
use std::time::Duration;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_engine::signals::RatingHub;
use signaldesk_engine::{Supervisor, VenueName};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::Store;
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
    let sup = Supervisor::new(store.clone(), VenueName::Paper, hub);
    sup.start_signals(user).await.unwrap();
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
    sup.stop_signals(user).await.unwrap();
    let logs = store.recent_logs(user, None, 500).await.unwrap();
    assert!(logs
        .iter()
        .any(|e| e.message.starts_with("AAAUSDT: ") && e.message.contains("-> STRONG_BUY")));

    // Stopped: new candles are no longer stored for this user.
    market.push_candle("AAAUSDT", 1, candle(330, dec!(3000)));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(store.recent_signals(user, 1000).await.unwrap().len(), 81);
}
