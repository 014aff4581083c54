//! The statistics tables on SQLite always and PostgreSQL when `TEST_DATABASE_URL` is set:
//! the quarter-hour rollup the triggers keep, fills for the 24 h volume, balance snapshots
//! with their retention, and trade counts at an instant.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_core::running_stats::RunningStatistics;
use signaldesk_core::stats::ClosedTally;
use signaldesk_store::repo::dashboard::{BalanceSnapshot, TradeCounts};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, Trade, TradeStatus};

const Q: i64 = 15 * 60 * 1000;

fn closed_trade(user_id: i64, n: usize, opened_at: i64, closed_at: i64, pnl: Decimal) -> Trade {
    Trade {
        id: 0,
        user_id,
        symbol: "ETHUSDT".into(),
        side: PositionSide::Long,
        status: TradeStatus::Closed,
        client_order_id: format!("roll-{user_id}-{n}"),
        leverage: 5,
        margin: dec!(20),
        qty: dec!(0.05),
        open_qty: dec!(0),
        entry_price: Some(dec!(2000)),
        exit_price: Some(dec!(2010)),
        closed_qty: dec!(0.05),
        exit_value: dec!(100.5),
        pnl,
        fees: dec!(0.1),
        funding: dec!(0),
        volume: dec!(200.5),
        stop_loss: None,
        tp_step: 0,
        close_reason: Some("manual".into()),
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: opened_at,
        opened_at: Some(opened_at),
        closed_at: Some(closed_at),
        venue: Some(AccountVenue::Paper),
    }
}

/// The rollup rebuilt by hand from (close time, pnl) pairs.
fn expected(trades: &[(i64, Decimal)]) -> Vec<ClosedTally> {
    let mut out: Vec<ClosedTally> = Vec::new();
    let mut sorted = trades.to_vec();
    sorted.sort();
    for (at, pnl) in sorted {
        let start = at.div_euclid(Q) * Q;
        match out.last_mut() {
            Some(t) if t.at_ms == start => {
                t.trades += 1;
                t.wins += u64::from(pnl > Decimal::ZERO);
                t.pnl += pnl;
            }
            _ => out.push(ClosedTally {
                at_ms: start,
                ..ClosedTally::trade(at, pnl)
            }),
        }
    }
    out
}

/// Every account a trade can be on.
const ACCOUNTS: [AccountVenue; 3] = [
    AccountVenue::Paper,
    AccountVenue::Bybit { demo: true },
    AccountVenue::Bybit { demo: false },
];

/// The user's paper rollup as `store` keeps it (see [`account_rollup`]).
async fn rollup(store: &Store, url: &str, user: i64) -> Vec<ClosedTally> {
    account_rollup(store, url, user, AccountVenue::Paper).await
}

/// The user's rollup on `venue` as `store` keeps it (brought up to date change by change),
/// checked against a store that reads it whole for the first time, as another process would.
async fn account_rollup(
    store: &Store,
    url: &str,
    user: i64,
    venue: AccountVenue,
) -> Vec<ClosedTally> {
    let kept = store.closed_rollup(user, venue).await.unwrap();
    let kept = kept.quarters_between(i64::MIN, i64::MAX).to_vec();
    let fresh = Store::connect(url).await.unwrap();
    let whole = fresh.closed_rollup(user, venue).await.unwrap();
    assert_eq!(kept, whole.quarters_between(i64::MIN, i64::MAX));
    fresh.close().await;
    kept
}

