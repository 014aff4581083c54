//! A history import (`Store::import_history`) on SQLite always and PostgreSQL when
//! `TEST_DATABASE_URL` is set: its chains take ids after every id given before (a deleted
//! chain's included), its trades name the chains of the file whatever their order in it, and
//! the bot's next chain gets an id of its own.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::repo::dashboard::BalanceSnapshot;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Chain, ChainStatus, Trade, TradeStatus};

const HOUR: i64 = 3_600_000;

fn chain(user_id: i64, symbol: &str, created_at: i64) -> Chain {
    Chain {
        id: 0,
        user_id,
        symbol: symbol.into(),
        status: ChainStatus::Closed,
        step: 1,
        side: PositionSide::Long,
        won: Some(true),
        created_at,
        closed_at: Some(created_at + HOUR),
    }
}

fn closed_trade(user_id: i64, symbol: &str, order_id: &str, opened_at: i64, pnl: Decimal) -> Trade {
    Trade {
        id: 0,
        user_id,
        symbol: symbol.into(),
        side: PositionSide::Long,
        status: TradeStatus::Closed,
        client_order_id: order_id.into(),
        leverage: 10,
        margin: dec!(20),
        qty: dec!(0.1),
        open_qty: dec!(0),
        entry_price: Some(dec!(2000)),
        exit_price: Some(dec!(2010)),
        closed_qty: dec!(0.1),
        exit_value: dec!(201),
        pnl,
        fees: dec!(0),
        funding: dec!(0),
        volume: dec!(401),
        stop_loss: None,
        tp_step: 0,
        close_reason: Some("imported".into()),
        chain_id: None,
        chain_step: Some(1),
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: opened_at,
        opened_at: Some(opened_at),
        closed_at: Some(opened_at + HOUR / 2),
        venue: None,
    }
}

#[tokio::test]
async fn imported_chains_take_fresh_ids_and_keep_their_trades() {
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("trader", "h", 0).await.unwrap().id;
        // Two chains the bot made, the second deleted: its id is never given again.
        let kept = store
            .insert_chain(&chain(user, "XRPUSDT", HOUR))
            .await
            .unwrap();
        let deleted = store
            .insert_chain(&chain(user, "XRPUSDT", 2 * HOUR))
            .await
            .unwrap();
        store.delete_chain(user, deleted.id).await.unwrap();

        let chains = [
            chain(user, "BTCUSDT", 10 * HOUR),
            chain(user, "ETHUSDT", 20 * HOUR),
            chain(user, "SOLUSDT", 30 * HOUR),
        ];
        // Newest first in the file, and a trade with no chain between them.
        let trades = [
            (
                closed_trade(user, "SOLUSDT", "imp-sol", 30 * HOUR, dec!(3)),
                Some(2),
            ),
            (
                closed_trade(user, "ADAUSDT", "imp-ada", 25 * HOUR, dec!(-1)),
                None,
            ),
            (
                closed_trade(user, "ETHUSDT", "imp-eth", 20 * HOUR, dec!(2)),
                Some(1),
            ),
            (
                closed_trade(user, "BTCUSDT", "imp-btc", 10 * HOUR, dec!(1)),
                Some(0),
            ),
        ];
        let snapshot = BalanceSnapshot {
            taken_at: 40 * HOUR,
            equity: dec!(10005),
            available_balance: dec!(10005),
            margin_balance: dec!(10005),
        };
        store
            .import_history(user, AccountVenue::Paper, &chains, &trades, &[snapshot])
            .await
            .unwrap();

        let imported = store
            .chains_with_trades(user, AccountVenue::Paper, 10 * HOUR, i64::MAX)
            .await
            .unwrap();
        assert_eq!(imported.len(), 3, "{}", db.label);
        for c in &imported {
            assert!(
                c.id > deleted.id,
                "{}: chain {} after {}",
                db.label,
                c.id,
                deleted.id
            );
            assert_eq!(
                c.trades.len(),
                1,
                "{}: one trade in chain {}",
                db.label,
                c.id
            );
        }
        let all = store.all_trades(user).await.unwrap();
        assert_eq!(all.len(), 4, "{}", db.label);
        for t in &all {
            let named = imported.iter().find(|c| Some(c.id) == t.chain_id);
            match t.symbol.as_str() {
                "ADAUSDT" => assert_eq!(t.chain_id, None, "{}", db.label),
                symbol => {
                    let c = named.unwrap_or_else(|| panic!("{}: {symbol} has its chain", db.label));
                    let created = chains
                        .iter()
                        .find(|c| c.symbol == symbol)
                        .unwrap()
                        .created_at;
                    assert_eq!(c.created_at, created, "{}: {symbol}'s chain", db.label);
                }
            }
        }
        // Trades are written oldest first: ids follow the opening times.
        let opened: Vec<Option<i64>> = all.iter().map(|t| t.opened_at).collect();
        let mut sorted = opened.clone();
        sorted.sort();
        assert_eq!(opened, sorted, "{}", db.label);

        // The bot's next chain: a fresh id after the imported ones.
        let next = store
            .insert_chain(&chain(user, "XRPUSDT", 50 * HOUR))
            .await
            .unwrap();
        assert!(
            imported.iter().all(|c| c.id < next.id) && kept.id < next.id,
            "{}: next chain {}",
            db.label,
            next.id
        );
        store.close().await;
    }
}

