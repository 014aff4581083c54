use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use signaldesk_server::auth::secrets;
use signaldesk_store::repo::sessions::Credential;
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{assert_json_error, TestApp, PASSWORD};

async fn login_flow(app: &TestApp) {
    app.create_user("alice").await;
    let res = app
        .post_json(
            "/api/auth/login/",
            json!({"username": "alice", "password": PASSWORD}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookies: Vec<String> = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert!(cookies
        .iter()
        .any(|c| c.starts_with("sessionid=") && c.contains("HttpOnly")));
    assert!(cookies
        .iter()
        .any(|c| c.starts_with("csrftoken=") && !c.contains("HttpOnly")));
    let body: Value = res.json().await.unwrap();
    let token = body["token"].as_str().unwrap();
    assert_eq!(token.len(), 64);
    assert_eq!(body["user"]["username"], "alice");
    assert!(body["user"]["id"].as_i64().is_some());
    assert!(body["user"].get("password_hash").is_none());

    let me = app.with_token(Method::GET, "/api/auth/me/", token).await;
    assert_eq!(me.status(), StatusCode::OK);
    let me: Value = me.json().await.unwrap();
    assert_eq!(me["username"], "alice");
}

#[tokio::test]
async fn login_returns_token_user_and_cookies_on_sqlite_and_postgres() {
    login_flow(&TestApp::spawn().await).await;
    if let Some(db) = TestDatabase::postgres().await {
        login_flow(&TestApp::spawn_with(db, |_| {}).await).await;
    }
}

#[tokio::test]
async fn wrong_password_and_unknown_user_answer_the_same_401() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let wrong = app
        .post_json(
            "/api/auth/login/",
            json!({"username": "alice", "password": "nope-nope"}),
        )
        .await;
    let a = assert_json_error(wrong, StatusCode::UNAUTHORIZED).await;
    let unknown = app
        .post_json(
            "/api/auth/login/",
            json!({"username": "mallory", "password": "nope-nope"}),
        )
        .await;
    let b = assert_json_error(unknown, StatusCode::UNAUTHORIZED).await;
    assert_eq!(
        a, b,
        "the answer must not reveal whether the username exists"
    );
}

#[tokio::test]
async fn missing_fields_are_a_400_with_fields() {
    let app = TestApp::spawn().await;
    let res = app
        .post_json("/api/auth/login/", json!({"username": ""}))
        .await;
    let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    assert!(body["fields"]["username"].is_array());
    assert!(body["fields"]["password"].is_array());
}

#[tokio::test]
async fn cookie_session_needs_csrf_header_for_writes() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let browser = app.browser_login("alice").await;
    let plain = reqwest::Client::new();
    let me = |cookie: String| {
        let req = plain.get(app.url("/api/auth/me/")).header("Cookie", cookie);
        async move { req.send().await.unwrap().status() }
    };
    assert_eq!(me(browser.cookie.clone()).await, StatusCode::OK);

    // A write without X-CSRFToken, or with a wrong one, is refused and changes nothing.
    for csrf in [None, Some("not-the-cookie")] {
        let mut req = plain
            .post(app.url("/api/auth/logout/"))
            .header("Cookie", &browser.cookie);
        if let Some(value) = csrf {
            req = req.header("X-CSRFToken", value);
        }
        let body = assert_json_error(req.send().await.unwrap(), StatusCode::FORBIDDEN).await;
        assert_eq!(body["error"], "CSRF token missing or incorrect");
        assert_eq!(
            me(browser.cookie.clone()).await,
            StatusCode::OK,
            "refused write logged out"
        );
    }

    // With the header copied from the cookie, the write goes through.
    let ok = plain
        .post(app.url("/api/auth/logout/"))
        .header("Cookie", &browser.cookie)
        .header("X-CSRFToken", &browser.csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(me(browser.cookie.clone()).await, StatusCode::UNAUTHORIZED);
}

/// Issue 16 point 5: the CSRF value is bound to the session. A planted `csrftoken=attacker`
/// cookie echoed in `X-CSRFToken` was accepted; so was another session's pair.
#[tokio::test]
async fn a_csrf_value_not_of_this_session_is_refused() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    app.create_user("mallory").await;
    let alice = app.browser_login("alice").await;
    let alice_again = app.browser_login("alice").await;
    let mallory = app.browser_login("mallory").await;
    assert_ne!(alice.csrf, alice_again.csrf);
    let session_only = alice
        .cookie
        .split("; ")
        .filter(|c| !c.starts_with("csrftoken="))
        .collect::<Vec<_>>()
        .join("; ");
    let plain = reqwest::Client::new();
    let me = || {
        let req = plain
            .get(app.url("/api/auth/me/"))
            .header("Cookie", &alice.cookie);
        async move { req.send().await.unwrap().status() }
    };
    for (cookie_csrf, header) in [
        ("attacker", "attacker"),
        (mallory.csrf.as_str(), mallory.csrf.as_str()),
        (alice_again.csrf.as_str(), alice_again.csrf.as_str()),
    ] {
        let res = plain
            .post(app.url("/api/auth/logout/"))
            .header("Cookie", format!("{session_only}; csrftoken={cookie_csrf}"))
            .header("X-CSRFToken", header)
            .send()
            .await
            .unwrap();
        let body = assert_json_error(res, StatusCode::FORBIDDEN).await;
        assert_eq!(body["error"], "CSRF token missing or incorrect");
        assert_eq!(me().await, StatusCode::OK, "refused write logged out");
    }
    // This session's own value goes through, whatever the csrftoken cookie says.
    let ok = plain
        .post(app.url("/api/auth/logout/"))
        .header("Cookie", format!("{session_only}; csrftoken=attacker"))
        .header("X-CSRFToken", &alice.csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(me().await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn token_requests_need_no_csrf_and_logout_revokes_the_token() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let token = app.login("alice").await;
    let out = app
        .with_token(Method::POST, "/api/auth/logout/", &token)
        .await;
    assert_eq!(out.status(), StatusCode::OK);
    let me = app.with_token(Method::GET, "/api/auth/me/", &token).await;
    assert_json_error(me, StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn bad_tokens_are_401_json() {
    let app = TestApp::spawn().await;
    for header in ["Token not-a-real-token", "Bearer abc", "Token ", "garbage"] {
        let res = reqwest::Client::new()
            .get(app.url("/api/auth/me/"))
            .header("Authorization", header)
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    }
    let none = reqwest::get(app.url("/api/auth/me/")).await.unwrap();
    assert_json_error(none, StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn tokens_expire_after_the_idle_period() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let token = app.login("alice").await;
    let (session, _) = app
        .store()
        .session_by_credential(Credential::TokenHash(&secrets::digest(&token)))
        .await
        .unwrap()
        .unwrap();
    // Pretend the token was last used 31 days ago.
    let long_ago = chrono::Utc::now().timestamp_millis() - 31 * 24 * 3600 * 1000;
    app.store()
        .touch_session(session.id, long_ago)
        .await
        .unwrap();
    let me = app.with_token(Method::GET, "/api/auth/me/", &token).await;
    assert_json_error(me, StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn failed_logins_are_rate_limited_with_retry_after() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    for _ in 0..5 {
        let res = app
            .post_json(
                "/api/auth/login/",
                json!({"username": "alice", "password": "wrong-wrong"}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    // Even the right password is refused while limited.
    let res = app
        .post_json(
            "/api/auth/login/",
            json!({"username": "alice", "password": PASSWORD}),
        )
        .await;
    assert!(res.headers().get("retry-after").is_some());
    assert_json_error(res, StatusCode::TOO_MANY_REQUESTS).await;
}

async fn login_from(app: &TestApp, address: &str, password: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(app.url("/api/auth/login/"))
        .header("X-Forwarded-For", address)
        .json(&json!({"username": "alice", "password": password}))
        .send()
        .await
        .unwrap()
}

/// A server behind a trusted proxy at 127.0.0.1, so tests choose the client address with
/// `X-Forwarded-For`.
async fn behind_a_proxy() -> TestApp {
    let app = TestApp::spawn_with(TestDatabase::sqlite(), |c| {
        c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    app.create_user("alice").await;
    app
}

/// The `Retry-After` of a 429 with the JSON error body.
async fn retry_after(res: reqwest::Response) -> u64 {
    let secs = res
        .headers()
        .get("retry-after")
        .expect("Retry-After")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_json_error(res, StatusCode::TOO_MANY_REQUESTS).await;
    secs
}

/// Issue 16 point 4: 5 wrong passwords locked the username from every address. Failures are
/// now limited per (username, client address).
#[tokio::test]
async fn failed_logins_lock_the_user_out_only_from_that_address() {
    let app = behind_a_proxy().await;
    for _ in 0..5 {
        let res = login_from(&app, "203.0.113.66", "wrong-wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let res = login_from(&app, "203.0.113.66", PASSWORD).await;
    assert!(retry_after(res).await >= 1);
    // Alice elsewhere is not locked out by the attacker's failures.
    let res = login_from(&app, "198.51.100.7", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK);
    // Nor is she once more failures come from the attacker's address.
    let res = login_from(&app, "203.0.113.66", "wrong-wrong").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let res = login_from(&app, "198.51.100.7", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK);
}

/// One address trying many usernames is slowed too (4 x the pair limit a minute), without
/// touching other addresses.
#[tokio::test]
async fn an_address_trying_many_usernames_is_slowed() {
    let app = behind_a_proxy().await;
    lock_out_address(&[&app], "192.0.2.1", 4).await;
    let res = login_from(&app, "192.0.2.1", PASSWORD).await;
    assert!(retry_after(res).await >= 1);
    let res = login_from(&app, "192.0.2.2", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK);
}

/// Wrong passwords from `address` under new usernames, on `apps` in turn, until the address
/// is locked out for at least `secs`: its quota (`ADDRESS_LOGIN_FACTOR` x 5 a minute) is
/// used up first, every attempt until then a 401, and each failure after a lockout ends
/// doubles the next (1 s, 2 s, 4 s). Asking for a few seconds keeps the lockout in force
/// for the checks that follow on a loaded machine, where slow password hashing lets the
/// quota refill a cell every 3 s and a 1 s lockout can end before the next request.
pub(crate) async fn lock_out_address(apps: &[&TestApp], address: &str, secs: u64) {
    let quota = 5 * signaldesk_server::rate_limit::ADDRESS_LOGIN_FACTOR as usize;
    let mut failures = 0;
    for i in 0..200 {
        let res = reqwest::Client::new()
            .post(apps[i % apps.len()].url("/api/auth/login/"))
            .header("X-Forwarded-For", address)
            .json(&json!({"username": format!("guess{i}"), "password": "wrong-wrong"}))
            .send()
            .await
            .unwrap();
        if res.status() == StatusCode::UNAUTHORIZED {
            failures += 1;
            continue;
        }
        assert!(failures >= quota, "locked out after {failures} failures");
        let wait = retry_after(res).await;
        if wait >= secs {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
    }
    panic!("{address} was never locked out for {secs} s");
}

/// After the per-minute failures, each further failure from the same address doubles the
/// wait (1 s, 2 s, 4 s … 60 s); attempts while locked out count nothing; a success starts
/// the delays over. (About 3 s of real waiting: the delays are the real ones.)
#[tokio::test]
async fn failed_logins_wait_longer_each_time_and_a_success_starts_over() {
    let app = behind_a_proxy().await;
    let here = "203.0.113.8";
    for _ in 0..5 {
        let res = login_from(&app, here, "wrong-wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let first = retry_after(login_from(&app, here, "wrong-wrong").await).await;
    assert_eq!(first, 1);
    // Refused attempts do not make it longer.
    assert_eq!(retry_after(login_from(&app, here, PASSWORD).await).await, 1);
    tokio::time::sleep(std::time::Duration::from_secs(first)).await;
    let res = login_from(&app, here, "wrong-wrong").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let second = retry_after(login_from(&app, here, PASSWORD).await).await;
    assert_eq!(second, 2, "the second lockout doubles the first");
    tokio::time::sleep(std::time::Duration::from_secs(second)).await;
    let res = login_from(&app, here, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK);
    // The next failure is back to the first delay, not 4 s.
    let res = login_from(&app, here, "wrong-wrong").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(retry_after(login_from(&app, here, PASSWORD).await).await, 1);
}

/// Without trusted proxies the header is ignored: a client cannot escape its limit by
/// claiming other addresses.
#[tokio::test]
async fn x_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy() {
    let direct = TestApp::spawn().await;
    direct.create_user("alice").await;
    for i in 0..5 {
        let res = login_from(&direct, &format!("203.0.113.{i}"), "wrong-wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let res = login_from(&direct, "198.51.100.7", PASSWORD).await;
    assert!(retry_after(res).await >= 1);
    // Listing another proxy does not make the header believed from this peer either.
    let elsewhere = TestApp::spawn_with(TestDatabase::sqlite(), |c| {
        c.trusted_proxies = vec!["10.9.9.9".parse().unwrap()];
    })
    .await;
    elsewhere.create_user("alice").await;
    for i in 0..5 {
        let res = login_from(&elsewhere, &format!("203.0.113.{i}"), "wrong-wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let res = login_from(&elsewhere, "198.51.100.7", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn register_is_403_when_off_and_works_when_on() {
    let off = TestApp::spawn().await;
    let res = off
        .post_json(
            "/api/auth/register/",
            json!({"username": "zed", "password": "long-enough-1"}),
        )
        .await;
    assert_json_error(res, StatusCode::FORBIDDEN).await;
    assert!(off.store().user_by_username("zed").await.unwrap().is_none());

    let on = TestApp::spawn_with(TestDatabase::sqlite(), |c| c.allow_registration = true).await;
    let res = on
        .post_json(
            "/api/auth/register/",
            json!({"username": "zed", "password": "long-enough-1"}),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["user"]["username"], "zed");
    let again = on
        .post_json(
            "/api/auth/register/",
            json!({"username": "zed", "password": "long-enough-1"}),
        )
        .await;
    assert_json_error(again, StatusCode::CONFLICT).await;
    let short = on
        .post_json(
            "/api/auth/register/",
            json!({"username": "amy", "password": "short"}),
        )
        .await;
    let body = assert_json_error(short, StatusCode::BAD_REQUEST).await;
    assert!(body["fields"]["password"].is_array());
}

#[tokio::test]
async fn check_and_token_endpoints() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let anon: Value = reqwest::get(app.url("/api/auth/check/"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(anon, json!({"authenticated": false, "user": null}));

    let res = reqwest::Client::new()
        .post(app.url("/api/auth/token/"))
        .json(&json!({"username": "alice", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers().get("set-cookie").is_none(),
        "a script token sets no cookie"
    );
    let token = res.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let checked: Value = app
        .with_token(Method::GET, "/api/auth/check/", &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(checked["authenticated"], true);
    assert_eq!(checked["user"]["username"], "alice");
}
