//! `/api/notification-channels/` and `/api/alerts/` (docs/alerts.md): create, list, change,
//! delete and test on both databases; secrets never answered after creation; bad input a 4xx
//! JSON error that changes nothing; the test message signed like every webhook delivery.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use hmac::{Hmac, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::helpers::{assert_json_error, TestApp};

const DISCORD_TOKEN: &str = "DISCORD-TOKEN-s3cr3t-abcdef";
const WEBHOOK_SECRET: &str = "webhook-signing-secret-123456";

fn discord_url() -> String {
    format!("https://discord.com/api/webhooks/123456/{DISCORD_TOKEN}")
}

async fn channels(app: &TestApp, token: &str) -> (Value, String) {
    let text = app
        .call(Method::GET, "/api/notification-channels/", token, None)
        .await
        .text()
        .await
        .unwrap();
    (serde_json::from_str(&text).unwrap(), text)
}

#[tokio::test]
async fn channels_are_created_listed_changed_and_deleted_without_ever_showing_a_secret() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let discord = app
            .call_ok(
                Method::POST,
                "/api/notification-channels/",
                &token,
                Some(json!({"kind": "discord", "url": discord_url()})),
                StatusCode::CREATED,
            )
            .await;
        assert_eq!(discord["kind"], "discord");
        assert_eq!(discord["target"], "https://discord.com/********");
        assert_eq!(
            discord["events"].as_array().unwrap().len(),
            5,
            "all by default"
        );
        assert_eq!(discord["failures"], 0);

        let given = app
            .call_ok(
                Method::POST,
                "/api/notification-channels/",
                &token,
                Some(
                    json!({"kind": "webhook", "url": "https://hooks.example.com/in/TOKEN-PATH",
                            "secret": WEBHOOK_SECRET, "events": ["alert_raised", "alert_cleared"]}),
                ),
                StatusCode::CREATED,
            )
            .await;
        assert_eq!(given["has_secret"], true);
        assert!(
            given.get("secret").is_none(),
            "a given secret is not echoed"
        );
        assert_eq!(given["target"], "https://hooks.example.com/********");
        assert_eq!(given["events"], json!(["alert_raised", "alert_cleared"]));

        let made = app
            .call_ok(
                Method::POST,
                "/api/notification-channels/",
                &token,
                Some(json!({"kind": "webhook", "url": "http://127.0.0.1:9/hook"})),
                StatusCode::CREATED,
            )
            .await;
        let made_secret = made["secret"].as_str().unwrap().to_string();
        assert_eq!(made_secret.len(), 64, "a server-made secret, shown once");

        let (list, text) = channels(&app, &token).await;
        assert_eq!(list.as_array().unwrap().len(), 3);
        for secret in [
            DISCORD_TOKEN,
            WEBHOOK_SECRET,
            made_secret.as_str(),
            "TOKEN-PATH",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(list
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c.get("secret").is_none()));

        // A change keeps what it does not name (the URL and secret it cannot see).
        let id = given["id"].as_i64().unwrap();
        let changed = app
            .call_ok(
                Method::PUT,
                &format!("/api/notification-channels/{id}/"),
                &token,
                Some(json!({"events": ["trade_opened"]})),
                StatusCode::OK,
            )
            .await;
        assert_eq!(changed["events"], json!(["trade_opened"]));
        assert_eq!(changed["has_secret"], true);
        let res = app
            .call(
                Method::PUT,
                &format!("/api/notification-channels/{id}/"),
                &token,
                Some(json!({"kind": "discord"})),
            )
            .await;
        let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert!(body["fields"]["kind"].is_array(), "{body}");

        // Another user sees none of them and reaches none of them.
        let bob = app.user_with_token("bob").await;
        assert_eq!(channels(&app, &bob).await.0, json!([]));
        for (method, path) in [
            (Method::PUT, format!("/api/notification-channels/{id}/")),
            (Method::DELETE, format!("/api/notification-channels/{id}/")),
            (
                Method::POST,
                format!("/api/notification-channels/{id}/test/"),
            ),
        ] {
            let res = app.call(method, &path, &bob, Some(json!({}))).await;
            assert_json_error(res, StatusCode::NOT_FOUND).await;
        }

        app.call_ok(
            Method::DELETE,
            &format!("/api/notification-channels/{id}/"),
            &token,
            None,
            StatusCode::NO_CONTENT,
        )
        .await;
        assert_eq!(channels(&app, &token).await.0.as_array().unwrap().len(), 2);
        let res = app
            .call(
                Method::DELETE,
                &format!("/api/notification-channels/{id}/"),
                &token,
                None,
            )
            .await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }
}