#[tokio::test]
async fn the_rollup_follows_every_insert_close_correction_and_reopen_of_a_trade() {
    for (db, store) in TestDatabase::all_connected().await {
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let b = store.create_user("b", "h", 0).await.unwrap().id;
        let base = 1_763_900_000_000 - 1_763_900_000_000 % Q;
        let mut seeded = vec![
            (base + 1_000, dec!(1.5)),
            (base + Q - 1, dec!(-0.25)),
            (base + Q, dec!(0)),
            (base + 5 * Q + 7, dec!(0.00000001)),
        ];
        for (n, &(at, pnl)) in seeded.iter().enumerate() {
            store
                .insert_trade(&closed_trade(a, n, at - 60_000, at, pnl))
                .await
                .unwrap();
        }
        store
            .insert_trade(&closed_trade(b, 99, base, base + 10, dec!(1000)))
            .await
            .unwrap();
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&seeded),
            "{}",
            db.label
        );

        // An open trade counts once it is saved closed.
        let mut open = closed_trade(a, 10, base, base + 2 * Q, dec!(0));
        open.status = TradeStatus::Open;
        open.closed_at = None;
        let mut open = store.insert_trade(&open).await.unwrap();
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&seeded),
            "{}",
            db.label
        );
        open.status = TradeStatus::Closed;
        open.closed_at = Some(base + 2 * Q + 5);
        open.pnl = dec!(-3.12345678);
        store.save_trade(&open).await.unwrap();
        seeded.push((base + 2 * Q + 5, dec!(-3.12345678)));
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&seeded),
            "{}",
            db.label
        );

        // Saving a closed trade again with a corrected pnl moves the difference only.
        open.pnl = dec!(4);
        store.save_trade(&open).await.unwrap();
        seeded.pop();
        seeded.push((base + 2 * Q + 5, dec!(4)));
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&seeded),
            "{}",
            db.label
        );

        // Reopened, its quarter hour empties and leaves the kept copy too; closed again, back.
        open.status = TradeStatus::Open;
        let closed_at = open.closed_at.take();
        store.save_trade(&open).await.unwrap();
        let reclosed = seeded.pop().unwrap();
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&seeded),
            "{}",
            db.label
        );
        open.status = TradeStatus::Closed;
        open.closed_at = closed_at;
        store.save_trade(&open).await.unwrap();
        seeded.push(reclosed);
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&seeded),
            "{}",
            db.label
        );

        // Bounds are whole quarter hours: [base + Q, base + 3Q) holds two quarters.
        let kept = store.closed_rollup(a, AccountVenue::Paper).await.unwrap();
        let window = kept.quarters_between(base + Q, base + 3 * Q);
        let starts: Vec<i64> = window.iter().map(|t| t.at_ms).collect();
        assert_eq!(starts, [base + Q, base + 2 * Q], "{}", db.label);
        assert_eq!(
            rollup(&store, &db.url, b).await,
            expected(&[(base + 10, dec!(1000))])
        );

        // A week later the same slot of the week: summed into one row timed at the first.
        let week = 672 * Q;
        store
            .insert_trade(&closed_trade(a, 20, base, base + week + 3, dec!(2)))
            .await
            .unwrap();
        seeded.push((base + week + 3, dec!(2)));
        let kept = store.closed_rollup(a, AccountVenue::Paper).await.unwrap();
        let slots = kept.week_slots(i64::MIN, i64::MAX);
        let first = &slots[0];
        assert_eq!(first.at_ms, base, "{}", db.label);
        assert_eq!((first.trades, first.wins, first.pnl), (3, 2, dec!(3.25)));
        assert_eq!(slots.len(), 4, "{slots:?}");
        let total: Decimal = seeded.iter().map(|(_, p)| p).sum();
        assert_eq!(slots.iter().map(|t| t.pnl).sum::<Decimal>(), total);
        // Runs of 4 quarter hours (aligned to the epoch), each timed at its last quarter.
        let runs = kept.runs(i64::MIN, i64::MAX, 4);
        let mut by_run: std::collections::BTreeMap<i64, (i64, u64)> = Default::default();
        for (at, _) in &seeded {
            let quarter = at.div_euclid(Q);
            let run = by_run.entry(quarter / 4).or_insert((0, 0));
            run.0 = run.0.max(quarter * Q);
            run.1 += 1;
        }
        let shape: Vec<(i64, u64)> = runs.iter().map(|t| (t.at_ms, t.trades)).collect();
        assert_eq!(
            shape,
            by_run.into_values().collect::<Vec<_>>(),
            "{}",
            db.label
        );
        assert_eq!(kept.bounds(i64::MIN, i64::MAX), Some((base, base + week)));
        assert_eq!(kept.bounds(0, 1), None);
    }
}

