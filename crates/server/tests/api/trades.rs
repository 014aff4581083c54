//! `/api/trades/` against the real server and the paper venue: a webhook alert opens a
//! trade, which the list shows with its signal; closing it by hand and closing all.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{alert_body, assert_json_error, TestApp};
use crate::live::LiveClient;

/// Starts the bot with a key and a webhook; returns the webhook path.
pub(crate) async fn trading_bot(app: &TestApp, token: &str) -> String {
    app.activate_a_key(token).await;
    app.call_ok(
        Method::POST,
        "/api/command/bot/start/",
        token,
        None,
        StatusCode::OK,
    )
    .await;
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

/// Sends an alert that is a change into a strong signal for `symbol`, so the bot enters.
pub(crate) async fn alert_entry(
    app: &TestApp,
    token: &str,
    path: &str,
    symbol: &str,
) -> &'static str {
    let signals = app
        .call_ok(Method::GET, "/api/signals/", token, None, StatusCode::OK)
        .await;
    let current = signals
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["symbol"] == symbol)
        .map(|s| s["recommendation"].as_str().unwrap().to_string())
        .unwrap_or_default();
    let new = if current == "STRONG_BUY" {
        "STRONG_SELL"
    } else {
        "STRONG_BUY"
    };
    let res = app
        .client
        .post(app.url(path))
        .json(&alert_body(symbol, new))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    new
}

