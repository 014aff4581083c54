//! Trades and martingale chains on SQLite always and PostgreSQL when `TEST_DATABASE_URL` is set.

use rust_decimal_macros::dec;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Chain, ChainStatus, Trade, TradeQuery, TradeStatus};

fn trade(user_id: i64, symbol: &str, coid: &str, created_at: i64) -> Trade {
    Trade {
        id: 0,
        user_id,
        symbol: symbol.into(),
        side: PositionSide::Short,
        status: TradeStatus::Pending,
        client_order_id: coid.into(),
        leverage: 10,
        margin: dec!(100),
        qty: dec!(0.033),
        open_qty: dec!(0),
        entry_price: None,
        exit_price: None,
        closed_qty: dec!(0),
        exit_value: dec!(0),
        pnl: dec!(0),
        fees: dec!(0),
        funding: dec!(0),
        volume: dec!(0),
        stop_loss: None,
        tp_step: 0,
        close_reason: None,
        chain_id: None,
        chain_step: None,
        signal_id: Some(7),
        signal_at: Some(created_at - 5),
        signal_price: Some(dec!(30000.1)),
        created_at,
        opened_at: None,
        closed_at: None,
        venue: Some(AccountVenue::Paper),
    }
}

#[tokio::test]
async fn trades_round_trip_exactly_and_filter_by_owner_status_symbol_and_time() {
    for (db, store) in TestDatabase::all_connected().await {
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let b = store.create_user("b", "h", 0).await.unwrap().id;
        let mut t = store
            .insert_trade(&trade(a, "BTCUSDT", "c1", 1000))
            .await
            .unwrap();
        assert_eq!(t.status, TradeStatus::Pending, "{}", db.label);
        assert_eq!(t.signal_price, Some(dec!(30000.1)));
        t.status = TradeStatus::Open;
        t.entry_price = Some(dec!(30000.12345678));
        t.open_qty = dec!(0.033);
        t.stop_loss = Some(dec!(31500));
        t.opened_at = Some(1001);
        store.save_trade(&t).await.unwrap();
        assert_eq!(store.trade(a, t.id).await.unwrap().unwrap(), t);
        assert!(
            store.trade(b, t.id).await.unwrap().is_none(),
            "another user's trade"
        );
        assert!(
            store
                .insert_trade(&trade(a, "BTCUSDT", "c1", 1))
                .await
                .is_err(),
            "coid unique"
        );

        store
            .insert_trade(&trade(a, "ETHUSDT", "c2", 2000))
            .await
            .unwrap();
        store
            .insert_trade(&trade(b, "ETHUSDT", "c3", 3000))
            .await
            .unwrap();
        assert_eq!(store.active_trades(a).await.unwrap().len(), 2);
        assert_eq!(store.count_open_trades(a).await.unwrap(), 2);

        t.status = TradeStatus::Closed;
        t.pnl = dec!(-12.5);
        t.closed_at = Some(5000);
        store.save_trade(&t).await.unwrap();
        assert_eq!(
            store
                .closed_pnls_between(a, Some(AccountVenue::Paper), i64::MIN, i64::MAX)
                .await
                .unwrap(),
            [dec!(-12.5)]
        );

        let page = |q: TradeQuery| {
            let store = store.clone();
            async move { store.trades_page(a, &q).await.unwrap() }
        };
        let all = TradeQuery {
            limit: 10,
            ..TradeQuery::default()
        };
        let (rows, total) = page(all.clone()).await;
        assert_eq!(total, 2);
        assert_eq!(rows[0].symbol, "ETHUSDT", "newest first");
        let (rows, total) = page(TradeQuery {
            status: Some(TradeStatus::Closed),
            ..all.clone()
        })
        .await;
        assert_eq!((rows.len(), total), (1, 1));
        let (_, total) = page(TradeQuery {
            symbol: Some("ETHUSDT".into()),
            ..all.clone()
        })
        .await;
        assert_eq!(total, 1);
        let (rows, total) = page(TradeQuery {
            from: Some(1500),
            to: Some(2500),
            ..all.clone()
        })
        .await;
        assert_eq!((rows[0].symbol.as_str(), total), ("ETHUSDT", 1));
        let (rows, total) = page(TradeQuery {
            limit: 1,
            offset: 1,
            ..all
        })
        .await;
        assert_eq!((rows[0].symbol.as_str(), total), ("BTCUSDT", 2));
    }
}

#[tokio::test]
async fn chains_open_and_close() {
    for (db, store) in TestDatabase::all_connected().await {
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let mut c = store
            .insert_chain(&Chain {
                id: 0,
                user_id: a,
                symbol: "BTCUSDT".into(),
                status: ChainStatus::Open,
                step: 1,
                side: PositionSide::Long,
                won: None,
                created_at: 10,
                closed_at: None,
            })
            .await
            .unwrap();
        assert_eq!(
            store.open_chains(a).await.unwrap(),
            [c.clone()],
            "{}",
            db.label
        );
        c.status = ChainStatus::Closed;
        c.step = 3;
        c.won = Some(false);
        c.closed_at = Some(99);
        store.save_chain(&c).await.unwrap();
        assert!(store.open_chains(a).await.unwrap().is_empty());
        store.delete_chain(a, c.id).await.unwrap();
    }
}

#[tokio::test]
async fn an_execution_is_booked_once_with_its_trade_whatever_repeats_it() {
    for (db, store) in TestDatabase::all_connected().await {
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let b = store.create_user("b", "h", 0).await.unwrap().id;
        let open = store
            .insert_trade(&trade(a, "BTCUSDT", "c1", 1000))
            .await
            .unwrap();
        let mut closed = open.clone();
        closed.status = TradeStatus::Closed;
        closed.pnl = dec!(-12.5);
        closed.closed_qty = dec!(0.033);
        assert!(
            store
                .book_execution(&closed, "paper-7", dec!(990), 2000)
                .await
                .unwrap(),
            "{}",
            db.label
        );
        assert_eq!(store.trade(a, open.id).await.unwrap().unwrap(), closed);
        // The same execution again, even carrying other figures, changes nothing.
        let mut again = closed.clone();
        again.pnl = dec!(-25);
        assert!(!store
            .book_execution(&again, "paper-7", dec!(990), 2001)
            .await
            .unwrap());
        assert_eq!(store.trade(a, open.id).await.unwrap().unwrap(), closed);
        assert_eq!(
            store.booked_executions(a, open.id).await.unwrap(),
            vec!["paper-7".to_string()]
        );
        assert_eq!(
            store
                .fill_volume_between(a, AccountVenue::Paper, i64::MIN, i64::MAX)
                .await
                .unwrap(),
            dec!(990)
        );
        // Venue ids are per user: another account's order may carry the same id.
        let other = store
            .insert_trade(&trade(b, "BTCUSDT", "c2", 1000))
            .await
            .unwrap();
        assert!(store
            .book_execution(&other, "paper-7", dec!(5), 2000)
            .await
            .unwrap());
        // A failed trade update (no such trade) writes no execution either.
        let mut ghost = open.clone();
        ghost.id = 9_999_999;
        assert!(store
            .book_execution(&ghost, "paper-8", dec!(1), 2000)
            .await
            .is_err());
        assert_eq!(store.booked_executions(a, open.id).await.unwrap().len(), 1);
        assert!(store
            .booked_executions(a, ghost.id)
            .await
            .unwrap()
            .is_empty());
    }
}