/// Users a and b, and a's closed trade (opened at 1,000, closed at 5,000).
async fn two_users_and_a_trade_of_a(store: &Store) -> (i64, i64, Trade) {
    let a = store.create_user("a", "h", 0).await.unwrap().id;
    let b = store.create_user("b", "h", 0).await.unwrap().id;
    let t = store
        .insert_trade(&closed_trade(a, 1, 1_000, 5_000, dec!(1)))
        .await
        .unwrap();
    (a, b, t)
}

/// A fill names its trade and that trade's user (migration 0033): one that names another
/// user's trade, or a trade that does not exist, is refused and nothing is written.
#[tokio::test]
async fn a_fill_belongs_to_its_trades_user() {
    for (db, store) in TestDatabase::all_connected().await {
        let (a, b, t) = two_users_and_a_trade_of_a(&store).await;
        store.insert_fill(a, t.id, dec!(10), 1_000).await.unwrap();
        assert!(
            store.insert_fill(b, t.id, dec!(99), 2_000).await.is_err(),
            "{}: a fill of b on a's trade",
            db.label
        );
        assert!(
            store
                .insert_fill(a, t.id + 1_000, dec!(99), 2_000)
                .await
                .is_err(),
            "{}: a fill of a trade that does not exist",
            db.label
        );
        for (user, volume) in [(a, dec!(10)), (b, dec!(0))] {
            let found = store
                .fill_volume_between(user, AccountVenue::Paper, 0, 10_000)
                .await
                .unwrap();
            assert_eq!(found, volume, "{}", db.label);
        }
    }
}

#[tokio::test]
async fn fills_snapshots_and_counts_answer_for_an_instant_and_a_window() {
    for (db, store) in TestDatabase::all_connected().await {
        let (a, b, t) = two_users_and_a_trade_of_a(&store).await;
        store
            .insert_fill(a, t.id, dec!(100.25), 1_000)
            .await
            .unwrap();
        store.insert_fill(a, t.id, dec!(0.5), 4_999).await.unwrap();
        store.insert_fill(a, t.id, dec!(7), 5_000).await.unwrap();
        let theirs = store
            .insert_trade(&closed_trade(b, 2, 6_000, 7_000, dec!(1)))
            .await
            .unwrap();
        store
            .insert_fill(b, theirs.id, dec!(1000), 2_000)
            .await
            .unwrap();
        let volume = store
            .fill_volume_between(a, AccountVenue::Paper, 1_000, 5_000)
            .await
            .unwrap();
        assert_eq!(volume, dec!(100.75), "{}", db.label);
        assert_eq!(
            store
                .fill_volume_between(a, AccountVenue::Paper, 6_000, 9_000)
                .await
                .unwrap(),
            dec!(0)
        );

        let snap = |at: i64, equity: Decimal| BalanceSnapshot {
            taken_at: at,
            equity,
            available_balance: equity - dec!(10),
            margin_balance: equity,
        };
        for (at, eq) in [(100, dec!(1000)), (400, dec!(1010.5)), (700, dec!(990))] {
            store
                .record_balance_snapshot(a, AccountVenue::Paper, &snap(at, eq), 0)
                .await
                .unwrap();
        }
        assert_eq!(
            store
                .balance_snapshot_at(a, AccountVenue::Paper, 699)
                .await
                .unwrap(),
            Some(snap(400, dec!(1010.5))),
            "{}",
            db.label
        );
        assert_eq!(
            store
                .balance_snapshot_at(a, AccountVenue::Paper, 99)
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            store
                .balance_snapshot_at(b, AccountVenue::Paper, 1_000)
                .await
                .unwrap(),
            None
        );
        // Writing at 1000 with retention from 500 drops the two older ones.
        store
            .record_balance_snapshot(a, AccountVenue::Paper, &snap(1_000, dec!(995)), 500)
            .await
            .unwrap();
        assert_eq!(
            store
                .balance_snapshot_at(a, AccountVenue::Paper, 600)
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            store
                .balance_snapshot_at(a, AccountVenue::Paper, 900)
                .await
                .unwrap(),
            Some(snap(700, dec!(990)))
        );

        let mut still_open = closed_trade(a, 2, 3_000, 0, dec!(0));
        still_open.status = TradeStatus::Open;
        still_open.closed_at = None;
        store.insert_trade(&still_open).await.unwrap();
        let mut pending = closed_trade(a, 3, 3_500, 0, dec!(0));
        pending.status = TradeStatus::Pending;
        pending.opened_at = None;
        pending.closed_at = None;
        store.insert_trade(&pending).await.unwrap();
        let counts = |open, total| TradeCounts { open, total };
        assert_eq!(
            store
                .trade_counts_at(a, AccountVenue::Paper, 999)
                .await
                .unwrap(),
            counts(0, 0)
        );
        assert_eq!(
            store
                .trade_counts_at(a, AccountVenue::Paper, 3_000)
                .await
                .unwrap(),
            counts(2, 2),
            "{}",
            db.label
        );
        assert_eq!(
            store
                .trade_counts_at(a, AccountVenue::Paper, 5_000)
                .await
                .unwrap(),
            counts(1, 2)
        );
        assert_eq!(
            store
                .trade_counts_at(b, AccountVenue::Paper, 5_000)
                .await
                .unwrap(),
            counts(0, 0)
        );
    }
}

