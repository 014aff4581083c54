//! TradingView webhooks: the per-user secret URL, its validation and rate limit, an
//! accepted alert becoming the user's signal, stored and pushed live, and replays refused (a
//! stale or far-future `time`, the same body again within the duplicate window).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{alert_body, assert_json_error, TestApp};
use crate::live::LiveClient;
use crate::trades::{open_trades, trading_bot};

/// A new alert body (its own `time` and `id`), as text.
fn fresh(symbol: &str, signal: &str) -> String {
    alert_body(symbol, signal).to_string()
}

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
    let good = || fresh("BTCUSDT", "STRONG_BUY");
    assert_json_error(
        post_alert(&app, "/api/webhook/not-a-secret/", &good()).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    let old = new_webhook(&app, &token).await;
    assert_eq!(
        post_alert(&app, &old, &good()).await.status(),
        StatusCode::ACCEPTED
    );
    let new = new_webhook(&app, &token).await;
    assert_ne!(old, new);
    assert_json_error(post_alert(&app, &old, &good()).await, StatusCode::NOT_FOUND).await;
    assert_eq!(
        post_alert(&app, &new, &good()).await.status(),
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
    assert_json_error(post_alert(&app, &new, &good()).await, StatusCode::NOT_FOUND).await;
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
    let good = || fresh("BTCUSDT", "STRONG_BUY");
    let off = assert_json_error(post_alert(&app, &path, &good()).await, StatusCode::CONFLICT).await;
    assert!(off["error"].as_str().unwrap().contains("start signals"));
    start_signals(&app, &token).await;
    for _ in 0..2 {
        assert_eq!(
            post_alert(&app, &path, &good()).await.status(),
            StatusCode::ACCEPTED
        );
    }
    let limited = post_alert(&app, &path, &good()).await;
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
    let good = || fresh("BTCUSDT", "STRONG_BUY");
    for _ in 0..5 {
        let res = post_alert(&app, "/api/webhook/not-a-secret/", &good()).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }
    let slowed = post_alert(&app, "/api/webhook/not-a-secret/", &good()).await;
    assert!(slowed.headers().contains_key("retry-after"));
    assert_json_error(slowed, StatusCode::TOO_MANY_REQUESTS).await;
    // The same address, the real URL: accepted, up to the user's own limit.
    for _ in 0..5 {
        assert_eq!(
            post_alert(&app, &path, &good()).await.status(),
            StatusCode::ACCEPTED
        );
    }
    let limited = post_alert(&app, &path, &good()).await;
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
    let from = |address: &str, path: &str| {
        alert_request(&app, path, &fresh("BTCUSDT", "STRONG_BUY"))
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

/// The user's stored signals from the webhook, newest first.
async fn webhook_signals(app: &TestApp, token: &str) -> Vec<Value> {
    let latest = app
        .call_ok(
            Method::GET,
            "/api/signals/latest/?limit=500",
            token,
            None,
            StatusCode::OK,
        )
        .await;
    latest
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["source"] == "webhook")
        .cloned()
        .collect()
}

async fn open_trade_count(app: &TestApp, token: &str) -> u64 {
    let page = app
        .call_ok(
            Method::GET,
            "/api/trades/?status=open",
            token,
            None,
            StatusCode::OK,
        )
        .await;
    page["count"].as_u64().unwrap()
}

fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Issue 31 point 5: an alert's `time` older than `webhook_max_lag_secs` (300), or as far ahead,
/// is refused naming the field and trades nothing; a fresh one is accepted in seconds,
/// milliseconds (a numeric string too) and TradingView's `{{timenow}}` form.
#[tokio::test]
async fn a_stale_or_future_time_is_refused_and_fresh_seconds_ms_and_iso_are_accepted() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let path = trading_bot(&app, &token).await;
        let iso = |secs: i64| {
            chrono::DateTime::from_timestamp(secs, 0)
                .unwrap()
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        };
        // What would be an entry, sent 301 s ago or 301 s from now, in each form.
        let stale = now_secs() - 301;
        let ahead = now_secs() + 301;
        for (body, says) in [
            (
                json!({"symbol": "BTCUSDT", "signal": "STRONG_BUY", "time": stale}),
                "s old",
            ),
            (
                json!({"symbol": "BTCUSDT", "signal": "STRONG_BUY", "time": stale * 1000}),
                "s old",
            ),
            (
                json!({"symbol": "BTCUSDT", "signal": "STRONG_BUY", "time": iso(stale)}),
                "s old",
            ),
            (
                json!({"symbol": "BTCUSDT", "signal": "STRONG_SELL", "time": ahead}),
                "s ahead",
            ),
            (
                json!({"symbol": "BTCUSDT", "signal": "STRONG_SELL", "time": iso(ahead)}),
                "s ahead",
            ),
            (
                json!({"symbol": "BTCUSDT", "signal": "STRONG_BUY", "time": "yesterday"}),
                "ISO 8601",
            ),
        ] {
            let res = post_alert(&app, &path, &body.to_string()).await;
            let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            let message = error["fields"]["time"][0].as_str().unwrap_or_default();
            assert!(message.contains(says), "{body}: {error}");
            if says.ends_with("old") {
                assert!(message.contains("300 s"), "the limit is named: {message}");
            }
        }
        assert_eq!(webhook_signals(&app, &token).await, Vec::<Value>::new());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(open_trade_count(&app, &token).await, 0, "{}", app.db_url());

        // Fresh, in each form (BUY and SELL are NEUTRAL to the bot: no entry).
        let now = now_secs();
        for (time, signal) in [
            (json!(now - 290), "NEUTRAL"),
            (json!((now - 290) * 1000), "BUY"),
            (json!(((now + 290) * 1000).to_string()), "SELL"),
            (json!(iso(now)), "NEUTRAL"),
        ] {
            let body = json!({"symbol": "ETHUSDT", "signal": signal, "time": time});
            let res = post_alert(&app, &path, &body.to_string()).await;
            assert_eq!(res.status(), StatusCode::ACCEPTED, "{body}");
            let answer: Value = res.json().await.unwrap();
            assert_eq!(answer, json!({"symbol": "ETHUSDT", "signal": signal}));
        }
        let stored = wait_for_webhook_signals(&app, &token, 4).await;
        assert!(stored.iter().all(|s| s["symbol"] == "ETHUSDT"));
    }
}

