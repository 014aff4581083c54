//! The paper exchange persisted through the real store: a restart keeps balances, positions
//! and stops.

use std::sync::Arc;

use rust_decimal_macros::dec;
use signaldesk_core::market::{Instrument, Side};
use signaldesk_engine::ownership::HeldLeases;
use signaldesk_engine::paper::{PaperRuntime, PaperSettings};
use signaldesk_engine::signals::RatingHub;
use signaldesk_engine::Market;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::Store;
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::{OrderRequest, Stops, Venue};

/// `market` with no symbol rated: the paper exchange needs only its prices.
async fn unrated(market: &Arc<ManualMarket>) -> Arc<Market> {
    let (hub, _task) = RatingHub::start(market.clone(), Vec::new(), 15)
        .await
        .unwrap();
    Market::assembled(market.clone(), hub)
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

#[tokio::test]
async fn a_restart_keeps_wallet_positions_and_stops() {
    for db in TestDatabase::all().await {
        let store = Store::connect(&db.url).await.unwrap();
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let market = Arc::new(ManualMarket::new(vec![btc()], 1_700_000_000_000));
        market.set_price("BTCUSDT", dec!(50000));
        let settings = PaperSettings {
            slippage_bps: dec!(0),
            ..PaperSettings::default()
        };

        let first = PaperRuntime::start(
            unrated(&market).await,
            &settings,
            store.clone(),
            HeldLeases::sole(),
        )
        .await
        .unwrap();
        let account = first.exchange.account(user);
        account.set_leverage("BTCUSDT", 10).await.unwrap();
        account
            .submit_market_order(OrderRequest {
                client_order_id: "t1".into(),
                symbol: "BTCUSDT".into(),
                side: Side::Buy,
                qty: dec!(0.02),
                reduce_only: false,
            })
            .await
            .unwrap();
        account
            .set_stops(
                "BTCUSDT",
                Stops {
                    stop_loss: Some(dec!(48000)),
                    take_profit: None,
                    trailing: None,
                },
            )
            .await
            .unwrap();
        let wallet_before = account.wallet().await.unwrap();
        let positions_before = account.positions().await.unwrap();
        assert_eq!(positions_before.len(), 1, "{}", db.label);
        first.stop().await;

        let second = PaperRuntime::start(
            unrated(&market).await,
            &settings,
            store.clone(),
            HeldLeases::sole(),
        )
        .await
        .unwrap();
        let account = second.exchange.account(user);
        assert_eq!(account.wallet().await.unwrap(), wallet_before);
        assert_eq!(account.positions().await.unwrap(), positions_before);
        assert_eq!(positions_before[0].stops.stop_loss, Some(dec!(48000)));
        // The retried order id is still known: it cannot open a second position.
        account
            .submit_market_order(OrderRequest {
                client_order_id: "t1".into(),
                symbol: "BTCUSDT".into(),
                side: Side::Buy,
                qty: dec!(0.02),
                reduce_only: false,
            })
            .await
            .unwrap();
        assert_eq!(account.positions().await.unwrap()[0].qty, dec!(0.02));
        second.stop().await;
    }
}
