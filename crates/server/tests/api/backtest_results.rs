//! Backtest results that explain themselves, on every database: a run that traded nothing
//! says why (no signals; every entry skipped, counted by reason), and each run has a label
//! its owner can set, change and clear (`PATCH /api/backtests/{id}/`).

use std::time::{Duration, Instant};

use chrono::{Days, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_json_error, TestApp};

fn day(days_ago: u64) -> String {
    (Utc::now().date_naive() - Days::new(days_ago)).to_string()
}

/// Starts a backtest and answers it once it is no longer running.
async fn run_to_end(app: &TestApp, token: &str, asked: Value) -> Value {
    let started = app
        .call_ok(
            Method::POST,
            "/api/backtests/",
            token,
            Some(asked),
            StatusCode::ACCEPTED,
        )
        .await;
    let path = format!("/api/backtests/{}/", started["id"]);
    let began = Instant::now();
    loop {
        let run = app
            .call_ok(Method::GET, &path, token, None, StatusCode::OK)
            .await;
        if run["status"] != "running" {
            return run;
        }
        assert!(
            began.elapsed() < Duration::from_secs(180),
            "still running: {run}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_run_that_traded_nothing_says_why() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;

        // 1 USDT at 1x buys less than one step of BTC or ETH: every entry is skipped.
        let small = run_to_end(
            &app,
            &token,
            json!({
                "date_from": day(3), "date_to": day(2), "symbols": ["BTCUSDT", "ETHUSDT"],
                "overrides": {"max_trade_usdt": 1, "leverage": 1}
            }),
        )
        .await;
        assert_eq!(small["status"], "done", "{small}");
        let result = &small["result"];
        assert_eq!(result["trades_total"], 0, "{result}");
        let why = &result["no_trades"];
        assert_eq!(why["code"], "all_skipped", "{why}");
        let entries = why["entries"].as_u64().unwrap();
        assert!(entries > 0 && why["signals"].as_u64().unwrap() >= entries);
        assert_eq!(
            why["skips"],
            json!([{
                "kind": "below_minimum",
                "label": "order below the instrument's minimum",
                "count": entries
            }])
        );
        let text = why["text"].as_str().unwrap();
        assert!(
            text.contains("skipped") && text.contains("order below the instrument's minimum"),
            "{text}"
        );
        // What it ran with is in the result.
        assert_eq!(result["settings"]["max_trade_usdt"], 1.0);
        assert_eq!(result["history"]["data"], "simulated");

        // Alerts as the source, and none recorded: no signals at all.
        let silent = run_to_end(
            &app,
            &token,
            json!({"date_from": day(2), "date_to": day(2), "symbols": ["BTCUSDT"], "source": "alerts"}),
        )
        .await;
        assert_eq!(silent["status"], "done", "{silent}");
        let why = &silent["result"]["no_trades"];
        assert_eq!(why["code"], "no_signals", "{why}");
        assert_eq!(why["signals"], 0);
        assert_eq!(why["skips"], json!([]));
        assert!(why["text"]
            .as_str()
            .unwrap()
            .starts_with("No signals in the period"));
    }
}

#[tokio::test]
async fn a_run_has_a_label_its_owner_sets_changes_and_clears() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;
        let other = app.user_with_token("someone").await;
        let run = run_to_end(
            &app,
            &token,
            json!({"date_from": day(2), "date_to": day(2), "symbols": ["BTCUSDT"], "source": "alerts"}),
        )
        .await;
        assert_eq!(run["label"], Value::Null);
        let path = format!("/api/backtests/{}/", run["id"]);

        let named = app
            .call_ok(
                Method::PATCH,
                &path,
                &token,
                Some(json!({"label": "  tight stops  "})),
                StatusCode::OK,
            )
            .await;
        assert_eq!(named["label"], "tight stops");
        assert_eq!(named["status"], "done");
        let listed = app
            .call_ok(Method::GET, "/api/backtests/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(listed[0]["label"], "tight stops");

        // Exactly 80 characters is fine; 81 is not, and changes nothing.
        let longest = "é".repeat(80);
        let named = app
            .call_ok(
                Method::PATCH,
                &path,
                &token,
                Some(json!({"label": longest})),
                StatusCode::OK,
            )
            .await;
        assert_eq!(named["label"], longest.as_str());
        let bad = [
            json!({"label": "x".repeat(81)}),
            json!({"label": 5}),
            json!({"label": ["a"]}),
            json!({}),
        ];
        for body in bad {
            let res = app
                .call(Method::PATCH, &path, &token, Some(body.clone()))
                .await;
            let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            assert!(error["fields"]["label"].is_array(), "{body} -> {error}");
        }
        let res = app
            .call(Method::PATCH, &path, &token, Some(json!("label")))
            .await;
        assert_json_error(res, StatusCode::BAD_REQUEST).await;

        // Another user's run and an unknown one are not found; nothing changes.
        let res = app
            .call(Method::PATCH, &path, &other, Some(json!({"label": "mine"})))
            .await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
        let res = app
            .call(
                Method::PATCH,
                "/api/backtests/999999/",
                &token,
                Some(json!({"label": "x"})),
            )
            .await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
        let read = app
            .call_ok(Method::GET, &path, &token, None, StatusCode::OK)
            .await;
        assert_eq!(read["label"], longest.as_str());

        // Empty (after trimming) or null clears it.
        for clear in [json!({"label": "   "}), json!({"label": null})] {
            let cleared = app
                .call_ok(Method::PATCH, &path, &token, Some(clear), StatusCode::OK)
                .await;
            assert_eq!(cleared["label"], Value::Null);
        }
    }
}
