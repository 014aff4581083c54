//! TradingView webhooks: the per-user secret URL, its validation and rate limit, and an
//! accepted alert becoming the user's signal, stored and pushed live.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_json_error, TestApp};
use crate::live::LiveClient;

async fn start_signals(app: &TestApp, token: &str) {
    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        token,
        None,
        StatusCode::OK,
    )
    .await;
}

async fn new_webhook(app: &TestApp, token: &str) -> String {
    let made = app
        .call_ok(
            Method::POST,
            "/api/webhook/",
            token,
            None,
            StatusCode::CREATED,
        )
        .await;
    made["path"].as_str().unwrap().to_string()
}

fn alert_request(app: &TestApp, path: &str, body: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(app.url(path))
        .header("content-type", "text/plain")
        .body(body.to_string())
}

async fn post_alert(app: &TestApp, path: &str, body: &str) -> reqwest::Response {
    alert_request(app, path, body).send().await.unwrap()
}

#[tokio::test]
async fn a_good_alert_becomes_the_users_signal_and_is_pushed_live() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let status = app
            .call_ok(Method::GET, "/api/webhook/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(status, json!({"configured": false, "created_at": null}));
        let path = new_webhook(&app, &token).await;
        assert!(path.starts_with("/api/webhook/") && path.len() > 40);
        start_signals(&app, &token).await;
        let (mut live, _) = LiveClient::authenticated(&app, &token).await;

        // TradingView's ticker form, text/plain as it sends some alerts.
        let res = post_alert(
            &app,
            &path,
            r#"{"symbol": "BYBIT:ETHUSDT.P", "signal": "strong_sell"}"#,
        )
        .await;
        assert_eq!(res.status(), StatusCode::ACCEPTED, "{}", app.db_url());
        let body: Value = res.json().await.unwrap();
        assert_eq!(body, json!({"symbol": "ETHUSDT", "signal": "STRONG_SELL"}));

        // The simulated market's ratings are pushed too (a candle may close meanwhile).
        let wait = std::time::Duration::from_secs(5);
        let pushed = live
            .next_where("signal", wait, |m| m["source"] == "webhook")
            .await;
        assert_eq!(pushed["symbol"], "ETHUSDT");
        assert_eq!(pushed["recommendation"], "STRONG_SELL");
        let eth_of = |update: &Value| {
            update["signals"]
                .as_array()
                .and_then(|all| all.iter().find(|s| s["symbol"] == "ETHUSDT"))
                .cloned()
        };
        // Fails the test unless an update lists ETHUSDT from the webhook within `wait`.
        live.next_where("signals_update", wait, |m| {
            eth_of(m).is_some_and(|eth| eth["source"] == "webhook")
        })
        .await;

        let list = app
            .call_ok(Method::GET, "/api/signals/", &token, None, StatusCode::OK)
            .await;
        let stored = list
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["symbol"] == "ETHUSDT")
            .unwrap();
        assert_eq!(stored["signal"], "STRONG_SELL");
        assert_eq!(stored["source"], "webhook");
        assert_eq!(stored["total"], Value::Null);

        let status = app
            .call_ok(Method::GET, "/api/webhook/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(status["configured"], true);
        assert!(
            !status.to_string().contains(
                path.trim_start_matches("/api/webhook/")
                    .trim_end_matches('/')
            ),
            "the secret is never shown again"
        );
    }
}