pub(crate) async fn open_trades(app: &TestApp, token: &str, want: usize) -> Vec<Value> {
    for _ in 0..200 {
        let page = app
            .call_ok(
                Method::GET,
                "/api/trades/?status=open",
                token,
                None,
                StatusCode::OK,
            )
            .await;
        let results = page["results"].as_array().unwrap().clone();
        if results.len() == want {
            return results;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("never {want} open trades");
}

#[tokio::test]
async fn an_alert_opens_a_trade_listed_with_its_signal_and_a_manual_close_books_it() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let other = app.user_with_token("bob").await;
        let path = trading_bot(&app, &token).await;
        let (mut live, _) = LiveClient::authenticated(&app, &token).await;
        let signal = alert_entry(&app, &token, &path, "BTCUSDT").await;
        let trade = open_trades(&app, &token, 1).await.remove(0);
        // The fill went out live: the open positions and the balance.
        let wait = Duration::from_secs(5);
        let orders = live
            .next_where("orders", wait, |m| m["data"] != json!([]))
            .await;
        assert_eq!(orders["data"][0]["symbol"], "BTCUSDT");
        live.next_where("balance", wait, |m| {
            m["data"]["available_balance"].as_f64().unwrap() < 10000.0
        })
        .await;
        assert_eq!(trade["symbol"], "BTCUSDT", "{}", app.db_url());
        assert_eq!(
            trade["side"],
            if signal == "STRONG_BUY" {
                "long"
            } else {
                "short"
            }
        );
        assert_eq!(trade["status"], "OPEN");
        assert_eq!(trade["leverage"], 10);
        assert!(trade["stop_loss"].as_f64().is_some());
        assert!(trade["signal"]["id"].as_i64().is_some());
        assert!(trade["latency_ms"].as_i64().unwrap() >= 0);
        assert!(trade["slippage_pct"].as_f64().is_some());
        let status = app
            .call_ok(
                Method::GET,
                "/api/bot/status/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(status["open_trades"], 1);

        // Filters and pages.
        let id = trade["id"].as_i64().unwrap();
        for (query, count) in [
            ("?symbol=btcusdt", 1),
            ("?symbol=ETHUSDT", 0),
            ("?status=closed", 0),
            ("?from=2000-01-01&to=2999-12-31", 1),
            ("?to=2000-01-01", 0),
            ("?page=2&page_size=1", 1),
        ] {
            let page = app
                .call_ok(
                    Method::GET,
                    &format!("/api/trades/{query}"),
                    &token,
                    None,
                    StatusCode::OK,
                )
                .await;
            assert_eq!(page["count"], count, "{query}");
        }
        let empty_page = app
            .call_ok(
                Method::GET,
                "/api/trades/?page=2&page_size=1",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(empty_page["results"], json!([]));

        // Bob sees nothing of it and cannot close it.
        let theirs = app
            .call_ok(Method::GET, "/api/trades/", &other, None, StatusCode::OK)
            .await;
        assert_eq!(theirs["count"], 0);
        let res = app
            .call(
                Method::POST,
                &format!("/api/trades/{id}/close/"),
                &other,
                None,
            )
            .await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;

        let closed = app
            .call_ok(
                Method::POST,
                &format!("/api/trades/{id}/close/"),
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(closed["status"], "CLOSED");
        assert_eq!(closed["close_reason"], "manual");
        // After the close: no position, and statistics that count the trade.
        live.next_where("orders", wait, |m| m["data"] == json!([]))
            .await;
        let stats = live
            .next_where("statistics", wait, |m| m["data"]["total_trades"] == 1)
            .await;
        assert_eq!(
            stats["data"]["total_profit"].as_f64(),
            closed["pnl"].as_f64()
        );
        assert!(closed["exit_price"].as_f64().is_some());
        assert!(closed["closed_at"].is_string());
        let again = app
            .call(
                Method::POST,
                &format!("/api/trades/{id}/close/"),
                &token,
                None,
            )
            .await;
        assert_json_error(again, StatusCode::CONFLICT).await;
        let logs = app
            .call_ok(
                Method::GET,
                "/api/logs/?limit=50",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert!(logs.as_array().unwrap().iter().any(|l| l["message"]
            .as_str()
            .unwrap()
            .starts_with("BTCUSDT: opened")));
    }
}

#[tokio::test]
async fn close_all_closes_every_open_trade_even_with_the_bot_stopped() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let path = trading_bot(&app, &token).await;
    alert_entry(&app, &token, &path, "BTCUSDT").await;
    alert_entry(&app, &token, &path, "ETHUSDT").await;
    open_trades(&app, &token, 2).await;
    app.call_ok(
        Method::POST,
        "/api/command/bot/stop/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let answer = app
        .call_ok(
            Method::POST,
            "/api/trades/close-all/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(answer, json!({"closed": 2}));
    open_trades(&app, &token, 0).await;
    let wallet = app
        .call_ok(Method::GET, "/api/balance/", &token, None, StatusCode::OK)
        .await;
    assert_eq!(
        wallet["equity"], wallet["available_balance"],
        "no margin held"
    );
}

#[tokio::test]
async fn bad_trade_queries_are_400_and_unknown_ids_404() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    for query in [
        "?status=maybe",
        "?page=0",
        "?page_size=501",
        "?from=yesterday",
        "?page=abc",
        // Unicode's wider whitespace is not the blank the schema's pattern allows.
        "?from=%C2%85",
        "?to=%0B+",
        "?status=%C2%A0open",
    ] {
        let res = app
            .call(Method::GET, &format!("/api/trades/{query}"), &token, None)
            .await;
        assert_json_error(res, StatusCode::BAD_REQUEST).await;
    }
    for query in ["?from=&to=+", "?status=+open%0A"] {
        let res = app
            .call(Method::GET, &format!("/api/trades/{query}"), &token, None)
            .await;
        assert_eq!(res.status(), StatusCode::OK, "{query}");
    }
    for path in ["/api/trades/999/close/", "/api/trades/abc/close/"] {
        let res = app.call(Method::POST, path, &token, None).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }
}

#[tokio::test]
async fn the_risk_preview_adds_up_the_steps_and_saves_nothing() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let preview = app
        .call_ok(
            Method::POST,
            "/api/bot-settings/risk-preview/",
            &token,
            Some(json!({"leverage": 50, "martingale_initial_margin": 10})),
            StatusCode::OK,
        )
        .await;
    let steps = preview["steps"].as_array().unwrap();
    let cumulative: Vec<f64> = steps
        .iter()
        .map(|s| s["cumulative_margin"].as_f64().unwrap())
        .collect();
    assert_eq!(cumulative, [10.0, 30.0, 70.0, 150.0]);
    assert_eq!(steps[3]["notional"], 4000.0);
    assert_eq!(steps[0]["liquidation_distance_pct"], 1.5);
    assert!(preview["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("liquidated before the stop")));
    assert_eq!(preview["wallet_balance"], 10000.0);
    let settings = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(settings[0]["leverage"], 10, "nothing saved");
    let res = app
        .call(
            Method::POST,
            "/api/bot-settings/risk-preview/",
            &token,
            Some(json!({"leverage": 500})),
        )
        .await;
    let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    assert!(error["fields"]["leverage"].is_array());
}