/// The user's running figures on each account against the reference: every closed trade of
/// that account walked in close order (a trade without a venue is on none). Also checks the
/// dashboard's counts at a few instants against a walk of the account's trades.
async fn assert_running_exact(store: &Store, user: i64, label: &str) {
    let all = store.all_trades(user).await.unwrap();
    for venue in ACCOUNTS {
        let trades: Vec<_> = all.iter().filter(|t| t.venue == Some(venue)).collect();
        let mut closed: Vec<_> = trades
            .iter()
            .filter(|t| t.status == TradeStatus::Closed)
            .filter_map(|t| Some((t.closed_at?, t.id, t.pnl)))
            .collect();
        closed.sort();
        let pnls: Vec<Decimal> = closed.iter().map(|c| c.2).collect();
        assert_eq!(
            store.running_statistics(user, venue).await.unwrap(),
            RunningStatistics::of(&pnls),
            "{label} {venue:?}"
        );
        for at in [0, 1_500, 2_500, 10_000, 50_000, i64::MAX - 1] {
            let opened: Vec<_> = trades
                .iter()
                .filter(|t| matches!(t.status, TradeStatus::Open | TradeStatus::Closed))
                .filter(|t| t.opened_at.is_some_and(|o| o <= at))
                .collect();
            let open = opened
                .iter()
                .filter(|t| t.closed_at.is_none_or(|c| c > at))
                .count() as i64;
            assert_eq!(
                store.trade_counts_at(user, venue, at).await.unwrap(),
                TradeCounts {
                    open,
                    total: opened.len() as i64
                },
                "{label} {venue:?} at {at}"
            );
        }
    }
    // Read once, every account's row is up to date and agrees.
    assert_eq!(
        store.running_statistics_agree(user).await.unwrap(),
        Some(true),
        "{label}"
    );
}

