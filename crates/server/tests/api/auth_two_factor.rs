//! Two-factor login (issue 31 point 1): set-up, enable with a code computed from the secret,
//! login with and without the code, a reused code refused, a recovery code once, disable,
//! the lockout, and `signaldesk user reset-2fa`.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use signaldesk_server::auth::totp;

use crate::helpers::{assert_json_error, TestApp, PASSWORD};

pub(crate) fn now_step() -> i64 {
    totp::step_at(chrono::Utc::now().timestamp())
}

pub(crate) fn code(secret: &str, step: i64) -> String {
    totp::code_at(secret, step).unwrap()
}

/// A six-digit code that is no code of `secret` from two steps back to two ahead.
pub(crate) fn wrong_code(secret: &str) -> String {
    let now = now_step();
    let taken: Vec<String> = (now - 2..=now + 2).map(|s| code(secret, s)).collect();
    (0..)
        .map(|n: u32| format!("{:06}", (n * 7919) % 1_000_000))
        .find(|c| !taken.contains(c))
        .unwrap()
}

async fn login(app: &TestApp, username: &str, otp: Option<&str>) -> reqwest::Response {
    let mut body = json!({"username": username, "password": PASSWORD});
    if let Some(otp) = otp {
        body["otp"] = json!(otp);
    }
    reqwest::Client::new()
        .post(app.url("/api/auth/login/"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// A 401 that asks for the code and sets no cookie nor gives a token.
async fn assert_otp_required(res: reqwest::Response) -> Value {
    assert!(
        res.headers().get("set-cookie").is_none(),
        "no session without the code"
    );
    let body = assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    assert_eq!(body["otp_required"], true, "{body}");
    assert!(body.get("token").is_none());
    body
}

/// Sets up 2FA for the token's user; the secret.
async fn set_up(app: &TestApp, token: &str) -> String {
    let setup = app
        .call_ok(
            Method::POST,
            "/api/auth/2fa/setup/",
            token,
            None,
            StatusCode::OK,
        )
        .await;
    setup["secret"].as_str().unwrap().to_string()
}

/// Sets up and turns on 2FA with the current step's code; the secret and recovery codes.
async fn turn_on(app: &TestApp, token: &str) -> (String, Vec<String>) {
    let secret = set_up(app, token).await;
    let on = app
        .call_ok(
            Method::POST,
            "/api/auth/2fa/enable/",
            token,
            Some(json!({"code": code(&secret, now_step())})),
            StatusCode::OK,
        )
        .await;
    let codes = on["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    (secret, codes)
}

async fn me(app: &TestApp, token: &str) -> Value {
    app.call_ok(Method::GET, "/api/auth/me/", token, None, StatusCode::OK)
        .await
}

async fn the_whole_flow(app: &TestApp) {
    let token = app.user_with_token("alice").await;
    assert_eq!(me(app, &token).await["two_factor_enabled"], false);

    // Enable before a set-up is a conflict.
    let early = app
        .call(
            Method::POST,
            "/api/auth/2fa/enable/",
            &token,
            Some(json!({"code": "123456"})),
        )
        .await;
    assert_json_error(early, StatusCode::CONFLICT).await;

    let setup = app
        .call_ok(
            Method::POST,
            "/api/auth/2fa/setup/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    let secret = setup["secret"].as_str().unwrap().to_string();
    assert_eq!(secret.len(), 32);
    let url = setup["otpauth_url"].as_str().unwrap();
    assert!(
        url.starts_with("otpauth://totp/Signal%20Desk:alice?"),
        "{url}"
    );
    assert!(url.contains(&format!("secret={secret}")), "{url}");
    // A set-up alone changes nothing at login.
    assert_eq!(me(app, &token).await["two_factor_enabled"], false);
    assert_eq!(login(app, "alice", None).await.status(), StatusCode::OK);

    // A wrong code does not turn it on (failure 1 of the minute's 5).
    let wrong = app
        .call(
            Method::POST,
            "/api/auth/2fa/enable/",
            &token,
            Some(json!({"code": wrong_code(&secret)})),
        )
        .await;
    let body = assert_json_error(wrong, StatusCode::BAD_REQUEST).await;
    assert!(body["fields"]["code"].is_array());
    assert_eq!(me(app, &token).await["two_factor_enabled"], false);

    let enabled_at = now_step();
    let on = app
        .call_ok(
            Method::POST,
            "/api/auth/2fa/enable/",
            &token,
            Some(json!({"code": code(&secret, enabled_at)})),
            StatusCode::OK,
        )
        .await;
    assert_eq!(on["two_factor_enabled"], true);
    let recovery: Vec<String> = on["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(recovery.len(), 10);
    let mut distinct = recovery.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 10);
    let now_on = me(app, &token).await;
    assert_eq!(now_on["two_factor_enabled"], true);
    assert_eq!(now_on["recovery_codes_left"], 10);

    // At rest: the secret is encrypted and the recovery codes are digests.
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(app.db_url())
        .await
        .unwrap();
    let stored: Vec<(String,)> = sqlx::query_as("SELECT secret_enc FROM user_totp")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].0.contains(&secret));
    let hashes: Vec<(String,)> = sqlx::query_as("SELECT code_hash FROM recovery_codes")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(hashes.len(), 10);
    for (hash,) in &hashes {
        for code in &recovery {
            assert!(!hash.contains(code.as_str()) && !hash.contains(&code.replace('-', "")));
        }
    }
    // Neither is ever answered again.
    let again = app
        .call(Method::POST, "/api/auth/2fa/setup/", &token, None)
        .await;
    let body = assert_json_error(again, StatusCode::CONFLICT).await;
    assert!(!body.to_string().contains(&secret));

    // The password alone no longer logs in; a wrong code neither (failure 2).
    assert_otp_required(login(app, "alice", None).await).await;
    assert_otp_required(login(app, "alice", Some(&wrong_code(&secret))).await).await;
    // The code the enable used is spent (failure 3).
    assert_otp_required(login(app, "alice", Some(&code(&secret, enabled_at))).await).await;
    // The next step's code is within the tolerance and logs in, once.
    let next = code(&secret, enabled_at + 1);
    let res = login(app, "alice", Some(&next)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["token"].as_str().unwrap().len(), 64);
    // Reused: refused (failure 4 of 5; a fifth would lock the pair out for the minute).
    assert_otp_required(login(app, "alice", Some(&next)).await).await;

    // A recovery code logs in once, typed in any case and grouping.
    let typed = recovery[0].to_uppercase().replace('-', " ");
    assert_eq!(
        login(app, "alice", Some(&typed)).await.status(),
        StatusCode::OK
    );
    assert_eq!(me(app, &token).await["recovery_codes_left"], 9);

    // Disable with another recovery code; the password alone logs in again.
    let off = app
        .call_ok(
            Method::POST,
            "/api/auth/2fa/disable/",
            &token,
            Some(json!({"code": recovery[1]})),
            StatusCode::OK,
        )
        .await;
    assert_eq!(off["two_factor_enabled"], false);
    let now_off = me(app, &token).await;
    assert_eq!(now_off["two_factor_enabled"], false);
    assert_eq!(now_off["recovery_codes_left"], 0);
    assert_eq!(login(app, "alice", None).await.status(), StatusCode::OK);
    let rows: Vec<(i64,)> = sqlx::query_as("SELECT COUNT(*) FROM recovery_codes")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows[0].0, 0, "the recovery codes are gone with 2FA");
    // Off again is a conflict.
    let twice = app
        .call(
            Method::POST,
            "/api/auth/2fa/disable/",
            &token,
            Some(json!({"code": recovery[2]})),
        )
        .await;
    assert_json_error(twice, StatusCode::CONFLICT).await;
}

#[tokio::test]
async fn two_factor_set_up_enable_login_recovery_and_disable_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        the_whole_flow(&app).await;
    }
}

