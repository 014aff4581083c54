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