#[tokio::test]
async fn bad_input_is_a_400_with_fields_and_creates_nothing() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let cases = [
            (json!({}), "kind"),
            (json!({"kind": "pigeon"}), "kind"),
            (json!({"kind": "discord"}), "url"),
            (
                json!({"kind": "discord", "url": "http://discord.com/api/webhooks/1/x"}),
                "url",
            ),
            (
                json!({"kind": "discord", "url": "https://evil.example.com/api/webhooks/1/x"}),
                "url",
            ),
            (
                json!({"kind": "webhook", "url": "ftp://example.com/x"}),
                "url",
            ),
            (json!({"kind": "webhook", "url": "not a url"}), "url"),
            (
                json!({"kind": "webhook", "url": "https://example.com/x", "secret": "short"}),
                "secret",
            ),
            (
                json!({"kind": "webhook", "url": "https://example.com/x", "events": ["nope"]}),
                "events",
            ),
            (
                json!({"kind": "webhook", "url": "https://example.com/x", "events": []}),
                "events",
            ),
            (
                json!({"kind": "webhook", "url": "https://example.com/x", "address": "a@b.co"}),
                "address",
            ),
            (
                json!({"kind": "email", "address": "not-an-address"}),
                "address",
            ),
            // No [smtp] host in the test config: e-mail cannot be delivered.
            (
                json!({"kind": "email", "address": "trader@example.com"}),
                "address",
            ),
            // No chat id given and none in the settings.
            (json!({"kind": "telegram"}), "address"),
            (json!({"kind": "telegram", "address": "12ab"}), "address"),
            (json!({"kind": "discord", "url": "x".repeat(3000)}), "url"),
        ];
        for (body, field) in cases {
            let res = app
                .call(
                    Method::POST,
                    "/api/notification-channels/",
                    &token,
                    Some(body.clone()),
                )
                .await;
            let answer = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            assert!(answer["fields"][field].is_array(), "{body} -> {answer}");
        }
        for body in [
            json!({"kind": "webhook", "url": "https://example.com/x", "colour": "red"}),
            json!({"kind": 7}),
            json!({"kind": "webhook", "url": "https://example.com/x", "events": "alert_raised"}),
            json!([1, 2]),
        ] {
            let res = app
                .call(
                    Method::POST,
                    "/api/notification-channels/",
                    &token,
                    Some(body),
                )
                .await;
            assert!(res.status().is_client_error(), "{}", res.status());
            assert_json_error(res, StatusCode::BAD_REQUEST).await;
        }
        let res = app
            .client
            .post(app.url("/api/notification-channels/"))
            .header("Authorization", format!("Token {token}"))
            .header("Content-Type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::BAD_REQUEST).await;
        for path in [
            "/api/notification-channels/abc/",
            "/api/notification-channels/99999999/test/",
        ] {
            let res = app.call(Method::POST, path, &token, None).await;
            assert!(res.status().is_client_error(), "{path}: {}", res.status());
        }
        // A client with no session cookie.
        let res = reqwest::Client::new()
            .get(app.url("/api/notification-channels/"))
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
        assert_eq!(
            channels(&app, &token).await.0,
            json!([]),
            "nothing was created"
        );

        // With a chat id in the settings, a Telegram channel takes it.
        let settings = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        let id = settings[0]["id"].as_i64().unwrap();
        app.call_ok(
            Method::PUT,
            &format!("/api/bot-settings/{id}/"),
            &token,
            Some(json!({"telegram_id": "424242"})),
            StatusCode::OK,
        )
        .await;
        let telegram = app
            .call_ok(
                Method::POST,
                "/api/notification-channels/",
                &token,
                Some(json!({"kind": "telegram"})),
                StatusCode::CREATED,
            )
            .await;
        assert_eq!(telegram["target"], "424242");
        // No bot token on this server: the test says why instead of failing silently.
        let tested = app
            .call_ok(
                Method::POST,
                &format!("/api/notification-channels/{}/test/", telegram["id"]),
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(tested["delivered"], false);
        assert!(
            tested["error"].as_str().unwrap().contains("bot token"),
            "{tested}"
        );
    }
}

