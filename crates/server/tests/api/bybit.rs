//! Bybit keys against the fake Bybit on loopback (crates/fake-bybit): Set Active and Start
//! Bot check the key with one authenticated call and refuse it with the exchange's reason; a
//! demo key reaches the demo URLs and a mainnet key the mainnet ones.

use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use signaldesk_core::market::Instrument;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, KeySpec};
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{assert_json_error, TestApp};

async fn fake(key: &str, secret: &str) -> FakeBybit {
    let fake = FakeBybit::start(FakeConfig::new(vec![Instrument {
        symbol: "BTCUSDT".into(),
        tick_size: Decimal::new(1, 1),
        qty_step: Decimal::new(1, 3),
        min_qty: Decimal::new(1, 3),
        min_notional: Decimal::from(5),
        max_leverage: 100,
    }]))
    .await
    .unwrap();
    fake.add_key(KeySpec::new(key, secret));
    fake
}

#[tokio::test]
async fn set_active_and_start_bot_refuse_a_key_bybit_refuses() {
    let demo = fake("DEMOKEY", "DEMOSECRET").await;
    let mainnet = fake("MAINKEY", "MAINSECRET").await;
    let app = TestApp::spawn_with(TestDatabase::sqlite(), |c| {
        c.bybit.demo_rest_url = demo.rest_url();
        c.bybit.demo_ws_url = demo.private_ws_url();
        c.bybit.mainnet_rest_url = mainnet.rest_url();
        c.bybit.mainnet_ws_url = mainnet.private_ws_url();
    })
    .await;
    let token = app.user_with_token("alice").await;
    let set_active = |id: &serde_json::Value| format!("/api/api-keys/{id}/set_active/");

    let wrong_secret = app
        .add_key_on(&token, "bybit", "DEMOKEY", "NOT-THE-SECRET", true)
        .await;
    let res = app
        .call(Method::POST, &set_active(&wrong_secret["id"]), &token, None)
        .await;
    let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("signature"), "{error}");
    assert!(!error.contains("NOT-THE-SECRET"), "{error}");

    // A demo key marked as mainnet goes to mainnet, which does not know it.
    let wrong_env = app
        .add_key_on(&token, "bybit", "DEMOKEY", "DEMOSECRET", false)
        .await;
    let res = app
        .call(Method::POST, &set_active(&wrong_env["id"]), &token, None)
        .await;
    let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    assert!(
        body["error"].as_str().unwrap().contains("invalid API key"),
        "{body}"
    );
    let keys = app
        .call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
        .await;
    assert!(
        keys.as_array()
            .unwrap()
            .iter()
            .all(|k| k["is_active"] == false),
        "a refused key is not activated: {keys}"
    );

    let good = app
        .add_key_on(&token, "bybit", "DEMOKEY", "DEMOSECRET", true)
        .await;
    app.call_ok(
        Method::POST,
        &set_active(&good["id"]),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let balance = app
        .call_ok(Method::GET, "/api/balance/", &token, None, StatusCode::OK)
        .await;
    // The fake's starting balance, read from Bybit's wallet through the venue.
    assert_eq!(balance["equity"].as_f64(), Some(10000.0), "{balance}");
    app.call_ok(
        Method::POST,
        "/api/command/bot/start/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    app.call_ok(
        Method::POST,
        "/api/command/bot/stop/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;

    // The key stops working on Bybit (revoked there): Start Bot says why.
    demo.add_key(KeySpec {
        read_only: true,
        ..KeySpec::new("DEMOKEY", "DEMOSECRET")
    });
    let res = app
        .call(Method::POST, "/api/command/bot/start/", &token, None)
        .await;
    let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    assert!(
        body["error"].as_str().unwrap().contains("read-only"),
        "{body}"
    );
    assert!(mainnet.requests("/v5/user/query-api") >= 1);
    app.server.stop().await.unwrap();
}

/// Issue 31 point 4: Set Active reads the key's permissions from Bybit, refuses a key that can
/// withdraw or transfer (naming each permission to remove, nothing activated), accepts a key
/// bound to no IP address with a warning and a bound one without, and the key list shows the
/// permissions and addresses as Bybit reported them.
#[tokio::test]
async fn set_active_refuses_a_key_that_can_move_funds_and_warns_of_one_bound_to_no_ip() {
    let mut databases = vec![TestDatabase::sqlite()];
    if let Some(pg) = TestDatabase::postgres().await {
        databases.push(pg);
    }
    for db in databases {
        let label = db.label;
        let fake = fake("TRADEKEY", "TRADESECRET").await;
        fake.add_key(
            KeySpec::new("WITHDRAWKEY", "WITHDRAWSECRET").with_permissions("Wallet", &["Withdraw"]),
        );
        fake.add_key(
            KeySpec::new("TRANSFERKEY", "TRANSFERSECRET")
                .with_permissions("Wallet", &["AccountTransfer"]),
        );
        fake.add_key(KeySpec::new("BOUNDKEY", "BOUNDSECRET").with_ips(&["203.0.113.7"]));
        let app = TestApp::spawn_with(db, |c| {
            c.bybit.demo_rest_url = fake.rest_url();
            c.bybit.demo_ws_url = fake.private_ws_url();
        })
        .await;
        let token = app.user_with_token("alice").await;
        let set_active =
            |key: &serde_json::Value| format!("/api/api-keys/{}/set_active/", key["id"]);
        let keys = || async {
            app.call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
                .await
        };
        let listed = |keys: &serde_json::Value, id: &serde_json::Value| {
            keys.as_array()
                .unwrap()
                .iter()
                .find(|k| k["id"] == *id)
                .cloned()
                .unwrap()
        };

        let withdraws = app
            .add_key_on(&token, "bybit", "WITHDRAWKEY", "WITHDRAWSECRET", true)
            .await;
        assert!(
            withdraws["permissions"].is_null(),
            "{label}: never checked: {withdraws}"
        );
        assert!(withdraws["ip_restricted"].is_null(), "{withdraws}");
        let res = app
            .call(Method::POST, &set_active(&withdraws), &token, None)
            .await;
        let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert_eq!(
            body["error"],
            "This API key can withdraw or transfer funds. Remove the Withdraw permission (Wallet) from this key on Bybit, then try again.",
            "{label}"
        );

        let transfers = app
            .add_key_on(&token, "bybit", "TRANSFERKEY", "TRANSFERSECRET", true)
            .await;
        let res = app
            .call(Method::POST, &set_active(&transfers), &token, None)
            .await;
        let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        let error = body["error"].as_str().unwrap();
        assert!(
            error.contains("Remove the AccountTransfer permission (Wallet)"),
            "{label}: {error}"
        );

        // Nothing changed: no key active, the user still on paper; the refused keys show what
        // Bybit reported, so the list says why.
        let after = keys().await;
        assert!(
            after
                .as_array()
                .unwrap()
                .iter()
                .all(|k| k["is_active"] == false),
            "{label}: {after}"
        );
        let status = app
            .call_ok(
                Method::GET,
                "/api/bot/status/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(status["venue"]["exchange"], "paper", "{label}: {status}");
        let shown = listed(&after, &withdraws["id"]);
        assert_eq!(
            shown["permissions"]["Wallet"],
            serde_json::json!(["Withdraw"]),
            "{shown}"
        );
        assert_eq!(
            shown["permissions"]["ContractTrade"],
            serde_json::json!(["Order", "Position"])
        );
        assert!(shown["permissions_checked_at"].is_string(), "{shown}");

        // Bound to no address: accepted, with the warning.
        let open = app
            .add_key_on(&token, "bybit", "TRADEKEY", "TRADESECRET", true)
            .await;
        let activated = app
            .call_ok(
                Method::POST,
                &set_active(&open),
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(activated["is_active"], true, "{label}: {activated}");
        assert_eq!(
            activated["warning"],
            "This key has no IP allow-list: anyone who steals it can trade from anywhere. Bind it to this server's IP on Bybit.",
            "{activated}"
        );
        assert_eq!(activated["ips"], serde_json::json!(["*"]), "{activated}");
        assert_eq!(activated["ip_restricted"], false);

        // Bound to an address: accepted without a warning.
        let bound = app
            .add_key_on(&token, "bybit", "BOUNDKEY", "BOUNDSECRET", true)
            .await;
        let activated = app
            .call_ok(
                Method::POST,
                &set_active(&bound),
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(activated["is_active"], true, "{label}: {activated}");
        assert!(activated["warning"].is_null(), "{label}: {activated}");

        let after = keys().await;
        let shown = listed(&after, &bound["id"]);
        assert_eq!(
            shown["ips"],
            serde_json::json!(["203.0.113.7"]),
            "{label}: {shown}"
        );
        assert_eq!(shown["ip_restricted"], true, "{shown}");
        assert_eq!(
            shown["permissions"]["ContractTrade"],
            serde_json::json!(["Order", "Position"]),
            "{shown}"
        );
        assert_eq!(
            shown["permissions"]["Wallet"],
            serde_json::json!([]),
            "{shown}"
        );
        let shown = listed(&after, &open["id"]);
        assert_eq!(shown["ips"], serde_json::json!(["*"]), "{shown}");
        assert_eq!(shown["ip_restricted"], false, "{shown}");

        // A paper key has no permissions to show.
        let paper = app.add_key_on(&token, "paper", "P", "S", true).await;
        assert!(
            paper["permissions"].is_null() && paper["ips"].is_null(),
            "{paper}"
        );
        app.server.stop().await.unwrap();
    }
}

/// The check before Start Bot reads the permissions again: a key given Withdraw on Bybit
/// after it became active is refused there too, and the list shows it.
#[tokio::test]
async fn start_bot_refuses_an_active_key_that_was_given_withdraw_since() {
    let fake = fake("DEMOKEY", "DEMOSECRET").await;
    let app = TestApp::spawn_with(TestDatabase::sqlite(), |c| {
        c.bybit.demo_rest_url = fake.rest_url();
        c.bybit.demo_ws_url = fake.private_ws_url();
    })
    .await;
    let token = app.user_with_token("alice").await;
    let key = app
        .add_key_on(&token, "bybit", "DEMOKEY", "DEMOSECRET", true)
        .await;
    app.call_ok(
        Method::POST,
        &format!("/api/api-keys/{}/set_active/", key["id"]),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    fake.add_key(KeySpec::new("DEMOKEY", "DEMOSECRET").with_permissions("Wallet", &["Withdraw"]));
    let res = app
        .call(Method::POST, "/api/command/bot/start/", &token, None)
        .await;
    let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("Remove the Withdraw permission (Wallet)"),
        "{body}"
    );
    let keys = app
        .call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
        .await;
    assert_eq!(
        keys[0]["permissions"]["Wallet"],
        serde_json::json!(["Withdraw"]),
        "{keys}"
    );
    app.server.stop().await.unwrap();
}