async fn a_used_recovery_code_is_refused(app: &TestApp) {
    let token = app.user_with_token("bob").await;
    let (secret, recovery) = turn_on(app, &token).await;
    assert_eq!(
        login(app, "bob", Some(&recovery[3])).await.status(),
        StatusCode::OK
    );
    assert_otp_required(login(app, "bob", Some(&recovery[3])).await).await;
    // Nor does a spent one turn 2FA off; a current code does.
    let spent = app
        .call(
            Method::POST,
            "/api/auth/2fa/disable/",
            &token,
            Some(json!({"code": recovery[3]})),
        )
        .await;
    assert_json_error(spent, StatusCode::BAD_REQUEST).await;
    assert_eq!(me(app, &token).await["two_factor_enabled"], true);
    app.call_ok(
        Method::POST,
        "/api/auth/2fa/disable/",
        &token,
        Some(json!({"code": code(&secret, now_step() + 1)})),
        StatusCode::OK,
    )
    .await;
    assert_eq!(me(app, &token).await["two_factor_enabled"], false);
}

#[tokio::test]
async fn a_recovery_code_works_once_and_a_current_code_disables_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        a_used_recovery_code_is_refused(&app).await;
    }
}

#[tokio::test]
async fn wrong_codes_count_toward_the_login_lockout_and_missing_ones_do_not() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let (secret, _) = turn_on(&app, &token).await;
    // The first step of the two-step login costs nothing, however often.
    for _ in 0..8 {
        assert_otp_required(login(&app, "alice", None).await).await;
    }
    let wrong = wrong_code(&secret);
    for _ in 0..5 {
        assert_otp_required(login(&app, "alice", Some(&wrong)).await).await;
    }
    // Locked out: even the right code is refused, with Retry-After.
    let res = login(&app, "alice", Some(&code(&secret, now_step() + 1))).await;
    assert!(res.headers().get("retry-after").is_some());
    assert_json_error(res, StatusCode::TOO_MANY_REQUESTS).await;
}

