//! The upgrade to keys that name their exchange (docs/accounts.md, "Upgrading"): a database
//! as the previous version left it (its schema before migration 0017) starts with the same
//! users, keys and trades, each key placed by what its user's books say, and each user's
//! trades on the account their keys were placed on when the books can tell (docs/accounts.md,
//! "Statistics follow the account").

use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::market::PositionSide;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Trade, TradeStatus};

use crate::helpers::{alert_body, TestApp};

/// Takes the database back to the schema the previous version wrote: without the columns of
/// migrations 0017 and 0025 and without their records, so the next start runs them as an
/// upgrade does. (SQLite drops no column a trigger names: 0025's triggers go first, and it
/// makes them again.)
async fn back_to_the_previous_schema(url: String) {
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    if url.starts_with("sqlite") {
        for trigger in [
            "trade_rollup_insert",
            "trade_rollup_update_old",
            "trade_rollup_update_new",
            "trade_rollup_delete",
            "trade_running_insert",
            "trade_running_update",
            "trade_running_move",
            "trade_running_delete",
        ] {
            let sql = format!("DROP TRIGGER {trigger}");
            sqlx::Executor::execute(&mut conn, sql.as_str())
                .await
                .unwrap();
        }
    }
    for sql in [
        "ALTER TABLE api_keys DROP COLUMN exchange",
        "ALTER TABLE trades DROP COLUMN venue",
        "ALTER TABLE balance_snapshots DROP COLUMN venue",
        "DELETE FROM _sqlx_migrations WHERE version IN (17, 25)",
    ] {
        sqlx::Executor::execute(&mut conn, sql).await.unwrap();
    }
}

/// A closed trade booked with no fills (the books cannot tell its exchange from it).
fn bare_closed_trade(user_id: i64, at: i64) -> Trade {
    let d = |n: i64| Decimal::from(n);
    Trade {
        id: 0,
        user_id,
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        status: TradeStatus::Closed,
        client_order_id: format!("bare-{user_id}"),
        leverage: 5,
        margin: d(20),
        qty: Decimal::new(1, 3),
        open_qty: d(0),
        entry_price: Some(d(30_000)),
        exit_price: Some(d(31_000)),
        closed_qty: Decimal::new(1, 3),
        exit_value: d(31),
        pnl: d(1),
        fees: d(0),
        funding: d(0),
        volume: d(61),
        stop_loss: None,
        tp_step: 0,
        close_reason: Some("manual".into()),
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: at - 60_000,
        opened_at: Some(at - 60_000),
        closed_at: Some(at),
        venue: None,
    }
}

async fn get(app: &TestApp, path: &str, token: &str) -> Value {
    app.call_ok(Method::GET, path, token, None, StatusCode::OK)
        .await
}

