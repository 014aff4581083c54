//! Issue 18 points 2 and 3 on two instances of one PostgreSQL database: the bot runs on the
//! instance that holds its lease; the other relays the user's requests to it (alerts,
//! closes) and its websocket clients hear the bot's events; a gracefully stopped owner hands
//! the bot over at once. (The SIGKILL failovers run on the real binary in `make faults`.)
//! Skipped without `TEST_DATABASE_URL`: SQLite serves one instance.

use std::time::{Duration, Instant};

use reqwest::{Client, Method, StatusCode};
use serde_json::Value;
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::TestApp;
use crate::live::{Frame, LiveClient};

async fn pair() -> Option<(TestApp, TestApp)> {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: two instances not tested");
        return None;
    };
    let a = TestApp::spawn_with(db, |_| {}).await;
    let b = a.sibling().await;
    Some((a, b))
}

/// The instance id on the user's live lease, if any.
async fn lease_instance(app: &TestApp, user_id: i64) -> Option<String> {
    let (owner, live) = app.store().lease_owner(user_id).await.unwrap()?;
    live.then(|| owner.split('#').next().unwrap().to_string())
}

async fn user_id(app: &TestApp, token: &str) -> i64 {
    let me = app
        .call_ok(Method::GET, "/api/auth/me/", token, None, StatusCode::OK)
        .await;
    me["id"].as_i64().unwrap()
}

async fn start_bot(app: &TestApp, token: &str) -> Value {
    app.activate_a_key(token).await;
    app.call_ok(
        Method::POST,
        "/api/command/bot/start/",
        token,
        None,
        StatusCode::OK,
    )
    .await
}

/// Waits up to `within` for `check` to give `Some`.
async fn eventually<T, F, Fut>(what: &str, within: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_other_instance_relays_requests_to_the_bot_and_hears_its_events() {
    let Some((a, b)) = pair().await else { return };
    let token = a.user_with_token("alice").await;
    let user = user_id(&a, &token).await;
    let started = start_bot(&a, &token).await;
    assert_eq!(started["status"]["trading_worker"], "running");
    assert_eq!(
        lease_instance(&a, user).await.as_deref(),
        Some(a.config.instance_id.as_str())
    );

    // B does not run the bot, yet says it runs (on A).
    let status = b
        .call_ok(
            Method::GET,
            "/api/bot/status/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(status["trading_worker"], "running", "{status}");
    assert_eq!(status["signal_worker"], "running", "{status}");

    let (mut watcher, _) = LiveClient::authenticated(&b, &token).await;
    let made = b
        .call_ok(
            Method::POST,
            "/api/webhook/",
            &token,
            None,
            StatusCode::CREATED,
        )
        .await;
    let alert = Client::new()
        .post(b.url(made["path"].as_str().unwrap()))
        .header("content-type", "text/plain")
        .body(r#"{"symbol": "ETHUSDT", "signal": "STRONG_BUY"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(alert.status(), StatusCode::ACCEPTED, "an alert posted to B");

    // A's signal worker stored it and A's bot entered: B's client heard both.
    let mut heard = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline
        && !(heard
            .iter()
            .any(|m: &Value| m["type"] == "signal" && m["symbol"] == "ETHUSDT")
            && heard.iter().any(|m| m["type"] == "new_log"))
    {
        if let Some(Frame::Json(message)) = watcher.next_frame(Duration::from_secs(1)).await {
            heard.push(message);
        }
    }
    assert!(
        heard
            .iter()
            .any(|m| m["type"] == "signal" && m["symbol"] == "ETHUSDT"),
        "B's client heard A's signal: {heard:?}"
    );
    assert!(heard.iter().any(|m| m["type"] == "new_log"), "{heard:?}");

    let trade = eventually("an open ETHUSDT trade", Duration::from_secs(20), || async {
        let page = b
            .call_ok(
                Method::GET,
                "/api/trades/?status=open",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        page["results"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["symbol"] == "ETHUSDT").cloned())
    })
    .await;

    // A close asked of B is carried out by A's worker.
    let closed = b
        .call_ok(
            Method::POST,
            &format!("/api/trades/{}/close/", trade["id"]),
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(closed["status"], "CLOSED", "{closed}");
    assert_eq!(closed["close_reason"], "manual");
    assert_eq!(
        lease_instance(&a, user).await.as_deref(),
        Some(a.config.instance_id.as_str()),
        "the bot stayed on A"
    );
    let again = b
        .call(
            Method::POST,
            &format!("/api/trades/{}/close/", trade["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT, "closing it again");
}

#[tokio::test]
async fn a_gracefully_stopped_owner_hands_the_bot_over_at_once() {
    let Some((a, b)) = pair().await else { return };
    let token = a.user_with_token("alice").await;
    let user = user_id(&a, &token).await;
    start_bot(&a, &token).await;
    let b_id = b.config.instance_id.clone();
    a.server.stop().await.unwrap();

    let stopped = Instant::now();
    eventually("B running the bot", Duration::from_secs(5), || async {
        (lease_instance(&b, user).await.as_deref() == Some(b_id.as_str())).then_some(())
    })
    .await;
    assert!(stopped.elapsed() < Duration::from_secs(5));
    let status = b
        .call_ok(
            Method::GET,
            "/api/bot/status/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(status["trading_worker"], "running", "{status}");
    assert_eq!(status["is_bot_running"], true);

    // Stopping it on B stops it for good: B lets go of the lease.
    b.call_ok(
        Method::POST,
        "/api/command/bot/stop/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    b.call_ok(
        Method::POST,
        "/api/command/signals/stop/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(lease_instance(&b, user).await, None);
}