#[tokio::test]
async fn running_figures_follow_closes_in_order_corrections_deletes_and_inserts() {
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let b = store.create_user("b", "h", 0).await.unwrap().id;
        assert_running_exact(&store, a, label).await;

        // Closes in order, through save_trade and book_execution: advanced as they happen.
        let pnls = [
            dec!(5),
            dec!(-2.5),
            dec!(-1),
            dec!(4),
            dec!(0),
            dec!(-7.12345678),
        ];
        let mut trades = Vec::new();
        for (n, pnl) in pnls.iter().enumerate() {
            let at = 1_000 * (n as i64 + 1);
            let mut t = closed_trade(a, n, at, at + 500, *pnl);
            t.status = TradeStatus::Open;
            t.closed_at = None;
            let mut t = store.insert_trade(&t).await.unwrap();
            t.status = TradeStatus::Closed;
            t.closed_at = Some(at + 500);
            if n % 2 == 0 {
                store.save_trade(&t).await.unwrap();
            } else {
                let booked = store
                    .book_execution(&t, &format!("exec-{n}"), dec!(100), at + 500)
                    .await
                    .unwrap();
                assert!(booked);
            }
            assert_eq!(
                store.running_statistics_agree(a).await.unwrap(),
                Some(true),
                "{label}: close {n} advanced in its transaction"
            );
            trades.push(t);
        }
        assert_running_exact(&store, a, label).await;

        // A trade of b's and an open trade of a's change nothing of a's closes.
        store
            .insert_trade(&closed_trade(b, 50, 100, 200, dec!(1000)))
            .await
            .unwrap();
        let mut open = closed_trade(a, 60, 40_000, 0, dec!(0));
        open.status = TradeStatus::Open;
        open.closed_at = None;
        let mut open = store.insert_trade(&open).await.unwrap();
        open.stop_loss = Some(dec!(1900));
        store.save_trade(&open).await.unwrap();
        assert_eq!(store.running_statistics_agree(a).await.unwrap(), Some(true));
        assert_running_exact(&store, a, label).await;
        assert_running_exact(&store, b, label).await;

        // A correction of a closed trade's pnl: behind until read, then exact.
        trades[1].pnl = dec!(3);
        store.save_trade(&trades[1]).await.unwrap();
        assert_eq!(store.running_statistics_agree(a).await.unwrap(), None);
        assert_running_exact(&store, a, label).await;

        // A close earlier than the latest one (out of close order).
        open.status = TradeStatus::Closed;
        open.closed_at = Some(1_200);
        open.pnl = dec!(-9);
        store.save_trade(&open).await.unwrap();
        assert_eq!(store.running_statistics_agree(a).await.unwrap(), None);
        assert_running_exact(&store, a, label).await;

        // A closed trade inserted directly (as an import does), and one deleted.
        store
            .insert_trade(&closed_trade(a, 70, 2_000, 2_200, dec!(11)))
            .await
            .unwrap();
        assert_running_exact(&store, a, label).await;
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url)
            .await
            .unwrap();
        sqlx::query("DELETE FROM trades WHERE id = $1")
            .bind(trades[3].id)
            .execute(&mut conn)
            .await
            .unwrap();
        assert_running_exact(&store, a, label).await;

        // Reopened (a close undone): out of the closed set again.
        trades[5].status = TradeStatus::Open;
        trades[5].closed_at = None;
        store.save_trade(&trades[5]).await.unwrap();
        assert_running_exact(&store, a, label).await;
        assert_running_exact(&store, b, label).await;
    }
}

/// The rollup on each account against a recomputation from the trades of that account.
async fn assert_rollups_exact(store: &Store, url: &str, user: i64, label: &str) {
    let all = store.all_trades(user).await.unwrap();
    for venue in ACCOUNTS {
        let closes: Vec<(i64, Decimal)> = all
            .iter()
            .filter(|t| t.venue == Some(venue) && t.status == TradeStatus::Closed)
            .filter_map(|t| Some((t.closed_at?, t.pnl)))
            .collect();
        assert_eq!(
            account_rollup(store, url, user, venue).await,
            expected(&closes),
            "{label} {venue:?}"
        );
    }
}