#[tokio::test]
async fn a_wrong_secret_is_404_and_a_replaced_url_stops_working() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    start_signals(&app, &token).await;
    let good = r#"{"symbol": "BTCUSDT", "signal": "STRONG_BUY"}"#;
    assert_json_error(
        post_alert(&app, "/api/webhook/not-a-secret/", good).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    let old = new_webhook(&app, &token).await;
    assert_eq!(
        post_alert(&app, &old, good).await.status(),
        StatusCode::ACCEPTED
    );
    let new = new_webhook(&app, &token).await;
    assert_ne!(old, new);
    assert_json_error(post_alert(&app, &old, good).await, StatusCode::NOT_FOUND).await;
    assert_eq!(
        post_alert(&app, &new, good).await.status(),
        StatusCode::ACCEPTED
    );
    app.call_ok(
        Method::DELETE,
        "/api/webhook/",
        &token,
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
    assert_json_error(post_alert(&app, &new, good).await, StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn malformed_alerts_are_400_and_store_nothing() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let path = new_webhook(&app, &token).await;
    start_signals(&app, &token).await;
    for (body, field) in [
        ("not json", None),
        ("[1, 2]", None),
        (r#"{"signal": "STRONG_BUY"}"#, Some("symbol")),
        (
            r#"{"symbol": "BTCUSDT", "signal": "TO_THE_MOON"}"#,
            Some("signal"),
        ),
        (
            r#"{"symbol": "BTC/USDT", "signal": "STRONG_BUY"}"#,
            Some("symbol"),
        ),
        (
            r#"{"symbol": "DOGEUSDT", "signal": "STRONG_BUY"}"#,
            Some("symbol"),
        ),
    ] {
        let error =
            assert_json_error(post_alert(&app, &path, body).await, StatusCode::BAD_REQUEST).await;
        if let Some(field) = field {
            assert!(error["fields"][field].is_array(), "{body}: {error}");
        }
    }
    let after = app
        .call_ok(
            Method::GET,
            "/api/signals/latest/?limit=500",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert!(after
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["source"] == "ratings"));
}

#[tokio::test]
async fn alerts_need_active_signals_and_are_rate_limited_per_user() {
    let app = TestApp::spawn_with(
        signaldesk_store::test_support::TestDatabase::sqlite(),
        |c| {
            c.webhook_alerts_per_minute = 3;
        },
    )
    .await;
    let token = app.user_with_token("alice").await;
    let path = new_webhook(&app, &token).await;
    let good = r#"{"symbol": "BTCUSDT", "signal": "STRONG_BUY"}"#;
    let off = assert_json_error(post_alert(&app, &path, good).await, StatusCode::CONFLICT).await;
    assert!(off["error"].as_str().unwrap().contains("start signals"));
    start_signals(&app, &token).await;
    for _ in 0..2 {
        assert_eq!(
            post_alert(&app, &path, good).await.status(),
            StatusCode::ACCEPTED
        );
    }
    let limited = post_alert(&app, &path, good).await;
    assert!(limited.headers().contains_key("retry-after"));
    assert_json_error(limited, StatusCode::TOO_MANY_REQUESTS).await;
}

#[tokio::test]
async fn webhook_management_needs_a_login() {
    let app = TestApp::spawn().await;
    for method in [Method::GET, Method::POST, Method::DELETE] {
        let res = app
            .client
            .request(method, app.url("/api/webhook/"))
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    }
}

/// Issue 16 point 4: 60 POSTs to unknown webhook URLs from one address made the real URL
/// answer 429 from that address for a minute. Unknown URLs are still slowed per address, but
/// a valid secret is limited only by its user's alert rate.
#[tokio::test]
async fn failures_from_an_address_never_block_a_valid_webhook() {
    let app = TestApp::spawn_with(
        signaldesk_store::test_support::TestDatabase::sqlite(),
        |c| {
            c.webhook_alerts_per_minute = 5;
        },
    )
    .await;
    let token = app.user_with_token("alice").await;
    let path = new_webhook(&app, &token).await;
    start_signals(&app, &token).await;
    let good = r#"{"symbol": "BTCUSDT", "signal": "STRONG_BUY"}"#;
    for _ in 0..5 {
        let res = post_alert(&app, "/api/webhook/not-a-secret/", good).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }
    let slowed = post_alert(&app, "/api/webhook/not-a-secret/", good).await;
    assert!(slowed.headers().contains_key("retry-after"));
    assert_json_error(slowed, StatusCode::TOO_MANY_REQUESTS).await;
    // The same address, the real URL: accepted, up to the user's own limit.
    for _ in 0..5 {
        assert_eq!(
            post_alert(&app, &path, good).await.status(),
            StatusCode::ACCEPTED
        );
    }
    let limited = post_alert(&app, &path, good).await;
    assert_json_error(limited, StatusCode::TOO_MANY_REQUESTS).await;
}

/// Issue 16 point 4, at the default quota (60 a minute): more than a minute's worth of
/// unknown URLs from one address (behind a trusted proxy) are slowed for that address only,
/// and the real URL from that same address is still accepted.
#[tokio::test]
async fn a_flood_of_unknown_urls_is_slowed_per_address_and_never_blocks_the_real_one() {
    let app = TestApp::spawn_with(
        signaldesk_store::test_support::TestDatabase::sqlite(),
        |c| c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()],
    )
    .await;
    assert_eq!(app.config.webhook_alerts_per_minute, 60);
    let token = app.user_with_token("alice").await;
    let path = new_webhook(&app, &token).await;
    start_signals(&app, &token).await;
    let good = r#"{"symbol": "BTCUSDT", "signal": "STRONG_BUY"}"#;
    let from = |address: &str, path: &str| {
        alert_request(&app, path, good)
            .header("X-Forwarded-For", address)
            .send()
    };
    let mut statuses = Vec::new();
    for i in 0..65 {
        let guess = format!("/api/webhook/guess-{i}/");
        statuses.push(from("203.0.113.9", &guess).await.unwrap().status());
    }
    assert!(statuses[..60].iter().all(|s| *s == StatusCode::NOT_FOUND));
    assert!(statuses[60..]
        .iter()
        .all(|s| *s == StatusCode::TOO_MANY_REQUESTS));
    let accepted = from("203.0.113.9", &path).await.unwrap();
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    // Another address guessing is not slowed by the first one.
    let other = from("198.51.100.4", "/api/webhook/guess-0/").await.unwrap();
    assert_json_error(other, StatusCode::NOT_FOUND).await;
}