#[tokio::test]
async fn the_token_endpoint_needs_the_code_too() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let (secret, _) = turn_on(&app, &token).await;
    let post = |otp: Option<String>| {
        let mut body = json!({"username": "alice", "password": PASSWORD});
        if let Some(otp) = otp {
            body["otp"] = json!(otp);
        }
        reqwest::Client::new()
            .post(app.url("/api/auth/token/"))
            .json(&body)
            .send()
    };
    assert_otp_required(post(None).await.unwrap()).await;
    let ok = post(Some(code(&secret, now_step() + 1))).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_new_set_up_replaces_an_unconfirmed_secret_and_bad_input_is_a_4xx() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let first = set_up(&app, &token).await;
    let second = set_up(&app, &token).await;
    assert_ne!(first, second);
    for body in [
        json!({"code": ""}),
        json!({"code": 123456}),
        json!({"code": "x".repeat(10_000)}),
        json!({}),
        json!([]),
    ] {
        let res = app
            .call(Method::POST, "/api/auth/2fa/enable/", &token, Some(body))
            .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
        assert_json_error(res, StatusCode::BAD_REQUEST).await;
    }
    // The first secret's code no longer turns it on; the second's does.
    let stale = app
        .call(
            Method::POST,
            "/api/auth/2fa/enable/",
            &token,
            Some(json!({"code": code(&first, now_step())})),
        )
        .await;
    assert_json_error(stale, StatusCode::BAD_REQUEST).await;
    app.call_ok(
        Method::POST,
        "/api/auth/2fa/enable/",
        &token,
        Some(json!({"code": code(&second, now_step())})),
        StatusCode::OK,
    )
    .await;
    // Without a credential, none of it answers.
    for path in [
        "/api/auth/2fa/setup/",
        "/api/auth/2fa/enable/",
        "/api/auth/2fa/disable/",
    ] {
        let res = reqwest::Client::new()
            .post(app.url(path))
            .json(&json!({"code": "123456"}))
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    }
}

#[tokio::test]
async fn user_reset_2fa_turns_it_off_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let made = crate::cli::create_user(dir.path(), "trader");
    assert!(made.status.success());
    {
        let url = format!("sqlite://{}/sd.db", dir.path().display());
        let store = signaldesk_store::Store::connect(&url).await.unwrap();
        let cipher = signaldesk_store::SecretCipher::load(None, dir.path()).unwrap();
        let user = store.user_by_username("trader").await.unwrap().unwrap();
        store
            .begin_totp_setup(&cipher, user.id, &totp::new_secret(), 0)
            .await
            .unwrap();
        assert!(store
            .enable_totp(user.id, &["digest".into()])
            .await
            .unwrap());
        assert!(store.totp_enabled(user.id).await.unwrap());
        store.close().await;
    }
    let reset = |username: &str| {
        crate::cli::signaldesk(dir.path())
            .args(["user", "reset-2fa", "--username", username])
            .output()
            .unwrap()
    };
    let out = reset("trader");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("turned off"));
    let url = format!("sqlite://{}/sd.db", dir.path().display());
    let store = signaldesk_store::Store::connect(&url).await.unwrap();
    let user = store.user_by_username("trader").await.unwrap().unwrap();
    assert!(!store.totp_enabled(user.id).await.unwrap());
    assert_eq!(store.recovery_codes_left(user.id).await.unwrap(), 0);
    store.close().await;
    let ghost = reset("ghost");
    assert!(!ghost.status.success());
    assert!(String::from_utf8_lossy(&ghost.stderr).contains("no user"));
}