#[tokio::test]
async fn rollup_and_running_figures_are_kept_per_account_and_a_trade_without_one_counts_nowhere() {
    let demo = AccountVenue::Bybit { demo: true };
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let check = |step: &'static str| {
            let (store, url) = (&store, &db.url);
            async move {
                let label = format!("{label}: {step}");
                assert_rollups_exact(store, url, a, &label).await;
                assert_running_exact(store, a, &label).await;
            }
        };
        // Paper closes, then demo closes in the same quarter hours, and a legacy trade.
        let mut trades = Vec::new();
        for n in 0..6 {
            let at = 1_000 * (n as i64 + 1);
            let mut t = closed_trade(a, n, at, at + 500, dec!(3) - Decimal::from(n));
            t.venue = Some(if n < 3 { AccountVenue::Paper } else { demo });
            t.status = TradeStatus::Open;
            t.closed_at = None;
            let mut t = store.insert_trade(&t).await.unwrap();
            t.status = TradeStatus::Closed;
            t.closed_at = Some(at + 500);
            store.save_trade(&t).await.unwrap();
            trades.push(t);
        }
        let mut legacy = closed_trade(a, 10, 500, 8_000, dec!(100));
        legacy.venue = None;
        let legacy = store.insert_trade(&legacy).await.unwrap();
        let mut open = closed_trade(a, 11, 9_000, 0, dec!(0));
        open.venue = Some(demo);
        open.status = TradeStatus::Open;
        open.closed_at = None;
        store.insert_trade(&open).await.unwrap();
        check("closes on two accounts and one on none").await;
        let paper = store
            .running_statistics(a, AccountVenue::Paper)
            .await
            .unwrap();
        assert_eq!((paper.trades, paper.pnl), (3, dec!(6)), "{label}");
        let on_demo = store.running_statistics(a, demo).await.unwrap();
        assert_eq!((on_demo.trades, on_demo.pnl), (3, dec!(-3)), "{label}");
        assert_eq!(
            store.trade_counts_at(a, demo, i64::MAX - 1).await.unwrap(),
            TradeCounts { open: 1, total: 4 },
            "{label}"
        );

        // A correction on one account leaves the other's figures as they were.
        trades[4].pnl = dec!(7);
        store.save_trade(&trades[4]).await.unwrap();
        check("a demo correction").await;

        // The legacy trade placed on paper (as the upgrade does), then a trade moved across.
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url)
            .await
            .unwrap();
        sqlx::query("UPDATE trades SET venue = 'paper' WHERE id = $1")
            .bind(legacy.id)
            .execute(&mut conn)
            .await
            .unwrap();
        check("the legacy trade placed on paper").await;
        sqlx::query("UPDATE trades SET venue = 'bybit-demo' WHERE id = $1")
            .bind(trades[0].id)
            .execute(&mut conn)
            .await
            .unwrap();
        check("a paper trade moved to demo").await;
        sqlx::query("UPDATE trades SET venue = NULL WHERE id = $1")
            .bind(trades[1].id)
            .execute(&mut conn)
            .await
            .unwrap();
        check("a paper trade taken off every account").await;
        sqlx::query("DELETE FROM trades WHERE id = $1")
            .bind(trades[5].id)
            .execute(&mut conn)
            .await
            .unwrap();
        check("a demo trade deleted").await;
        assert!(
            store
                .closed_rollup(a, AccountVenue::Bybit { demo: false })
                .await
                .unwrap()
                .bounds(i64::MIN, i64::MAX)
                .is_none(),
            "{label}: nothing on real"
        );
    }
}

