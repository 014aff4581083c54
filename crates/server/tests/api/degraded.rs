//! Degraded mode on the real server: while the database is unreachable the API answers 503
//! with a sentence, `/healthz` answers 503 `degraded`, `/metrics` says `signaldesk_store_up 0`,
//! and bot log lines made meanwhile are written (and published) once it is back, with the
//! time they were made; all without a restart.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use signaldesk_engine::events::UserEvent;
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{assert_json_error, TestApp};

const SENTENCE: &str = "The database is unreachable: Signal Desk is running in degraded mode \
                        and will recover by itself.";

async fn healthz(app: &TestApp) -> (StatusCode, Value) {
    let res = reqwest::get(app.url("/healthz")).await.unwrap();
    (res.status(), res.json().await.unwrap())
}

/// The value of one gauge in `/metrics`.
async fn gauge(app: &TestApp, name: &str) -> Option<f64> {
    app.metric(name, &[]).await
}

async fn assert_degraded(app: &TestApp) {
    let (status, body) = healthz(app).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["status"], "degraded");
    assert_eq!(body["down"], json!(["database"]));
    assert_eq!(gauge(app, "signaldesk_store_up").await, Some(0.0));
}

/// Waits (at most 20 s) for `/healthz` to answer 200 ok again.
async fn await_recovery(app: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, body) = healthz(app).await;
        if status == StatusCode::OK {
            assert_eq!(body, json!({"status": "ok"}));
            break;
        }
        assert!(Instant::now() < deadline, "still degraded: {body}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(gauge(app, "signaldesk_store_up").await, Some(1.0));
    assert!(gauge(app, "signaldesk_store_outages").await >= Some(1.0));
}

async fn user_id(app: &TestApp, username: &str) -> i64 {
    app.store()
        .user_by_username(username)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// Writes `lines` to the bot log while the database is down: none can be stored yet.
async fn log_during_outage(app: &TestApp, user_id: i64, lines: &[&str]) -> i64 {
    let journal = app.server.state.engine.journal();
    for line in lines {
        assert!(journal
            .write(user_id, signaldesk_store::LogLevel::Warning, line)
            .await
            .is_none());
    }
    assert_eq!(journal.pending(), lines.len());
    assert_eq!(
        gauge(app, "signaldesk_bot_log_pending").await,
        Some(lines.len() as f64)
    );
    chrono::Utc::now().timestamp_millis()
}

/// Waits for the lines to be stored, then checks they are the newest, in order, with the
/// times they were made (before `made_by` ms).
async fn assert_logged_later(app: &TestApp, token: &str, lines: &[&str], made_by: i64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.server.state.engine.journal().pending() > 0 {
        assert!(
            Instant::now() < deadline,
            "the waiting lines were not written"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let logs = app
        .call_ok(Method::GET, "/api/logs/", token, None, StatusCode::OK)
        .await;
    let newest: Vec<&Value> = logs.as_array().unwrap().iter().take(lines.len()).collect();
    let messages: Vec<&str> = newest
        .iter()
        .rev()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, lines, "oldest first once reversed");
    for entry in newest {
        let ts = chrono::DateTime::parse_from_rfc3339(entry["timestamp"].as_str().unwrap())
            .unwrap()
            .timestamp_millis();
        assert!(ts <= made_by, "kept the time it was made: {entry}");
    }
}

/// Expects the next `new_log` event of the subscription to carry `message`.
async fn assert_published(sub: &mut signaldesk_engine::events::Subscription, message: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = tokio::time::timeout(left, sub.recv())
            .await
            .expect("a new_log event")
            .expect("bus open");
        if let UserEvent::NewLog(entry) = event.as_ref() {
            assert_eq!(entry.message, message);
            return;
        }
    }
}

#[tokio::test]
async fn postgres_refusing_connections_is_a_503_until_it_accepts_again() {
    let Some(db) = TestDatabase::postgres_database().await else {
        eprintln!("TEST_DATABASE_URL is unset: the PostgreSQL degraded-mode test did not run");
        return;
    };
    let app = TestApp::spawn_with(db, |_| {}).await;
    let token = app.user_with_token("ann").await;
    let ann = user_id(&app, "ann").await;
    let mut live = app.server.state.engine.bus().subscribe(ann);
    app.call_ok(Method::GET, "/api/logs/", &token, None, StatusCode::OK)
        .await;

    app.db().allow_connections(false).await;
    let res = app.with_token(Method::GET, "/api/logs/", &token).await;
    assert!(res.headers().contains_key("retry-after"));
    let body = assert_json_error(res, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(body["error"], SENTENCE);
    let res = app
        .with_token(Method::GET, "/api/bot-settings/", &token)
        .await;
    assert_json_error(res, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_degraded(&app).await;
    let lines = ["made during the outage", "and another one"];
    let made_by = log_during_outage(&app, ann, &lines).await;

    app.db().allow_connections(true).await;
    await_recovery(&app).await;
    assert_logged_later(&app, &token, &lines, made_by).await;
    for line in lines {
        assert_published(&mut live, line).await;
    }
}

#[tokio::test]
async fn sqlite_refusing_writes_is_a_503_for_writes_until_a_write_succeeds() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("ann").await;
    let ann = user_id(&app, "ann").await;
    let mut live = app.server.state.engine.bus().subscribe(ann);

    // A database that takes no writes, as on a full or read-only disk (SQLITE_READONLY).
    app.store()
        .on_every_connection("PRAGMA query_only = 1")
        .await
        .unwrap();
    let key = json!({"key": "k", "secret": "s", "is_demo": true});
    let res = app
        .call(Method::POST, "/api/api-keys/", &token, Some(key))
        .await;
    let body = assert_json_error(res, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(body["error"], SENTENCE);
    // The last known data can still be read.
    app.call_ok(Method::GET, "/api/logs/", &token, None, StatusCode::OK)
        .await;
    assert_degraded(&app).await;
    let lines = ["made while the disk took no writes"];
    let made_by = log_during_outage(&app, ann, &lines).await;

    app.store()
        .on_every_connection("PRAGMA query_only = 0")
        .await
        .unwrap();
    // The journal's next try is the write that proves the database takes writes again.
    await_recovery(&app).await;
    assert_logged_later(&app, &token, &lines, made_by).await;
    assert_published(&mut live, lines[0]).await;
}
