//! `/api/api-keys/`: masking, encryption at rest, one active key, ownership, the running-bot rule.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_json_error, TestApp};

const SECRET: &str = "TOP-SECRET-VALUE-9f8e7d";
const KEY: &str = "PLAIN-API-KEY-1a2b3c";

async fn add_key(app: &TestApp, token: &str, is_demo: bool) -> Value {
    app.add_key(token, KEY, SECRET, is_demo).await
}

#[tokio::test]
async fn keys_are_masked_single_active_and_never_echoed() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let created = add_key(&app, &token, true).await;
        assert_eq!(created["key"], "********");
        assert_eq!(created["is_demo"], true);
        assert_eq!(created["is_active"], false);
        assert!(created["created_at"].as_str().unwrap().ends_with('Z'));
        let second = add_key(&app, &token, false).await;
        let list_text = app
            .call(Method::GET, "/api/api-keys/", &token, None)
            .await
            .text()
            .await
            .unwrap();
        assert!(
            !list_text.contains(SECRET) && !list_text.contains(KEY),
            "{list_text}"
        );
        let list: Value = serde_json::from_str(&list_text).unwrap();
        assert_eq!(list.as_array().unwrap().len(), 2);
        assert_eq!(list[0]["id"], second["id"], "newest first");

        for id in [&created["id"], &second["id"], &created["id"]] {
            let active = app
                .call_ok(
                    Method::POST,
                    &format!("/api/api-keys/{id}/set_active/"),
                    &token,
                    None,
                    StatusCode::OK,
                )
                .await;
            assert_eq!(active["is_active"], true);
            let list = app
                .call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
                .await;
            let actives: Vec<&Value> = list
                .as_array()
                .unwrap()
                .iter()
                .filter(|k| k["is_active"] == true)
                .collect();
            assert_eq!(actives.len(), 1, "exactly one active key");
            assert_eq!(actives[0]["id"], *id);
        }
        app.call_ok(
            Method::DELETE,
            &format!("/api/api-keys/{}/", second["id"]),
            &token,
            None,
            StatusCode::NO_CONTENT,
        )
        .await;
        let list = app
            .call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(list.as_array().unwrap().len(), 1);
    }
}

#[tokio::test]
async fn empty_fields_are_400_and_save_nothing() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    for body in [
        json!({"key": "", "secret": "s"}),
        json!({"key": "k", "secret": "  "}),
        json!({}),
    ] {
        let res = app
            .call(Method::POST, "/api/api-keys/", &token, Some(body))
            .await;
        let err = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert!(err["fields"].is_object());
    }
    let wrong_type = app
        .call(
            Method::POST,
            "/api/api-keys/",
            &token,
            Some(json!({"key": 1, "secret": "s", "is_demo": true})),
        )
        .await;
    assert_json_error(wrong_type, StatusCode::BAD_REQUEST).await;
    let list = app
        .call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
        .await;
    assert!(list.as_array().unwrap().is_empty());
}

#[tokio::test]
async fn another_users_key_is_404_for_every_method() {
    for app in TestApp::on_every_backend().await {
        let alice = app.user_with_token("alice").await;
        let bob = app.user_with_token("bob").await;
        let key = add_key(&app, &alice, true).await;
        let id = &key["id"];
        for (method, path) in [
            (Method::DELETE, format!("/api/api-keys/{id}/")),
            (Method::POST, format!("/api/api-keys/{id}/set_active/")),
        ] {
            assert_json_error(
                app.call(method, &path, &bob, None).await,
                StatusCode::NOT_FOUND,
            )
            .await;
        }
        let bobs = app
            .call_ok(Method::GET, "/api/api-keys/", &bob, None, StatusCode::OK)
            .await;
        assert!(bobs.as_array().unwrap().is_empty());
        let alices = app
            .call_ok(Method::GET, "/api/api-keys/", &alice, None, StatusCode::OK)
            .await;
        assert_eq!(
            alices[0]["is_active"], false,
            "bob's set_active changed nothing"
        );
    }
}

#[tokio::test]
async fn while_the_bot_runs_the_active_key_cannot_be_deleted_or_switched() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let active = add_key(&app, &token, true).await;
    let other = add_key(&app, &token, true).await;
    app.call_ok(
        Method::POST,
        &format!("/api/api-keys/{}/set_active/", active["id"]),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    app.call_ok(
        Method::POST,
        "/api/command/bot/start/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;

    let delete = app
        .call(
            Method::DELETE,
            &format!("/api/api-keys/{}/", active["id"]),
            &token,
            None,
        )
        .await;
    let body = assert_json_error(delete, StatusCode::CONFLICT).await;
    assert!(body["error"].as_str().unwrap().contains("Stop the bot"));
    let switch = app
        .call(
            Method::POST,
            &format!("/api/api-keys/{}/set_active/", other["id"]),
            &token,
            None,
        )
        .await;
    assert_json_error(switch, StatusCode::CONFLICT).await;
    // Inactive keys can still go.
    app.call_ok(
        Method::DELETE,
        &format!("/api/api-keys/{}/", other["id"]),
        &token,
        None,
        StatusCode::NO_CONTENT,
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
    app.call_ok(
        Method::DELETE,
        &format!("/api/api-keys/{}/", active["id"]),
        &token,
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
}

#[tokio::test]
async fn the_secret_is_not_in_the_sqlite_file() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    add_key(&app, &token, false).await;
    let path = app.db_url().trim_start_matches("sqlite://").to_string();
    let app_store = app.store().clone();
    app.server.stop().await.unwrap();
    app_store.close().await;
    let mut bytes = std::fs::read(&path).unwrap();
    if let Ok(wal) = std::fs::read(format!("{path}-wal")) {
        bytes.extend(wal);
    }
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("api_keys"), "this is the real database file");
    assert!(!text.contains(SECRET));
    assert!(!text.contains(KEY));
}