/// A close whose transaction commits after a later one began: a store reading in between
/// must not skip it for good. The first writer's transaction holds its change number open
/// while a second writer closes a trade of the same user and a reader reads.
#[tokio::test]
async fn a_kept_rollup_misses_no_change_committed_out_of_order() {
    sqlx::any::install_default_drivers();
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("busy", "h", 0).await.unwrap().id;
        let base = 1_763_900_000_000 - 1_763_900_000_000 % Q;
        let pool = sqlx::any::AnyPoolOptions::new()
            .max_connections(2)
            .connect(&db.url)
            .await
            .unwrap();
        let insert = |n: i64| {
            format!(
                "INSERT INTO trades (user_id, symbol, side, status, client_order_id, leverage, \
                 margin, qty, open_qty, closed_qty, exit_value, pnl, fees, volume, tp_step, \
                 close_reason, created_at, opened_at, closed_at, venue) VALUES ({user}, \
                 'BTCUSDT', 'long', 'CLOSED', 'late-{n}', 10, '100', '0.01', '0', '0.01', '300', \
                 '1', '0.1', '600', 0, 'manual', {at}, {at}, {at}, 'paper')",
                at = base + n * Q
            )
        };
        let mut first = pool.begin().await.unwrap();
        sqlx::query(&insert(1)).execute(&mut *first).await.unwrap();
        let second = tokio::spawn({
            let pool = pool.clone();
            let sql = insert(2);
            async move { sqlx::query(&sql).execute(&pool).await.unwrap() }
        });
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let reader = Store::connect(&db.url).await.unwrap();
        reader
            .closed_rollup(user, AccountVenue::Paper)
            .await
            .unwrap();
        first.commit().await.unwrap();
        second.await.unwrap();
        let kept = rollup(&reader, &db.url, user).await;
        assert_eq!(kept.len(), 2, "{}: {kept:?}", db.label);
        reader.close().await;
        pool.close().await;
    }
}

/// Funding booked on a trade, while open and after its close, is in its pnl once however
/// often it is booked, and every figure built on pnl (the rollup, the running figures, the
/// day's money of the Telegram summary) equals the sum of the trades' net pnl.
#[tokio::test]
async fn funding_is_booked_once_and_every_statistic_is_the_sum_of_net_pnl() {
    for (db, store) in TestDatabase::all_connected().await {
        let a = store.create_user("a", "h", 0).await.unwrap().id;
        let base = 1_763_900_000_000 - 1_763_900_000_000 % Q;
        let mut open = closed_trade(a, 1, base, base + 3 * Q, dec!(0));
        (open.status, open.closed_at, open.pnl) = (TradeStatus::Open, None, dec!(-0.1));
        open.venue = Some(AccountVenue::Paper);
        let mut open = store.insert_trade(&open).await.unwrap();

        let found = store
            .funding_trade(a, AccountVenue::Paper, "ETHUSDT", "", base + Q)
            .await
            .unwrap();
        assert_eq!(found.map(|t| t.id), Some(open.id), "{}", db.label);
        let named = store
            .funding_trade(a, AccountVenue::Paper, "ETHUSDT", "another", base + Q)
            .await
            .unwrap();
        assert_eq!(named, None, "{}", db.label);

        // Paid 0.0375 at the first settlement; the same id again changes nothing.
        (open.funding, open.pnl) = (dec!(-0.0375), open.pnl - dec!(0.0375));
        assert!(store.book_funding(&open, "f-1", base + Q).await.unwrap());
        let mut again = open.clone();
        again.pnl -= dec!(0.0375);
        assert!(!store.book_funding(&again, "f-1", base + Q).await.unwrap());
        open.status = TradeStatus::Closed;
        open.closed_at = Some(base + 2 * Q);
        open.pnl += dec!(2);
        store.save_trade(&open).await.unwrap();
        // A settlement read back after the close (it happened while the server was down).
        (open.funding, open.pnl) = (open.funding + dec!(0.01), open.pnl + dec!(0.01));
        assert!(store
            .book_funding(&open, "f-2", base + Q + 5)
            .await
            .unwrap());

        let stored = store.trade(a, open.id).await.unwrap().unwrap();
        assert_eq!(stored.funding, dec!(-0.0275), "{}", db.label);
        assert_eq!(stored.pnl, dec!(1.8725), "{}", db.label);
        let other = closed_trade(a, 2, base, base + 4 * Q, dec!(-0.5));
        store.insert_trade(&other).await.unwrap();
        let net = [(base + 2 * Q, stored.pnl), (base + 4 * Q, dec!(-0.5))];
        assert_eq!(
            rollup(&store, &db.url, a).await,
            expected(&net),
            "{}",
            db.label
        );
        assert_running_exact(&store, a, db.label).await;
        let (pnls, funding) = store
            .closed_money_between(a, AccountVenue::Paper, i64::MIN, i64::MAX)
            .await
            .unwrap();
        assert_eq!(pnls, vec![dec!(1.8725), dec!(-0.5)], "{}", db.label);
        assert_eq!(funding, dec!(-0.0275), "{}", db.label);
    }
}

