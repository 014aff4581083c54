//! `/api/logs/`: the user's own entries, newest first, by level and limit.

use reqwest::{Method, StatusCode};
use signaldesk_store::LogLevel;

use crate::helpers::{assert_json_error, TestApp};

#[tokio::test]
async fn logs_are_the_users_own_newest_first_filtered_and_limited() {
    let app = TestApp::spawn().await;
    let alice = app.user_with_token("alice").await;
    let bob = app.user_with_token("bob").await;
    // Bot control writes the worker events; a direct write adds a warning.
    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        &alice,
        None,
        StatusCode::OK,
    )
    .await;
    app.call_ok(
        Method::POST,
        "/api/command/signals/stop/",
        &alice,
        None,
        StatusCode::OK,
    )
    .await;
    let alice_id = app
        .store()
        .user_by_username("alice")
        .await
        .unwrap()
        .unwrap()
        .id;
    app.store()
        .append_log(alice_id, LogLevel::Warning, "careful", chrono_now())
        .await
        .unwrap();

    let all = app
        .call_ok(Method::GET, "/api/logs/", &alice, None, StatusCode::OK)
        .await;
    let messages: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        ["careful", "Signal worker stopped", "Signal worker started"]
    );
    let first = &all[0];
    assert_eq!(first["level"], "warning");
    assert!(first["timestamp"].as_str().unwrap().ends_with('Z'));

    let warnings = app
        .call_ok(
            Method::GET,
            "/api/logs/?level=warning",
            &alice,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(warnings.as_array().unwrap().len(), 1);
    let limited = app
        .call_ok(
            Method::GET,
            "/api/logs/?limit=2&level=",
            &alice,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(limited.as_array().unwrap().len(), 2);
    let bobs = app
        .call_ok(Method::GET, "/api/logs/", &bob, None, StatusCode::OK)
        .await;
    assert!(
        bobs.as_array().unwrap().is_empty(),
        "another user's log is never shown"
    );

    for bad in [
        "/api/logs/?level=loud",
        "/api/logs/?limit=0",
        "/api/logs/?limit=5000",
        "/api/logs/?limit=x",
    ] {
        assert_json_error(
            app.call(Method::GET, bad, &alice, None).await,
            StatusCode::BAD_REQUEST,
        )
        .await;
    }
}

fn chrono_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}
