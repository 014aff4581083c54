//! `/api/dashboard/` and `/api/statistics/?period=` on SQLite and PostgreSQL: the 24-hours-ago
//! figures from balance snapshots, fills and trade times; the snapshot recorder; the live
//! statistics of a period with the drawdown of a known equity path.

use chrono::{Duration, Utc};
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::Value;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::repo::dashboard::BalanceSnapshot;
use signaldesk_store::{Trade, TradeStatus};

use crate::helpers::{assert_json_error, TestApp};

const HOUR: i64 = 3600 * 1000;

fn dec(text: &str) -> Decimal {
    text.parse().unwrap()
}

fn trade(user_id: i64, n: usize, opened_at: i64, closed_at: Option<i64>, pnl: Decimal) -> Trade {
    Trade {
        id: 0,
        user_id,
        symbol: "SOLUSDT".into(),
        side: PositionSide::Short,
        status: if closed_at.is_some() {
            TradeStatus::Closed
        } else {
            TradeStatus::Open
        },
        client_order_id: format!("dash-{user_id}-{n}"),
        leverage: 10,
        margin: dec("10"),
        qty: dec("1"),
        open_qty: if closed_at.is_some() {
            dec("0")
        } else {
            dec("1")
        },
        entry_price: Some(dec("100")),
        exit_price: closed_at.map(|_| dec("99")),
        closed_qty: dec("0"),
        exit_value: dec("0"),
        pnl,
        fees: dec("0"),
        funding: Decimal::ZERO,
        volume: dec("0"),
        stop_loss: None,
        tp_step: 0,
        close_reason: closed_at.map(|_| "manual".into()),
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: opened_at,
        opened_at: Some(opened_at),
        closed_at,
        venue: Some(AccountVenue::Paper),
    }
}

