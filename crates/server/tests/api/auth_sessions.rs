//! Sessions (issue 31 point 3): the list, revoking one (its token is refused at once),
//! revoking the others, and the password change that revokes them too.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_json_error, TestApp, PASSWORD};

/// Logs in with a user agent of its own; the token.
async fn login_as(app: &TestApp, username: &str, password: &str, agent: &str) -> String {
    let res = reqwest::Client::new()
        .post(app.url("/api/auth/login/"))
        .header("User-Agent", agent)
        .json(&json!({"username": username, "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    res.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn sessions(app: &TestApp, token: &str) -> Vec<Value> {
    app.call_ok(
        Method::GET,
        "/api/auth/sessions/",
        token,
        None,
        StatusCode::OK,
    )
    .await
    .as_array()
    .unwrap()
    .clone()
}

async fn me_status(app: &TestApp, token: &str) -> StatusCode {
    app.with_token(Method::GET, "/api/auth/me/", token)
        .await
        .status()
}

async fn list_and_revoke(app: &TestApp) {
    app.create_user("alice").await;
    app.create_user("bob").await;
    let a = login_as(app, "alice", PASSWORD, "Laptop/1.0").await;
    let b = login_as(app, "alice", PASSWORD, "Phone/2.0").await;
    let bob = login_as(app, "bob", PASSWORD, "Bob/1.0").await;

    let list = sessions(app, &a).await;
    assert_eq!(list.len(), 2, "only alice's own: {list:?}");
    let current: Vec<&Value> = list.iter().filter(|s| s["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["user_agent"], "Laptop/1.0");
    let other = list.iter().find(|s| s["current"] == false).unwrap();
    assert_eq!(other["user_agent"], "Phone/2.0");
    for s in &list {
        assert_eq!(s["address"], "127.0.0.1");
        assert_eq!(s["browser"], true);
        for field in ["created_at", "last_seen_at"] {
            let at = s[field].as_str().unwrap();
            assert!(chrono::DateTime::parse_from_rfc3339(at).is_ok(), "{at}");
        }
        let text = s.to_string();
        assert!(
            !text.contains(&a) && !text.contains(&b),
            "no token in {text}"
        );
    }
    let other_id = other["id"].as_i64().unwrap();

    // Bob cannot see or end alice's sessions: 404, and hers still works.
    let bobs = sessions(app, &bob).await;
    assert_eq!(bobs.len(), 1);
    let res = app
        .call(
            Method::DELETE,
            &format!("/api/auth/sessions/{other_id}/"),
            &bob,
            None,
        )
        .await;
    assert_json_error(res, StatusCode::NOT_FOUND).await;
    assert_eq!(me_status(app, &b).await, StatusCode::OK);

    // Alice revokes the phone: its token answers 401 at once.
    let res = app
        .call(
            Method::DELETE,
            &format!("/api/auth/sessions/{other_id}/"),
            &a,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(me_status(app, &b).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(app, &a).await, StatusCode::OK);
    assert_eq!(sessions(app, &a).await.len(), 1);
    // Again, or a malformed id: 404.
    for path in [
        format!("/api/auth/sessions/{other_id}/"),
        "/api/auth/sessions/not-a-number/".to_string(),
        "/api/auth/sessions/99999999/".to_string(),
    ] {
        let res = app.call(Method::DELETE, &path, &a, None).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }

    // Revoke the others: two more logins end, this one and bob's stay.
    let c = login_as(app, "alice", PASSWORD, "Tablet/3.0").await;
    let d = login_as(app, "alice", PASSWORD, "Script/4.0").await;
    let done = app
        .call_ok(
            Method::POST,
            "/api/auth/sessions/revoke-others/",
            &a,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(done["revoked"], 2);
    assert_eq!(me_status(app, &c).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(app, &d).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(app, &a).await, StatusCode::OK);
    assert_eq!(me_status(app, &bob).await, StatusCode::OK);

    // Revoking the current session is a logout.
    let mine = sessions(app, &a).await[0]["id"].as_i64().unwrap();
    let res = app
        .call(
            Method::DELETE,
            &format!("/api/auth/sessions/{mine}/"),
            &a,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(me_status(app, &a).await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn sessions_are_listed_and_revoked_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        list_and_revoke(&app).await;
    }
}

/// A browser's session cookie is refused at once too, and revoking needs the CSRF header.
#[tokio::test]
async fn a_revoked_browser_session_is_refused_at_once() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let browser = app.browser_login("alice").await;
    let token = app.login("alice").await;
    let plain = reqwest::Client::new();
    let me = || {
        let req = plain
            .get(app.url("/api/auth/me/"))
            .header("Cookie", &browser.cookie);
        async move { req.send().await.unwrap().status() }
    };
    assert_eq!(me().await, StatusCode::OK);
    // The browser revokes the others without CSRF: refused; with it: the token ends.
    let res = plain
        .post(app.url("/api/auth/sessions/revoke-others/"))
        .header("Cookie", &browser.cookie)
        .send()
        .await
        .unwrap();
    assert_json_error(res, StatusCode::FORBIDDEN).await;
    assert_eq!(me_status(&app, &token).await, StatusCode::OK);
    let res = plain
        .post(app.url("/api/auth/sessions/revoke-others/"))
        .header("Cookie", &browser.cookie)
        .header("X-CSRFToken", &browser.csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(me_status(&app, &token).await, StatusCode::UNAUTHORIZED);
    // From a new login, the browser's session is revoked: its cookie is refused at once.
    let fresh = app.login("alice").await;
    let browser_id = sessions(&app, &fresh)
        .await
        .into_iter()
        .find(|s| s["current"] == false)
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let res = app
        .call(
            Method::DELETE,
            &format!("/api/auth/sessions/{browser_id}/"),
            &fresh,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(me().await, StatusCode::UNAUTHORIZED);
}

async fn password_change(app: &TestApp) {
    app.create_user("alice").await;
    let a = login_as(app, "alice", PASSWORD, "Laptop/1.0").await;
    let b = login_as(app, "alice", PASSWORD, "Phone/2.0").await;
    let change = |body: Value| app.call(Method::POST, "/api/auth/password/", &a, Some(body));

    let wrong =
        change(json!({"current_password": "not-it-at-all", "new_password": "brand-new-pass"}))
            .await;
    let body = assert_json_error(wrong, StatusCode::BAD_REQUEST).await;
    assert!(body["fields"]["current_password"].is_array());
    let short = change(json!({"current_password": PASSWORD, "new_password": "short"})).await;
    let body = assert_json_error(short, StatusCode::BAD_REQUEST).await;
    assert!(body["fields"]["new_password"].is_array());
    let missing = change(json!({})).await;
    let body = assert_json_error(missing, StatusCode::BAD_REQUEST).await;
    assert!(body["fields"]["current_password"].is_array());
    // Nothing changed so far.
    assert_eq!(me_status(app, &b).await, StatusCode::OK);

    let done = app
        .call_ok(
            Method::POST,
            "/api/auth/password/",
            &a,
            Some(json!({"current_password": PASSWORD, "new_password": "brand-new-pass"})),
            StatusCode::OK,
        )
        .await;
    assert_eq!(done["revoked"], 1);
    assert_eq!(me_status(app, &b).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(app, &a).await, StatusCode::OK);
    let old = app
        .post_json(
            "/api/auth/login/",
            json!({"username": "alice", "password": PASSWORD}),
        )
        .await;
    assert_json_error(old, StatusCode::UNAUTHORIZED).await;
    login_as(app, "alice", "brand-new-pass", "Laptop/1.0").await;
}

#[tokio::test]
async fn a_password_change_needs_the_current_password_and_revokes_the_others_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        password_change(&app).await;
    }
}