/// The upgrade's placing of keys from before keys named their exchange also places their
/// user's trades and balance snapshots without a venue, when the keys say one account: paper
/// books on paper, Bybit books on the Bybit keys' environment; otherwise they stay on none.
#[tokio::test]
async fn the_upgrade_places_legacy_trades_on_the_one_account_of_their_users_keys() {
    let demo = AccountVenue::Bybit { demo: true };
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url)
            .await
            .unwrap();
        let mut legacy = Vec::new();
        // (name, the keys' is_demo, the id of the user's one execution)
        for (n, (name, keys, execution)) in [
            ("paper", &[1][..], Some("paper-7")),
            ("demo", &[1][..], Some("1a2b-order")),
            ("both", &[1, 0][..], Some("3c4d-order")),
            ("none", &[0][..], None),
        ]
        .into_iter()
        .enumerate()
        {
            let user = store.create_user(name, "h", 0).await.unwrap().id;
            let mut t = closed_trade(user, 100 + n, 1_000, 2_000, dec!(4));
            t.venue = None;
            let t = store.insert_trade(&t).await.unwrap();
            for is_demo in keys {
                sqlx::query(
                    "INSERT INTO api_keys (user_id, key_enc, secret_enc, is_demo, is_active,
                         created_at) VALUES ($1, 'k', 's', $2, 0, 0)",
                )
                .bind(user)
                .bind(i64::from(*is_demo))
                .execute(&mut conn)
                .await
                .unwrap();
            }
            if let Some(execution) = execution {
                sqlx::query(
                    "INSERT INTO fills (user_id, trade_id, notional, filled_at, venue_id)
                     VALUES ($1, $2, '100', 2000, $3)",
                )
                .bind(user)
                .bind(t.id)
                .bind(execution)
                .execute(&mut conn)
                .await
                .unwrap();
            }
            sqlx::query(
                "INSERT INTO balance_snapshots (user_id, taken_at, equity, available_balance,
                     margin_balance) VALUES ($1, 5000, '10', '10', '10')",
            )
            .bind(user)
            .execute(&mut conn)
            .await
            .unwrap();
            legacy.push((user, t.id));
        }
        // Keys from before: no exchange yet.
        sqlx::query("UPDATE api_keys SET exchange = NULL")
            .execute(&mut conn)
            .await
            .unwrap();
        store.place_undecided_keys().await.unwrap();

        let placed: Vec<Option<AccountVenue>> = {
            let mut placed = Vec::new();
            for (user, id) in &legacy {
                let trades = store.all_trades(*user).await.unwrap();
                placed.push(trades.iter().find(|t| t.id == *id).unwrap().venue);
            }
            placed
        };
        assert_eq!(
            placed,
            [Some(AccountVenue::Paper), Some(demo), None, None],
            "{label}"
        );
        for ((user, _), venue) in legacy.iter().zip(&placed) {
            assert_running_exact(&store, *user, label).await;
            assert_rollups_exact(&store, &db.url, *user, label).await;
            let counted: u64 = {
                let mut n = 0;
                for account in ACCOUNTS {
                    n += store
                        .running_statistics(*user, account)
                        .await
                        .unwrap()
                        .trades;
                }
                n
            };
            assert_eq!(counted, u64::from(venue.is_some()), "{label} user {user}");
            for account in ACCOUNTS {
                let snapshot = store
                    .balance_snapshot_at(*user, account, 9_000)
                    .await
                    .unwrap();
                assert_eq!(
                    snapshot.is_some(),
                    *venue == Some(account),
                    "{label} user {user} {account:?}"
                );
            }
        }
        assert_eq!(
            store
                .fill_volume_between(legacy[1].0, demo, i64::MIN, i64::MAX)
                .await
                .unwrap(),
            dec!(100),
            "{label}"
        );
    }
}