async fn user(app: &TestApp, name: &str) -> (String, i64) {
    let token = app.user_with_token(name).await;
    let id = app
        .store()
        .user_by_username(name)
        .await
        .unwrap()
        .unwrap()
        .id;
    (token, id)
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[tokio::test]
async fn dashboard_compares_balance_volume_and_trade_counts_with_24_hours_ago() {
    for app in TestApp::on_every_backend().await {
        let (token, me) = user(&app, "alice").await;
        let (_, other) = user(&app, "bob").await;
        let store = app.store();
        let now = Utc::now().timestamp_millis();
        let day_ago = now - 24 * HOUR;
        // Open 30 h ago, closed 2 h ago: open then, counted in the total then and now.
        let t1 = store
            .insert_trade(&trade(
                me,
                1,
                now - 30 * HOUR,
                Some(now - 2 * HOUR),
                dec("-1"),
            ))
            .await
            .unwrap();
        // Opened 3 h ago and still open.
        let t2 = store
            .insert_trade(&trade(me, 2, now - 3 * HOUR, None, dec("0")))
            .await
            .unwrap();
        // Opened and closed 40 h ago.
        let t3 = store
            .insert_trade(&trade(
                me,
                3,
                now - 40 * HOUR,
                Some(now - 39 * HOUR),
                dec("2"),
            ))
            .await
            .unwrap();
        let theirs = store
            .insert_trade(&trade(other, 4, now - HOUR, None, dec("0")))
            .await
            .unwrap();
        for (id, notional, at) in [
            (t1.id, dec("100"), now - 30 * HOUR),
            (t1.id, dec("99"), now - 2 * HOUR),
            (t2.id, dec("250.5"), now - 3 * HOUR),
            (t3.id, dec("40"), now - 40 * HOUR),
            (t3.id, dec("41"), now - 39 * HOUR),
            // 49 h ago: outside both windows.
            (t3.id, dec("1000"), now - 49 * HOUR),
        ] {
            store.insert_fill(me, id, notional, at).await.unwrap();
        }
        store
            .insert_fill(other, theirs.id, dec("5000"), now - HOUR)
            .await
            .unwrap();
        let snapshot = |at: i64, equity: Decimal| BalanceSnapshot {
            taken_at: at,
            equity,
            available_balance: equity,
            margin_balance: equity,
        };
        // The newest at or before 24 h ago wins; the later one is not "24 h ago".
        for (at, equity) in [
            (day_ago - 40 * 60 * 1000, dec("9000")),
            (day_ago - 10 * 60 * 1000, dec("9500.25")),
            (day_ago + 5 * 60 * 1000, dec("1")),
        ] {
            store
                .record_balance_snapshot(me, AccountVenue::Paper, &snapshot(at, equity), i64::MIN)
                .await
                .unwrap();
        }

        let d = app
            .call_ok(Method::GET, "/api/dashboard/", &token, None, StatusCode::OK)
            .await;
        let balance = app
            .call_ok(Method::GET, "/api/balance/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(d["balance"]["totalEquity"], balance["equity"], "{d}");
        assert_eq!(
            d["balance"]["availableBalance"],
            balance["available_balance"]
        );
        assert_eq!(d["balance"]["marginBalance"], balance["margin_balance"]);
        assert_eq!(number(&d["balance_24h_ago"]), 9500.25, "{d}");
        assert_eq!(number(&d["volume24h"]), 349.5, "{d}");
        assert_eq!(number(&d["volume24h_ago"]), 181.0, "{d}");
        assert_eq!(d["summary"]["open_trades"], 1, "{d}");
        assert_eq!(d["summary"]["total_trades"], 3, "{d}");
        assert_eq!(d["summary"]["open_trades_24h_ago"], 1, "{d}");
        assert_eq!(d["summary"]["total_trades_24h_ago"], 2, "{d}");

        // Bob has only his own figures, and no snapshot from 24 h ago: null, not a guess.
        let bob = app.login("bob").await;
        let d = app
            .call_ok(Method::GET, "/api/dashboard/", &bob, None, StatusCode::OK)
            .await;
        assert!(d["balance_24h_ago"].is_null(), "{d}");
        assert_eq!(number(&d["volume24h"]), 5000.0);
        assert_eq!(d["summary"]["open_trades"], 1);
        assert_eq!(d["summary"]["total_trades_24h_ago"], 0);

        // A snapshot much older than 24 h is stale, not "24 h ago".
        store
            .record_balance_snapshot(
                other,
                AccountVenue::Paper,
                &snapshot(day_ago - 3 * HOUR, dec("7")),
                i64::MIN,
            )
            .await
            .unwrap();
        let d = app
            .call_ok(Method::GET, "/api/dashboard/", &bob, None, StatusCode::OK)
            .await;
        assert!(d["balance_24h_ago"].is_null(), "{d}");

        let res = reqwest::get(app.url("/api/dashboard/")).await.unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    }
}

#[tokio::test]
async fn the_recorder_stores_every_users_equity_at_the_5_minute_step() {
    let app = TestApp::spawn().await;
    let (token, me) = user(&app, "alice").await;
    let at = Utc::now() + Duration::minutes(7);
    let recorded = app
        .server
        .state
        .engine
        .record_balance_snapshots(at)
        .await
        .unwrap();
    assert!(recorded >= 1, "{recorded}");
    let step = 5 * 60 * 1000;
    let taken = app
        .store()
        .balance_snapshot_at(me, AccountVenue::Paper, at.timestamp_millis())
        .await
        .unwrap()
        .expect("a snapshot");
    assert_eq!(taken.taken_at, at.timestamp_millis() / step * step);
    let balance = app
        .call_ok(Method::GET, "/api/balance/", &token, None, StatusCode::OK)
        .await;
    assert_eq!(
        taken.equity.to_string().parse::<f64>().unwrap(),
        number(&balance["equity"])
    );
}

#[tokio::test]
async fn live_statistics_filter_by_period_with_the_drawdown_of_the_equity_path() {
    for app in TestApp::on_every_backend().await {
        let (token, me) = user(&app, "alice").await;
        let now = Utc::now().timestamp_millis();
        // 40 days ago +1000, 20 days ago -2200, 1 hour ago +500.
        for (n, (ago, pnl)) in [
            (40 * 24, dec("1000")),
            (20 * 24, dec("-2200")),
            (1, dec("500")),
        ]
        .into_iter()
        .enumerate()
        {
            let at = now - ago * HOUR;
            app.store()
                .insert_trade(&trade(me, n, at - HOUR, Some(at), pnl))
                .await
                .unwrap();
        }
        let get = |period: &'static str| {
            let token = token.clone();
            let app = &app;
            async move {
                app.call_ok(
                    Method::GET,
                    &format!("/api/statistics/?period={period}"),
                    &token,
                    None,
                    StatusCode::OK,
                )
                .await
            }
        };
        let equity = number(
            &app.call_ok(Method::GET, "/api/balance/", &token, None, StatusCode::OK)
                .await["equity"],
        );
        // All: the path ends at today's equity E: E+700, E+1700, E-500, E.
        let all = get("all").await;
        assert_eq!(all["total_trades"], 3, "{all}");
        assert_eq!(all["winning_trades"], 2);
        assert_eq!(number(&all["total_profit"]), -700.0);
        let peak = equity + 1700.0;
        let expected = (peak - (equity - 500.0)) / peak * 100.0;
        assert!(
            (number(&all["max_drawdown"]) - expected).abs() < 1e-9,
            "{all}"
        );

        let month = get("30d").await;
        assert_eq!(month["total_trades"], 2, "{month}");
        assert_eq!(number(&month["total_profit"]), -1700.0);
        // E+1700, E-500, E: the same fall from the same peak.
        assert!((number(&month["max_drawdown"]) - expected).abs() < 1e-9);
        for period in ["24h", "7d"] {
            let s = get(period).await;
            assert_eq!(s["total_trades"], 1, "{period}: {s}");
            assert_eq!(s["win_rate"], 100.0);
            assert_eq!(number(&s["max_drawdown"]), 0.0);
        }
        let default = app
            .call_ok(
                Method::GET,
                "/api/statistics/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(default, all);
        let res = app
            .with_token(Method::GET, "/api/statistics/?period=month", &token)
            .await;
        let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert_eq!(body["error"], "period must be 24h, 7d, 30d or all.");
    }
}