#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<(Value, bool)>>>);

async fn receive(State(got): State<Received>, headers: HeaderMap, raw: Bytes) -> &'static str {
    let mut mac = Hmac::<Sha256>::new_from_slice(WEBHOOK_SECRET.as_bytes()).unwrap();
    mac.update(&raw);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    let signed = headers
        .get("x-signaldesk-signature")
        .and_then(|v| v.to_str().ok())
        == Some(expected.as_str());
    got.0
        .lock()
        .unwrap()
        .push((serde_json::from_slice(&raw).unwrap_or(Value::Null), signed));
    "ok"
}

#[tokio::test]
async fn the_test_button_delivers_a_signed_message_and_a_failure_is_shown_on_the_channel() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let got = Received::default();
    let receiver = axum::Router::new()
        .fallback(axum::routing::post(receive))
        .with_state(got.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let server = tokio::spawn(axum::serve(listener, receiver).into_future());

    let channel = app
        .call_ok(
            Method::POST,
            "/api/notification-channels/",
            &token,
            Some(json!({"kind": "webhook", "url": url, "secret": WEBHOOK_SECRET})),
            StatusCode::CREATED,
        )
        .await;
    let test_path = format!("/api/notification-channels/{}/test/", channel["id"]);
    let tested = app
        .call_ok(Method::POST, &test_path, &token, None, StatusCode::OK)
        .await;
    assert_eq!(tested, json!({"delivered": true, "error": null}));
    let received = got.0.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    assert!(received[0].1, "the signature verified");
    assert_eq!(received[0].0["event"], "test");

    // The receiver goes away: the test says so and the list shows the failure.
    server.abort();
    let _ = server.await;
    let tested = app
        .call_ok(Method::POST, &test_path, &token, None, StatusCode::OK)
        .await;
    assert_eq!(tested["delivered"], false);
    let (list, _) = channels(&app, &token).await;
    assert_eq!(list[0]["failures"], 1);
    assert!(list[0]["last_error"].is_string());
    assert!(list[0]["last_failure_at"].is_string());
    assert!(list[0]["last_success_at"].is_string());
    assert!(
        !list[0]["last_error"].as_str().unwrap().contains("/hook"),
        "no URL in errors"
    );
}

#[tokio::test]
async fn alerts_are_listed_raised_first_then_recent() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        assert_eq!(
            app.call_ok(Method::GET, "/api/alerts/", &token, None, StatusCode::OK)
                .await,
            json!([])
        );
        let user = app
            .store()
            .user_by_username("alice")
            .await
            .unwrap()
            .unwrap()
            .id;
        let store = app.store();
        store
            .raise_alert(user, "lease_lost", "Lost.", "Stopped here.", 1_000)
            .await
            .unwrap();
        store.clear_alert(user, "lease_lost", 2_000).await.unwrap();
        store
            .raise_alert(
                user,
                "market_feed_stale",
                "No price for BTCUSDT.",
                "Waits.",
                3_000,
            )
            .await
            .unwrap();
        let alerts = app
            .call_ok(Method::GET, "/api/alerts/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(alerts[0]["kind"], "market_feed_stale");
        assert_eq!(alerts[0]["title"], "Market feed stale");
        assert_eq!(alerts[0]["active"], true);
        assert_eq!(alerts[0]["cleared_at"], Value::Null);
        assert_eq!(alerts[0]["raised_at"], "1970-01-01T00:00:03Z");
        assert_eq!(alerts[1]["active"], false);
        assert_eq!(alerts[1]["cleared_at"], "1970-01-01T00:00:02Z");
        let bob = app.user_with_token("bob").await;
        assert_eq!(
            app.call_ok(Method::GET, "/api/alerts/", &bob, None, StatusCode::OK)
                .await,
            json!([])
        );
    }
}
