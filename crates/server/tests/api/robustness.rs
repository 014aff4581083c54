//! Bad input gets a clear 4xx JSON error: never a 500, never a crash.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{assert_json_error, TestApp};

#[tokio::test]
async fn malformed_json_wrong_types_and_wrong_content_type() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::new();
    let malformed = client
        .post(app.url("/api/auth/login/"))
        .header("content-type", "application/json")
        .body("{\"username\": ")
        .send()
        .await
        .unwrap();
    assert_json_error(malformed, StatusCode::BAD_REQUEST).await;

    let wrong_types = app
        .post_json(
            "/api/auth/login/",
            json!({"username": 12, "password": ["x"]}),
        )
        .await;
    assert_json_error(wrong_types, StatusCode::BAD_REQUEST).await;

    let not_object = app.post_json("/api/auth/login/", json!([1, 2, 3])).await;
    assert_json_error(not_object, StatusCode::BAD_REQUEST).await;

    let no_ctype = client
        .post(app.url("/api/auth/login/"))
        .body("username=a&password=b")
        .send()
        .await
        .unwrap();
    assert_json_error(no_ctype, StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
}

#[tokio::test]
async fn oversized_bodies_are_413() {
    let app = TestApp::spawn().await;
    let huge = "x".repeat(2 * 1024 * 1024);
    let res = app
        .post_json(
            "/api/auth/login/",
            json!({"username": huge, "password": "p"}),
        )
        .await;
    assert_json_error(res, StatusCode::PAYLOAD_TOO_LARGE).await;
}

#[tokio::test]
async fn unknown_routes_and_methods_are_json() {
    let app = TestApp::spawn().await;
    for path in [
        "/api/nope/",
        "/api/",
        "/api",
        "/ws/unknown/",
        "/api/auth/login",
    ] {
        let res = reqwest::get(app.url(path)).await.unwrap();
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }
    let wrong_method = reqwest::get(app.url("/api/auth/login/")).await.unwrap();
    assert_json_error(wrong_method, StatusCode::METHOD_NOT_ALLOWED).await;
    let delete = reqwest::Client::new()
        .delete(app.url("/api/auth/me/"))
        .send()
        .await
        .unwrap();
    assert_json_error(delete, StatusCode::METHOD_NOT_ALLOWED).await;
}

#[tokio::test]
async fn server_keeps_serving_after_bad_input() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::new();
    for body in [
        "\u{0}\u{1}",
        "{{{{",
        "null",
        "\"str\"",
        "{\"username\":null}",
    ] {
        let res = client
            .post(app.url("/api/auth/login/"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert!(res.status().is_client_error(), "{body}: {}", res.status());
    }
    let health = reqwest::get(app.url("/healthz")).await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
}
