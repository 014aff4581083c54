//! The upgrade to keys that name their exchange (docs/accounts.md, "Upgrading"): a database
//! as the previous version left it (its schema before migration 0017) starts with the same
//! users, keys and trades, each key placed by what its user's books say.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{alert_body, TestApp};

/// Takes the database back to the schema the previous version wrote: without the columns of
/// migration 0017 and without its record, so the next start runs it as an upgrade does.
async fn back_to_the_previous_schema(url: String) {
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    for sql in [
        "ALTER TABLE api_keys DROP COLUMN exchange",
        "ALTER TABLE trades DROP COLUMN venue",
        "DELETE FROM _sqlx_migrations WHERE version = 17",
    ] {
        sqlx::Executor::execute(&mut conn, sql).await.unwrap();
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
        // Bob has an active key and never traded: the books cannot tell where it belonged.
        let bob = app.user_with_token("bob").await;
        app.activate_a_key(&bob).await;
        let trades_before = get(&app, "/api/trades/", &alice).await;
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
        assert!(
            trades_after["results"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["venue"].is_null()),
            "trades from before record no venue: {trades_after}"
        );
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
