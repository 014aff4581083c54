//! Bot control: the key rule, signals first, aliases, status, and resuming after a restart.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::TestApp;

async fn settings_id(app: &TestApp, token: &str) -> Value {
    app.call_ok(
        Method::GET,
        "/api/bot-settings/",
        token,
        None,
        StatusCode::OK,
    )
    .await[0]["id"]
        .clone()
}

#[tokio::test]
async fn start_trading_worker_without_a_key_trades_on_the_paper_account() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let id = settings_id(&app, &token).await;
    let started = app
        .call_ok(
            Method::POST,
            &format!("/api/bot-settings/{id}/start_trading_worker/"),
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    let status = &started["status"];
    assert_eq!(status["is_bot_running"], true);
    assert_eq!(status["trading_worker"], "running");
    assert_eq!(
        status["venue"],
        serde_json::json!({"exchange": "paper", "environment": "paper"})
    );
    app.server.stop().await.unwrap();
}

#[tokio::test]
async fn start_with_signals_off_turns_both_on_and_stop_keeps_signals() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    app.activate_a_key(&token).await;
    let id = settings_id(&app, &token).await;
    let started = app
        .call_ok(
            Method::POST,
            &format!("/api/bot-settings/{id}/start_trading_worker/"),
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(started["message"], "Bot started");
    assert_eq!(started["status"]["is_bot_running"], true);
    assert_eq!(started["status"]["is_signals_fetching_active"], true);
    let record = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(record[0]["is_bot_running"], true);
    assert_eq!(record[0]["is_signals_fetching_active"], true);

    let status = app
        .call_ok(
            Method::GET,
            "/api/bot/status/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    for field in [
        "is_bot_running",
        "is_signals_fetching_active",
        "bot_mode",
        "open_trades",
        "active_chains",
        "venue",
        "started_at",
    ] {
        assert!(status.get(field).is_some(), "status has {field}");
    }
    assert_eq!(
        status["venue"],
        serde_json::json!({"exchange": "paper", "environment": "paper"})
    );
    assert_eq!(status["trading_worker"], "running");
    assert!(status["started_at"].as_str().is_some());

    let stopped = app
        .call_ok(
            Method::POST,
            &format!("/api/bot-settings/{id}/stop_bot/"),
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(stopped["message"], "Bot stopped");
    assert_eq!(stopped["status"]["is_bot_running"], false);
    assert_eq!(stopped["status"]["is_signals_fetching_active"], true);
    let sig = app
        .call_ok(
            Method::POST,
            &format!("/api/bot-settings/{id}/stop_signals/"),
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(sig["message"], "Signals stopped");
    assert_eq!(sig["status"]["is_signals_fetching_active"], false);
    let sig = app
        .call_ok(
            Method::POST,
            &format!("/api/bot-settings/{id}/start_signals/"),
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(sig["message"], "Signals started");
    assert_eq!(sig["status"]["signal_worker"], "running");
}

#[tokio::test]
async fn command_aliases_act_on_the_callers_record() {
    let app = TestApp::spawn().await;
    let alice = app.user_with_token("alice").await;
    let bob = app.user_with_token("bob").await;
    app.activate_a_key(&alice).await;
    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        &bob,
        None,
        StatusCode::OK,
    )
    .await;
    app.call_ok(
        Method::POST,
        "/api/command/bot/start/",
        &alice,
        None,
        StatusCode::OK,
    )
    .await;
    let a = app
        .call_ok(
            Method::GET,
            "/api/bot/status/",
            &alice,
            None,
            StatusCode::OK,
        )
        .await;
    let b = app
        .call_ok(Method::GET, "/api/bot/status/", &bob, None, StatusCode::OK)
        .await;
    assert_eq!(
        (a["is_bot_running"].clone(), b["is_bot_running"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(b["is_signals_fetching_active"], true);
    app.call_ok(
        Method::POST,
        "/api/command/bot/stop/",
        &alice,
        None,
        StatusCode::OK,
    )
    .await;
    app.call_ok(
        Method::POST,
        "/api/command/signals/stop/",
        &bob,
        None,
        StatusCode::OK,
    )
    .await;
    let b = app
        .call_ok(Method::GET, "/api/bot/status/", &bob, None, StatusCode::OK)
        .await;
    assert_eq!(b["is_signals_fetching_active"], false);
}

#[tokio::test]
async fn after_a_restart_the_flags_are_the_same_and_the_tasks_run_again() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        app.activate_a_key(&token).await;
        app.call_ok(
            Method::POST,
            "/api/command/bot/start/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
        let before = app
            .call_ok(
                Method::GET,
                "/api/bot/status/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;

        let app = app.restart().await;
        let after = app
            .call_ok(
                Method::GET,
                "/api/bot/status/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(after["is_bot_running"], true);
        assert_eq!(after["is_signals_fetching_active"], true);
        assert_eq!(
            after["started_at"], before["started_at"],
            "the start time survives"
        );
        assert_eq!(after["signal_worker"], "running");
        assert_eq!(after["trading_worker"], "running");
        let logs = app.store().recent_logs(1, None, 50).await.unwrap();
        let starts = logs
            .iter()
            .filter(|e| e.message == "Trading worker started")
            .count();
        assert_eq!(starts, 2, "started once, and once more on resume");
    }
}

async fn not_trading(app: &TestApp, token: &str) -> Value {
    app.call_ok(Method::GET, "/api/bot/status/", token, None, StatusCode::OK)
        .await["not_trading"]
        .clone()
}

/// Issue 33: the status says why a running bot opens no position, first reason first.
#[tokio::test]
async fn the_status_says_why_a_running_bot_is_not_trading() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let id = settings_id(&app, &token).await;
    assert_eq!(not_trading(&app, &token).await, Value::Null);
    app.call_ok(
        Method::POST,
        &format!("/api/bot-settings/{id}/start_trading_worker/"),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(not_trading(&app, &token).await, Value::Null);

    app.call_ok(
        Method::PUT,
        &format!("/api/bot-settings/{id}/"),
        &token,
        Some(json!({"forbidden_days_enabled": true, "forbidden_days": [0, 1, 2, 3, 4, 5, 6]})),
        StatusCode::OK,
    )
    .await;
    let why = not_trading(&app, &token).await;
    assert_eq!(why["reason"], "forbidden_window");
    assert!(
        why["detail"]
            .as_str()
            .is_some_and(|d| d.ends_with("is a forbidden day in Europe/Moscow")),
        "{why}"
    );
    // The same as values, for a client in another language.
    assert_eq!(why["facts"]["kind"], "forbidden_day", "{why}");
    assert_eq!(why["facts"]["timezone"], "Europe/Moscow", "{why}");
    assert!(
        why["facts"]["weekday"].as_u64().is_some_and(|d| d < 7),
        "{why}"
    );

    app.call_ok(
        Method::POST,
        &format!("/api/bot-settings/{id}/stop_signals/"),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let why = not_trading(&app, &token).await;
    assert_eq!(why["reason"], "signals_inactive");
    assert_eq!(why["facts"], json!({"kind": "none"}));

    app.call_ok(
        Method::POST,
        &format!("/api/bot-settings/{id}/stop_bot/"),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(not_trading(&app, &token).await, Value::Null);
}