/// Waits (up to 5 s) until the user has `n` webhook signals stored; them, newest first.
async fn wait_for_webhook_signals(app: &TestApp, token: &str, n: usize) -> Vec<Value> {
    for _ in 0..100 {
        let stored = webhook_signals(app, token).await;
        assert!(stored.len() <= n, "more than {n}: {stored:?}");
        if stored.len() == n {
            return stored;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never {n} webhook signals");
}

/// The user's bot log lines that say a duplicate alert was ignored.
async fn duplicate_lines(app: &TestApp, token: &str) -> Vec<String> {
    let logs = app
        .call_ok(
            Method::GET,
            "/api/logs/?limit=500",
            token,
            None,
            StatusCode::OK,
        )
        .await;
    logs.as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["message"].as_str())
        .filter(|m| m.contains("duplicate webhook alert"))
        .map(str::to_string)
        .collect()
}

/// Issue 31 point 5: the same body twice within the duplicate window is acted on once (one
/// signal, one trade); the copy answers 200 with `"duplicate": true` and writes one bot log
/// line. After the window the same body is acted on again. The window is 2 s here (10 s by
/// default) so the test need not wait long.
#[tokio::test]
async fn the_same_body_within_the_window_is_acted_on_once_and_logged_as_a_duplicate() {
    for app in TestApp::on_every_backend_with(|c| c.webhook_duplicate_window_secs = 2).await {
        let token = app.user_with_token("alice").await;
        let path = trading_bot(&app, &token).await;
        assert_eq!(
            post_alert(&app, &path, &fresh("BTCUSDT", "NEUTRAL"))
                .await
                .status(),
            StatusCode::ACCEPTED
        );
        wait_for_webhook_signals(&app, &token, 1).await;
        // Exactly as TradingView would send it again: the same bytes.
        let entry = fresh("BTCUSDT", "STRONG_BUY");
        let first = post_alert(&app, &path, &entry).await;
        assert_eq!(first.status(), StatusCode::ACCEPTED, "{}", app.db_url());
        let copy = post_alert(&app, &path, &entry).await;
        assert_eq!(copy.status(), StatusCode::OK);
        let answer: Value = copy.json().await.unwrap();
        assert_eq!(
            answer,
            json!({"symbol": "BTCUSDT", "signal": "STRONG_BUY", "duplicate": true})
        );
        let trades = open_trades(&app, &token, 1).await;
        assert_eq!(trades[0]["symbol"], "BTCUSDT");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(wait_for_webhook_signals(&app, &token, 2).await.len(), 2);
        assert_eq!(open_trade_count(&app, &token).await, 1);
        let lines = duplicate_lines(&app, &token).await;
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains("BTCUSDT") && lines[0].contains("ignored"),
            "{lines:?}"
        );

        // Past the window the same bytes are a new alert (and its time still fresh).
        tokio::time::sleep(Duration::from_millis(2100)).await;
        let again = post_alert(&app, &path, &entry).await;
        assert_eq!(again.status(), StatusCode::ACCEPTED);
        wait_for_webhook_signals(&app, &token, 3).await;
        assert_eq!(duplicate_lines(&app, &token).await.len(), 1);
    }
}