#[tokio::test]
async fn every_imported_trade_gets_its_own_two_fills_across_chunks() {
    // 2,500 trades: three INSERTs of trades (1,000, 1,000 and 500), each followed by its
    // fills; the file lists them in another order than their opening times.
    const COUNT: i64 = 2_500;
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("trader", "h", 0).await.unwrap().id;
        let trades: Vec<(Trade, Option<usize>)> = (0..COUNT)
            .map(|n| (n * 7) % COUNT)
            .map(|k| {
                let mut t = closed_trade(user, "BTCUSDT", &format!("imp-{k}"), k * HOUR, dec!(1));
                t.entry_price = Some(Decimal::from(2_000 + k));
                t.exit_value = Decimal::from(k) + dec!(0.5);
                (t, None)
            })
            .collect();
        store
            .import_history(user, AccountVenue::Paper, &[], &trades, &[])
            .await
            .unwrap();

        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url)
            .await
            .unwrap();
        let fills: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT t.client_order_id, f.notional, f.filled_at FROM fills f
             JOIN trades t ON t.id = f.trade_id AND t.user_id = f.user_id
             ORDER BY t.opened_at, f.filled_at",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        assert_eq!(fills.len(), 2 * COUNT as usize, "{}", db.label);
        for (k, pair) in (0..COUNT).zip(fills.chunks(2)) {
            let opening = (dec!(0.1) * Decimal::from(2_000 + k)).to_string();
            let closing = (Decimal::from(k) + dec!(0.5)).to_string();
            let order_id = format!("imp-{k}");
            assert_eq!(
                pair,
                [
                    (order_id.clone(), opening, k * HOUR),
                    (order_id, closing, k * HOUR + HOUR / 2),
                ],
                "{}: trade {k}'s fills",
                db.label
            );
        }
        store.close().await;
    }
}

#[tokio::test]
async fn imported_text_comes_back_as_written_and_the_figures_are_current() {
    // Text COPY must escape on PostgreSQL: its separators, line ends, backslashes, its NULL
    // and end-of-data markers; and characters beyond ASCII.
    let reasons = [
        "stop\tloss",
        "line\nbreak\r\nand return\r",
        "back\\slash \\N \\.",
        "\\.",
        "\\N",
        "тейк-профит ✓",
        "",
    ];
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("trader", "h", 0).await.unwrap().id;
        let at = 5 * HOUR;
        let kept = BalanceSnapshot {
            taken_at: at,
            equity: dec!(1),
            available_balance: dec!(1),
            margin_balance: dec!(1),
        };
        store
            .record_balance_snapshot(user, AccountVenue::Paper, &kept, 0)
            .await
            .unwrap();
        let trades: Vec<(Trade, Option<usize>)> = reasons
            .iter()
            .enumerate()
            .map(|(k, reason)| {
                let k = k as i64;
                let pnl = if k % 2 == 0 { dec!(2.5) } else { dec!(-1.25) };
                let mut t = closed_trade(user, "BTCUSDT", &format!("imp-\t{k}\\"), k * HOUR, pnl);
                t.close_reason = Some((*reason).into());
                (t, None)
            })
            .collect();
        let replacing = BalanceSnapshot {
            equity: dec!(10001.5),
            ..kept.clone()
        };
        store
            .import_history(user, AccountVenue::Paper, &[], &trades, &[replacing])
            .await
            .unwrap();

        let all = store.all_trades(user).await.unwrap();
        let written: Vec<(&str, &str)> = all
            .iter()
            .map(|t| {
                (
                    t.client_order_id.as_str(),
                    t.close_reason.as_deref().unwrap(),
                )
            })
            .collect();
        let expected: Vec<(String, &str)> = reasons
            .iter()
            .enumerate()
            .map(|(k, r)| (format!("imp-\t{k}\\"), *r))
            .collect();
        let expected: Vec<(&str, &str)> = expected.iter().map(|(o, r)| (o.as_str(), *r)).collect();
        assert_eq!(written, expected, "{}", db.label);

        let snapshot = store
            .balance_snapshot_at(user, AccountVenue::Paper, at)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(snapshot.equity, dec!(10001.5), "{}", db.label);

        // Rebuilt right after the import: up to date, and equal to the trades.
        assert_eq!(
            store.running_statistics_agree(user).await.unwrap(),
            Some(true),
            "{}",
            db.label
        );
        let figures = store
            .running_statistics(user, AccountVenue::Paper)
            .await
            .unwrap();
        assert_eq!(figures.trades, 7, "{}", db.label);
        assert_eq!(figures.wins, 4, "{}", db.label);
        assert_eq!(figures.pnl, dec!(6.25), "{}", db.label);
        store.close().await;
    }
}