#[tokio::test]
async fn a_database_from_before_starts_with_the_same_users_keys_and_trades() {
    for db in TestDatabase::all().await {
        let app = TestApp::spawn_with(db, |_| {}).await;
        // Alice traded on paper (the previous `--venue paper`): her books say so.
        let alice = app.user_with_token("alice").await;
        app.start_bot(&alice).await;
        let hook = app.new_webhook(&alice).await;
        for signal in ["NEUTRAL", "STRONG_BUY"] {
            reqwest::Client::new()
                .post(app.url(&hook))
                .json(&alert_body("BTCUSDT", signal))
                .send()
                .await
                .unwrap();
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while get(&app, "/api/trades/?status=open", &alice).await["count"] == 0 {
            assert!(std::time::Instant::now() < deadline, "alice's trade");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        app.call_ok(
            Method::POST,
            "/api/trades/close-all/",
            &alice,
            None,
            StatusCode::OK,
        )
        .await;
        app.call_ok(
            Method::POST,
            "/api/command/bot/stop/",
            &alice,
            None,
            StatusCode::OK,
        )
        .await;
        // Bob has an active key and no executions: the books cannot tell where it belonged,
        // nor where his one trade (booked without fills) was made.
        let bob = app.user_with_token("bob").await;
        app.activate_a_key(&bob).await;
        let bob_id = app
            .store()
            .user_by_username("bob")
            .await
            .unwrap()
            .unwrap()
            .id;
        let now = chrono::Utc::now().timestamp_millis();
        app.store()
            .insert_trade(&bare_closed_trade(bob_id, now - 1_000))
            .await
            .unwrap();
        let trades_before = get(&app, "/api/trades/", &alice).await;
        let alices_stats = get(&app, "/api/stats/?period=all", &alice).await;
        assert_eq!(alices_stats["total_trades"], 1, "{alices_stats}");
        let users_before = app.store().all_users().await.unwrap();

        let app = app.restart_after(back_to_the_previous_schema).await;

        let users_after = app.store().all_users().await.unwrap();
        assert_eq!(users_after, users_before);
        let alice = app.login("alice").await;
        let bob = app.login("bob").await;
        let alices_keys = get(&app, "/api/api-keys/", &alice).await;
        assert_eq!(alices_keys[0]["exchange"], "paper", "{alices_keys}");
        assert_eq!(alices_keys[0]["is_active"], true, "{alices_keys}");
        assert_eq!(
            get(&app, "/api/bot/status/", &alice).await["venue"],
            json!({"exchange": "paper", "environment": "paper"})
        );
        let trades_after = get(&app, "/api/trades/", &alice).await;
        assert_eq!(trades_after["count"], trades_before["count"]);
        let ids = |page: &Value| -> Vec<Value> {
            page["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| json!([t["id"], t["pnl"], t["status"]]))
                .collect()
        };
        assert_eq!(ids(&trades_after), ids(&trades_before));
        // Alice's books are paper's: her trades from before are placed there, and her
        // statistics and dashboard count them as before.
        assert!(
            trades_after["results"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["venue"] == json!({"exchange": "paper", "environment": "paper"})),
            "trades from before are placed on paper: {trades_after}"
        );
        assert_eq!(
            get(&app, "/api/stats/?period=all", &alice).await,
            alices_stats
        );
        let live = get(&app, "/api/statistics/?period=all", &alice).await;
        assert_eq!(live["total_trades"], 1, "{live}");
        let dashboard = get(&app, "/api/dashboard/", &alice).await;
        assert_eq!(dashboard["summary"]["total_trades"], 1, "{dashboard}");
        // Bob's trade stays on no account: listed, counted in no statistics.
        let bobs_trades = get(&app, "/api/trades/", &bob).await;
        assert_eq!(bobs_trades["count"], 1, "{bobs_trades}");
        assert!(
            bobs_trades["results"][0]["venue"].is_null(),
            "{bobs_trades}"
        );
        assert_eq!(
            get(&app, "/api/stats/?period=all", &bob).await["total_trades"],
            0
        );
        assert_eq!(
            get(&app, "/api/statistics/?period=all", &bob).await["total_trades"],
            0
        );
        let dashboard = get(&app, "/api/dashboard/", &bob).await;
        assert_eq!(dashboard["summary"]["total_trades"], 0, "{dashboard}");
        let bobs_keys = get(&app, "/api/api-keys/", &bob).await;
        assert_eq!(bobs_keys[0]["exchange"], "bybit", "{bobs_keys}");
        assert_eq!(bobs_keys[0]["is_active"], false, "{bobs_keys}");
        assert_eq!(
            get(&app, "/api/bot/status/", &bob).await["venue"],
            json!({"exchange": "paper", "environment": "paper"})
        );

        // Placed once: a second start changes nothing.
        let app = app.restart().await;
        let bob = app.login("bob").await;
        assert_eq!(get(&app, "/api/api-keys/", &bob).await, bobs_keys);
        app.server.stop().await.unwrap();
    }
}