/// Two identical alerts at once are acted on once: one 202, one duplicate. On PostgreSQL
/// also across two instances of one database, the claim being a row of it.
#[tokio::test]
async fn two_identical_alerts_at_once_act_once_on_one_instance_or_two() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let path = new_webhook(&app, &token).await;
        start_signals(&app, &token).await;
        let mut instances = vec![(&app, &app)];
        let sibling = if app.db_url().starts_with("postgres") {
            Some(app.sibling().await)
        } else {
            None
        };
        if let Some(b) = &sibling {
            instances.push((&app, b));
        }
        for (round, (a, b)) in instances.into_iter().enumerate() {
            let body = fresh("ETHUSDT", "STRONG_SELL");
            let (one, two) = tokio::join!(post_alert(a, &path, &body), post_alert(b, &path, &body));
            let mut statuses = [one.status(), two.status()];
            statuses.sort();
            assert_eq!(
                statuses,
                [StatusCode::OK, StatusCode::ACCEPTED],
                "{}",
                app.db_url()
            );
            wait_for_webhook_signals(&app, &token, round + 1).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let rounds = if sibling.is_some() { 2 } else { 1 };
        assert_eq!(webhook_signals(&app, &token).await.len(), rounds);
        assert_eq!(duplicate_lines(&app, &token).await.len(), rounds);
    }
}

/// A claimed body is kept in the database: a restarted server still takes a copy within the
/// window for a duplicate.
#[tokio::test]
async fn a_duplicate_is_recognised_after_a_restart() {
    for app in TestApp::on_every_backend_with(|c| c.webhook_duplicate_window_secs = 60).await {
        let token = app.user_with_token("alice").await;
        let path = new_webhook(&app, &token).await;
        start_signals(&app, &token).await;
        let body = fresh("BTCUSDT", "SELL");
        assert_eq!(
            post_alert(&app, &path, &body).await.status(),
            StatusCode::ACCEPTED
        );
        let app = app.restart().await;
        let copy = post_alert(&app, &path, &body).await;
        assert_eq!(copy.status(), StatusCode::OK, "{}", app.db_url());
        assert_eq!(copy.json::<Value>().await.unwrap()["duplicate"], true);
        assert_eq!(webhook_signals(&app, &token).await.len(), 1);
    }
}
