//! `/api/stats/` and `/api/martingale_chains/` over a seeded history in Asia/Tokyo (UTC+9,
//! no DST), on SQLite and PostgreSQL: period boundaries at local midnight, weekday (1 =
//! Sunday) and hour buckets in the user's zone, zero pnl as a loss, chains by date and order.

use chrono::{Datelike, Days, NaiveDate, Utc};
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::{Chain, ChainStatus, Trade, TradeStatus};

use crate::helpers::{assert_json_error, TestApp};

const TOKYO_OFFSET_MS: i64 = 9 * 3600 * 1000;

/// Unix ms of a Tokyo wall time (Tokyo has no DST: always UTC+9).
fn tokyo(date: NaiveDate, h: u32, m: u32, s: u32) -> i64 {
    date.and_hms_opt(h, m, s)
        .unwrap()
        .and_utc()
        .timestamp_millis()
        - TOKYO_OFFSET_MS
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn trade(user_id: i64, n: usize, status: TradeStatus, created_at: i64, pnl: i64) -> Trade {
    let closed = status == TradeStatus::Closed;
    Trade {
        id: 0,
        user_id,
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        status,
        client_order_id: format!("stats-{user_id}-{n}"),
        leverage: 10,
        margin: Decimal::from(100),
        qty: Decimal::ONE,
        open_qty: if closed { Decimal::ZERO } else { Decimal::ONE },
        entry_price: Some(Decimal::from(30000)),
        exit_price: None,
        closed_qty: Decimal::ZERO,
        exit_value: Decimal::ZERO,
        pnl: Decimal::from(pnl),
        fees: Decimal::ZERO,
        funding: Decimal::ZERO,
        volume: Decimal::ZERO,
        stop_loss: None,
        tp_step: 0,
        close_reason: closed.then(|| "manual".to_string()),
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at,
        opened_at: Some(created_at),
        closed_at: None,
        venue: Some(AccountVenue::Paper),
    }
}

/// A user in Asia/Tokyo; returns (token, user id).
async fn tokyo_user(app: &TestApp, name: &str) -> (String, i64) {
    let token = app.user_with_token(name).await;
    let list = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    let id = &list[0]["id"];
    app.call_ok(
        Method::PUT,
        &format!("/api/bot-settings/{id}/"),
        &token,
        Some(json!({"user_timezone": "Asia/Tokyo"})),
        StatusCode::OK,
    )
    .await;
    let user = app.store().user_by_username(name).await.unwrap().unwrap();
    (token, user.id)
}

/// A trade closed at `closed_at` with `pnl` (created a minute before).
async fn closed(app: &TestApp, user_id: i64, n: usize, closed_at: i64, pnl: i64) {
    let mut t = trade(user_id, n, TradeStatus::Closed, closed_at - 60_000, pnl);
    t.closed_at = Some(closed_at);
    app.store().insert_trade(&t).await.unwrap();
}

async fn get(app: &TestApp, token: &str, path: &str) -> Value {
    app.call_ok(Method::GET, path, token, None, StatusCode::OK)
        .await
}

#[tokio::test]
async fn periods_are_whole_local_days_back_and_month_from_the_first() {
    for app in TestApp::on_every_backend().await {
        let (token, user) = tokyo_user(&app, "alice").await;
        let today = Utc::now()
            .with_timezone(&chrono_tz::Asia::Tokyo)
            .date_naive();
        let back = |n: u64| today - Days::new(n);
        let first = today.with_day(1).unwrap();
        let last_of_previous = first - Days::new(1);
        // Each pnl a distinct signed power of two, so a total names the trades it sums.
        let seeded = [
            (tokyo(back(1), 0, 0, 30), 1),
            (tokyo(back(2), 23, 59, 30), -2),
            (tokyo(back(3), 0, 0, 0), 4),
            (tokyo(back(4), 23, 59, 59) + 999, 8),
            (tokyo(back(7), 0, 0, 0), 16),
            (tokyo(back(8), 23, 59, 59), -32),
            (tokyo(first, 0, 0, 0), 64),
            (tokyo(last_of_previous, 23, 59, 59), 128),
        ];
        for (n, &(at, pnl)) in seeded.iter().enumerate() {
            closed(&app, user, n, at, pnl).await;
        }
        // An open trade never counts.
        app.store()
            .insert_trade(&trade(
                user,
                99,
                TradeStatus::Open,
                tokyo(back(1), 1, 0, 0),
                0,
            ))
            .await
            .unwrap();
        let since = |from: i64| -> (u64, i64) {
            let inside: Vec<i64> = seeded
                .iter()
                .filter(|(at, _)| *at >= from)
                .map(|(_, p)| *p)
                .collect();
            (inside.len() as u64, inside.iter().sum())
        };
        for (period, from) in [
            ("24h", tokyo(back(1), 0, 0, 0)),
            ("3d", tokyo(back(3), 0, 0, 0)),
            ("7d", tokyo(back(7), 0, 0, 0)),
            ("month", tokyo(first, 0, 0, 0)),
            ("all", i64::MIN),
        ] {
            let s = get(&app, &token, &format!("/api/stats/?period={period}")).await;
            let (count, pnl) = since(from);
            assert_eq!(s["total_trades"], count, "{period} on {}", app.db_url());
            assert_eq!(s["total_pnl"].as_f64(), Some(pnl as f64), "{period}");
        }
        // Each boundary trade sits a second (or less) either side of its boundary, so the
        // counts above fail if a period starts a day early or late.
        let month = get(&app, &token, "/api/stats/?period=month").await;
        assert_eq!(
            get(&app, &token, "/api/stats/").await,
            month,
            "month by default"
        );
    }
}

#[tokio::test]
async fn custom_period_is_inclusive_with_local_weekday_and_hour_buckets() {
    for app in TestApp::on_every_backend().await {
        let (token, user) = tokyo_user(&app, "bob").await;
        let seeded = [
            (tokyo(day(2025, 6, 9), 23, 59, 59), 100), // Monday, the day before
            (tokyo(day(2025, 6, 10), 0, 0, 10), 5),    // Tuesday 00:00 (Monday 15:00 UTC)
            (tokyo(day(2025, 6, 10), 9, 30, 0), 0),    // zero pnl: a loss
            (tokyo(day(2025, 6, 11), 23, 59, 59), -3), // Wednesday, last second of date_to
            (tokyo(day(2025, 6, 12), 0, 0, 0), 1000),  // the day after
            (tokyo(day(2025, 6, 15), 12, 0, 0), 7),    // Sunday
        ];
        for (n, &(at, pnl)) in seeded.iter().enumerate() {
            closed(&app, user, n, at, pnl).await;
        }
        let s = get(
            &app,
            &token,
            "/api/stats/?period=custom&date_from=2025-06-10&date_to=2025-06-11",
        )
        .await;
        assert_eq!(s["total_trades"], 3, "{}", app.db_url());
        assert_eq!(s["win_trades"], 1);
        assert_eq!(s["lose_trades"], 2);
        assert!((s["win_rate"].as_f64().unwrap() - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(s["total_pnl"], 2.0);
        assert!((s["avg_pnl"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(
            s["weekday"],
            json!([
                {"weekday": 3, "pnl": 5.0, "success": 1, "fail": 1, "total": 2},
                {"weekday": 4, "pnl": -3.0, "success": 0, "fail": 1, "total": 1},
            ])
        );
        assert_eq!(
            s["hour"],
            json!([
                {"hour": 0, "pnl": 5.0, "success": 1, "fail": 0, "total": 1},
                {"hour": 9, "pnl": 0.0, "success": 0, "fail": 1, "total": 1},
                {"hour": 23, "pnl": -3.0, "success": 0, "fail": 1, "total": 1},
            ])
        );
        assert_eq!(
            s["heatmap"],
            json!([
                {"weekday": 3, "hour": 0, "pnl": 5.0, "total": 1},
                {"weekday": 3, "hour": 9, "pnl": 0.0, "total": 1},
                {"weekday": 4, "hour": 23, "pnl": -3.0, "total": 1},
            ])
        );
        // The cumulative pnl at each close's quarter hour (UTC), oldest first.
        assert_eq!(
            s["equity"],
            json!([
                {"time": "2025-06-09T15:00:00Z", "pnl": 5.0},
                {"time": "2025-06-10T00:30:00Z", "pnl": 5.0},
                {"time": "2025-06-11T14:45:00Z", "pnl": 2.0},
            ])
        );
        let sunday = get(
            &app,
            &token,
            "/api/stats/?period=custom&date_from=2025-06-15&date_to=2025-06-15",
        )
        .await;
        assert_eq!(sunday["weekday"][0]["weekday"], 1, "1 = Sunday");
        assert_eq!(sunday["hour"][0]["hour"], 12);

        let daily = get(
            &app,
            &token,
            "/api/stats/custom/?start=2025-06-09&end=2025-06-12",
        )
        .await;
        assert_eq!(
            daily,
            json!([
                {"period": "2025-06-09", "pnl": 100.0, "trades": 1, "win_rate": 100.0},
                {"period": "2025-06-10", "pnl": 5.0, "trades": 2, "win_rate": 50.0},
                {"period": "2025-06-11", "pnl": -3.0, "trades": 1, "win_rate": 0.0},
                {"period": "2025-06-12", "pnl": 1000.0, "trades": 1, "win_rate": 100.0},
            ])
        );
        let same = get(
            &app,
            &token,
            "/api/stats/daily/?date_from=2025-06-09&date_to=2025-06-12",
        )
        .await;
        assert_eq!(same, daily);
        let weekly = get(
            &app,
            &token,
            "/api/stats/weekly/?date_from=2025-06-01&date_to=2025-06-30",
        )
        .await;
        let weeks: Vec<(&str, u64)> = weekly
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["period"].as_str().unwrap(), r["trades"].as_u64().unwrap()))
            .collect();
        // Sunday the 15th closes ISO week 24, which began on Monday the 9th.
        assert_eq!(weeks, vec![("2025-W24", 6)]);
        let monthly = get(
            &app,
            &token,
            "/api/stats/monthly/?date_from=2025-05-01&date_to=2025-07-31",
        )
        .await;
        assert_eq!(
            monthly,
            json!([{"period": "2025-06", "pnl": 1109.0, "trades": 6, "win_rate": 4.0 * 100.0 / 6.0}])
        );
        // Default ranges end today: the 2025 history is outside them.
        for path in [
            "/api/stats/daily/",
            "/api/stats/weekly/",
            "/api/stats/monthly/",
        ] {
            assert_eq!(get(&app, &token, path).await, json!([]), "{path}");
        }
    }
}

#[tokio::test]
async fn chains_filter_by_local_creation_date_and_sort_by_first_trade() {
    for app in TestApp::on_every_backend().await {
        let (token, user) = tokyo_user(&app, "carol").await;
        let chain = |created_at: i64, status: ChainStatus| Chain {
            id: 0,
            user_id: user,
            symbol: "BTCUSDT".into(),
            status,
            step: 1,
            side: PositionSide::Long,
            won: None,
            created_at,
            closed_at: None,
        };
        let store = app.store();
        let before = store
            .insert_chain(&chain(
                tokyo(day(2025, 6, 9), 23, 59, 59),
                ChainStatus::Closed,
            ))
            .await
            .unwrap();
        let x = store
            .insert_chain(&chain(tokyo(day(2025, 6, 10), 0, 0, 5), ChainStatus::Open))
            .await
            .unwrap();
        let y = store
            .insert_chain(&chain(
                tokyo(day(2025, 6, 10), 12, 0, 0),
                ChainStatus::Closed,
            ))
            .await
            .unwrap();
        let last = store
            .insert_chain(&chain(
                tokyo(day(2025, 6, 11), 23, 59, 59),
                ChainStatus::Closed,
            ))
            .await
            .unwrap();
        let after = store
            .insert_chain(&chain(
                tokyo(day(2025, 6, 12), 0, 0, 0),
                ChainStatus::Closed,
            ))
            .await
            .unwrap();
        let mut n = 0;
        let mut add = |chain_id: i64, step: u32, status: TradeStatus, created: i64, pnl: i64| {
            n += 1;
            let mut t = trade(user, n, status, created, pnl);
            t.chain_id = Some(chain_id);
            t.chain_step = Some(step);
            if status == TradeStatus::Closed {
                t.closed_at = Some(created + 1000);
            }
            t
        };
        let trades = [
            add(
                x.id,
                1,
                TradeStatus::Closed,
                tokyo(day(2025, 6, 10), 0, 0, 6),
                -1,
            ),
            add(
                x.id,
                2,
                TradeStatus::Open,
                tokyo(day(2025, 6, 10), 1, 0, 0),
                0,
            ),
            // Y's first trade predates X's: Y comes first.
            add(
                y.id,
                1,
                TradeStatus::Closed,
                tokyo(day(2025, 6, 10), 0, 0, 1),
                3,
            ),
            add(
                last.id,
                1,
                TradeStatus::Closed,
                tokyo(day(2025, 6, 11), 23, 59, 59),
                2,
            ),
            add(
                before.id,
                1,
                TradeStatus::Closed,
                tokyo(day(2025, 6, 9), 23, 59, 59),
                9,
            ),
            add(
                after.id,
                1,
                TradeStatus::Closed,
                tokyo(day(2025, 6, 12), 0, 0, 0),
                9,
            ),
        ];
        let mut ids = Vec::new();
        for t in &trades {
            ids.push(store.insert_trade(t).await.unwrap().id);
        }
        let answer = get(
            &app,
            &token,
            "/api/martingale_chains/?date_from=2025-06-10&date_to=2025-06-11",
        )
        .await;
        let chains = answer["chains"].as_array().unwrap();
        let order: Vec<i64> = chains
            .iter()
            .map(|c| c["chain_id"].as_i64().unwrap())
            .collect();
        assert_eq!(order, vec![y.id, x.id, last.id], "{}", app.db_url());
        assert_eq!(
            chains[1],
            json!({
                "chain_id": x.id, "status": "OPEN", "trades_count": 2, "total_pnl": -1.0,
                "trades": [
                    {"id": ids[0], "pnl": -1.0, "created_at": "2025-06-09T15:00:06Z"},
                    {"id": ids[1], "pnl": null, "created_at": "2025-06-09T16:00:00Z"},
                ]
            })
        );
        assert_eq!(chains[0]["status"], "CLOSED");
        assert_eq!(chains[0]["total_pnl"], 3.0);
        let all = get(&app, &token, "/api/martingale_chains/").await;
        assert_eq!(all["chains"].as_array().unwrap().len(), 5);
        let from_only = get(&app, &token, "/api/martingale_chains/?date_from=2025-06-11").await;
        assert_eq!(from_only["chains"].as_array().unwrap().len(), 2);
        // Another user sees none of them.
        let other = app.user_with_token("dave").await;
        let theirs = get(&app, &other, "/api/martingale_chains/").await;
        assert_eq!(theirs, json!({"chains": []}));
    }
}

#[tokio::test]
async fn custom_period_without_dates_is_the_whole_history() {
    // The page sends `?period=custom` alone until both dates are filled (spec section 5).
    for app in TestApp::on_every_backend().await {
        let (token, user) = tokyo_user(&app, "casey").await;
        let seeded = [
            (tokyo(day(2025, 6, 9), 12, 0, 0), 10),
            (tokyo(day(2025, 6, 11), 12, 0, 0), -4),
            (tokyo(day(2025, 6, 15), 12, 0, 0), 7),
        ];
        for (n, &(at, pnl)) in seeded.iter().enumerate() {
            closed(&app, user, n, at, pnl).await;
        }
        let all = get(&app, &token, "/api/stats/?period=all").await;
        assert_eq!(all["total_trades"], 3, "{}", app.db_url());
        for path in [
            "/api/stats/?period=custom",
            "/api/stats/?period=custom&date_from=&date_to=",
        ] {
            let custom = get(&app, &token, path).await;
            assert_eq!(custom, all, "{path}");
        }
        // One date alone bounds that side only.
        let since = get(
            &app,
            &token,
            "/api/stats/?period=custom&date_from=2025-06-11",
        )
        .await;
        assert_eq!(since["total_trades"], 2);
        assert_eq!(since["total_pnl"], 3.0);
        let until = get(&app, &token, "/api/stats/?period=custom&date_to=2025-06-11").await;
        assert_eq!(until["total_trades"], 2);
        assert_eq!(until["total_pnl"], 6.0);
    }
}

#[tokio::test]
async fn bad_statistics_queries_answer_400_with_a_sentence() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("erin").await;
        for path in [
            "/api/stats/?period=year",
            "/api/stats/?period=custom&date_from=2025-13-01&date_to=2025-12-01",
            "/api/stats/?period=custom&date_from=2025-06-11&date_to=2025-06-10",
            "/api/stats/?period=custom&date_to=June",
            "/api/stats/daily/?date_from=yesterday",
            "/api/stats/weekly/?date_from=2025-06-11&date_to=2025-06-10",
            "/api/stats/monthly/?date_to=2025-02-30",
            "/api/stats/custom/?start=2025-06-10",
            "/api/stats/custom/?start=2025-06-10&end=June",
            "/api/martingale_chains/?date_from=10.06.2025",
            "/api/stats/daily/?date_from=%C2%85",
            "/api/stats/?period=custom&date_from=+2025-06-11x",
            "/api/martingale_chains/?date_from=2025-06-11&date_to=2025-06-10",
        ] {
            let res = app.with_token(Method::GET, path, &token).await;
            assert_json_error(res, StatusCode::BAD_REQUEST).await;
        }
        // A fresh client: `app.client` keeps the login's session cookie.
        let res = reqwest::Client::new()
            .get(app.url("/api/stats/?period=all"))
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    }
}
