//! The audit log (issue 31 point 2): every listed action writes exactly one row with the
//! client address and user agent, no row holds a key, secret, password, OTP secret or token,
//! `GET /api/audit-log/` answers the caller's own rows newest first in pages, bad input is a
//! 400, and the database refuses updating a row or deleting one younger than 365 days.

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};
use signaldesk_store::{AuditAction, SessionOrigin, AUDIT_RETENTION_MS};

use crate::auth_two_factor::{code, now_step, wrong_code};
use crate::helpers::{assert_json_error, TestApp, PASSWORD};
use crate::trades::{alert_entry, open_trades};

const AGENT: &str = "AuditTest/1.0 (X11; Linux)";
const KEY: &str = "AUDITKEYVALUE0123456789";
const SECRET: &str = "AUDITSECRETVALUE9876543210";
const NEW_PASSWORD: &str = "another-horse-battery-staple";

/// A request with this test's user agent, with a token when given.
async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Response {
    let mut req = reqwest::Client::new()
        .request(method, app.url(path))
        .header("User-Agent", AGENT);
    if let Some(token) = token {
        req = req.header("Authorization", format!("Token {token}"));
    }
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.unwrap()
}

/// [`send`] that expects `status`; the JSON body (null when empty).
async fn ok(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
    status: StatusCode,
) -> Value {
    let res = send(app, method.clone(), path, Some(token), body).await;
    assert_eq!(res.status(), status, "{method} {path}");
    let text = res.text().await.unwrap();
    if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

async fn login_with(app: &TestApp, username: &str, password: &str) -> Response {
    send(
        app,
        Method::POST,
        "/api/auth/login/",
        None,
        Some(json!({"username": username, "password": password})),
    )
    .await
}

async fn user_id(app: &TestApp, username: &str) -> i64 {
    app.store()
        .user_by_username(username)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// Follows one user's rows as actions are done: each step must add exactly one row.
struct Trail<'a> {
    app: &'a TestApp,
    user_id: i64,
    last: i64,
}

impl<'a> Trail<'a> {
    async fn new(app: &'a TestApp, username: &str) -> Trail<'a> {
        let user_id = user_id(app, username).await;
        let mut trail = Trail {
            app,
            user_id,
            last: 0,
        };
        trail.last = trail.since().await.first().map_or(0, |e| e.id);
        trail
    }

    async fn since(&self) -> Vec<signaldesk_store::AuditEntry> {
        let mut rows = self
            .app
            .store()
            .audit_page(self.user_id, None, 200)
            .await
            .unwrap();
        rows.retain(|e| e.id > self.last);
        rows
    }

    /// The one row the last step added, with this test's address and user agent; its detail.
    async fn one(&mut self, action: &str) -> Value {
        let rows = self.since().await;
        assert_eq!(rows.len(), 1, "exactly one row for {action}: {rows:#?}");
        let row = &rows[0];
        assert_eq!(row.action, action);
        assert_eq!(row.user_id, Some(self.user_id));
        assert_eq!(row.origin.client_address.as_deref(), Some("127.0.0.1"));
        assert_eq!(row.origin.user_agent.as_deref(), Some(AGENT));
        self.last = row.id;
        row.detail.clone()
    }

    /// The last step added no row.
    async fn none(&self, what: &str) {
        let rows = self.since().await;
        assert!(rows.is_empty(), "no row for {what}: {rows:#?}");
    }
}

/// Every action of issue 31 point 2, each followed by its one row; then no row holds a
/// secret.
async fn every_action_writes_one_row(app: &TestApp) {
    let label = app.db().label;
    app.create_user("alice").await;
    app.create_user("carol").await;
    let mut trail = Trail::new(app, "alice").await;
    let mut tokens = Vec::new();

    // Logins: the browser one, a wrong password, the token endpoint.
    let res = login_with(app, "alice", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK);
    let token = res.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    tokens.push(token.clone());
    assert_eq!(trail.one("login").await, json!({"via": "browser"}));
    let res = login_with(app, "alice", "wrong-password").await;
    assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    assert_eq!(
        trail.one("login_failed").await,
        json!({"reason": "password", "username": "alice"})
    );
    let scripted = ok(
        app,
        Method::POST,
        "/api/auth/token/",
        &token,
        Some(json!({"username": "alice", "password": PASSWORD})),
        StatusCode::OK,
    )
    .await["token"]
        .as_str()
        .unwrap()
        .to_string();
    tokens.push(scripted.clone());
    assert_eq!(trail.one("login").await, json!({"via": "token"}));

    // Settings: only the fields that changed, with old and new values; no change, no row.
    let settings = ok(
        app,
        Method::GET,
        "/api/bot-settings/",
        &token,
        None,
        StatusCode::OK,
    )
    .await[0]
        .clone();
    let path = format!("/api/bot-settings/{}/", settings["id"]);
    let max_trades = settings["max_trades"].as_i64().unwrap();
    let change = json!({"max_trades": max_trades + 1, "leverage": settings["leverage"]});
    ok(
        app,
        Method::PUT,
        &path,
        &token,
        Some(change.clone()),
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        trail.one("settings_changed").await,
        json!({"changes": [{"field": "max_trades", "old": max_trades, "new": max_trades + 1}]}),
        "{label}"
    );
    ok(
        app,
        Method::PUT,
        &path,
        &token,
        Some(change),
        StatusCode::OK,
    )
    .await;
    trail.none("settings saved unchanged").await;

    // Keys: added, activated (never the key or secret).
    let key = ok(
        app,
        Method::POST,
        "/api/api-keys/",
        &token,
        Some(json!({"key": KEY, "secret": SECRET, "is_demo": true, "exchange": "paper"})),
        StatusCode::CREATED,
    )
    .await;
    let key_id = key["id"].as_i64().unwrap();
    let key_detail = json!({"id": key_id, "exchange": "paper", "is_demo": true});
    assert_eq!(trail.one("api_key_added").await, key_detail);
    let key_path = format!("/api/api-keys/{key_id}/");
    ok(
        app,
        Method::POST,
        &format!("{key_path}set_active/"),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(trail.one("api_key_activated").await, key_detail);

    // The bot, the webhook URL made then rotated, a manual close and a close-all.
    ok(
        app,
        Method::POST,
        "/api/command/bot/start/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    trail.one("bot_started").await;
    ok(
        app,
        Method::POST,
        "/api/webhook/",
        &token,
        None,
        StatusCode::CREATED,
    )
    .await;
    trail.one("webhook_url_created").await;
    let hook = ok(
        app,
        Method::POST,
        "/api/webhook/",
        &token,
        None,
        StatusCode::CREATED,
    )
    .await["path"]
        .as_str()
        .unwrap()
        .to_string();
    trail.one("webhook_url_rotated").await;
    alert_entry(app, &token, &hook, "BTCUSDT").await;
    let trade = open_trades(app, &token, 1).await.remove(0);
    ok(
        app,
        Method::POST,
        &format!("/api/trades/{}/close/", trade["id"]),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        trail.one("position_closed").await,
        json!({"trade_id": trade["id"], "symbol": "BTCUSDT"})
    );
    alert_entry(app, &token, &hook, "ETHUSDT").await;
    open_trades(app, &token, 1).await;
    let closed = ok(
        app,
        Method::POST,
        "/api/trades/close-all/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(closed["closed"], 1);
    assert_eq!(trail.one("positions_closed_all").await, json!({"count": 1}));
    for (path, action) in [
        ("/api/command/bot/stop/", "bot_stopped"),
        ("/api/command/signals/stop/", "signals_stopped"),
        ("/api/command/signals/start/", "signals_started"),
    ] {
        ok(app, Method::POST, path, &token, None, StatusCode::OK).await;
        trail.one(action).await;
    }

    // Keys: deactivated, deleted.
    ok(
        app,
        Method::POST,
        &format!("{key_path}deactivate/"),
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(trail.one("api_key_deactivated").await, key_detail);
    ok(
        app,
        Method::DELETE,
        &key_path,
        &token,
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
    assert_eq!(trail.one("api_key_deleted").await, key_detail);

    // Two-factor login: on, a wrong code at login, off with a recovery code.
    let setup = ok(
        app,
        Method::POST,
        "/api/auth/2fa/setup/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let otp_secret = setup["secret"].as_str().unwrap().to_string();
    trail.none("2FA set-up begun").await;
    let on = ok(
        app,
        Method::POST,
        "/api/auth/2fa/enable/",
        &token,
        Some(json!({"code": code(&otp_secret, now_step())})),
        StatusCode::OK,
    )
    .await;
    trail.one("two_factor_enabled").await;
    let recovery: Vec<String> = on["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let res = send(
        app,
        Method::POST,
        "/api/auth/login/",
        None,
        Some(json!({"username": "alice", "password": PASSWORD, "otp": wrong_code(&otp_secret)})),
    )
    .await;
    assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    assert_eq!(
        trail.one("login_failed").await,
        json!({"reason": "otp", "username": "alice"})
    );
    ok(
        app,
        Method::POST,
        "/api/auth/2fa/disable/",
        &token,
        Some(json!({"code": recovery[0]})),
        StatusCode::OK,
    )
    .await;
    trail.one("two_factor_disabled").await;

    // Sessions: one revoked, the others, the password change, the logout.
    let scripted_session = ok(
        app,
        Method::GET,
        "/api/auth/sessions/",
        &scripted,
        None,
        StatusCode::OK,
    )
    .await
    .as_array()
    .unwrap()
    .iter()
    .find(|s| s["current"] == true)
    .unwrap()["id"]
        .clone();
    ok(
        app,
        Method::DELETE,
        &format!("/api/auth/sessions/{scripted_session}/"),
        &token,
        None,
        StatusCode::NO_CONTENT,
    )
    .await;
    assert_eq!(
        trail.one("session_revoked").await,
        json!({"session_id": scripted_session})
    );
    let res = login_with(app, "alice", PASSWORD).await;
    tokens.push(
        res.json::<Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string(),
    );
    trail.one("login").await;
    let revoked = ok(
        app,
        Method::POST,
        "/api/auth/sessions/revoke-others/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        trail.one("sessions_revoked_others").await,
        json!({"count": revoked["revoked"]})
    );
    ok(
        app,
        Method::POST,
        "/api/auth/password/",
        &token,
        Some(json!({"current_password": PASSWORD, "new_password": NEW_PASSWORD})),
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        trail.one("password_changed").await,
        json!({"sessions_revoked": 0})
    );
    ok(
        app,
        Method::POST,
        "/api/auth/logout/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    assert!(trail.one("logout").await["session_id"].is_i64());

    // A failed login naming nobody: a row with no user.
    let res = login_with(app, "nobody", "whatever-password").await;
    assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(app.db_url())
        .await
        .unwrap();
    let nobody: Vec<(String, String, Option<String>)> =
        sqlx::query_as("SELECT action, detail, user_agent FROM audit_log WHERE user_id IS NULL")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert_eq!(nobody.len(), 1, "{label}: {nobody:?}");
    assert_eq!(nobody[0].0, "login_failed");
    assert_eq!(
        serde_json::from_str::<Value>(&nobody[0].1).unwrap(),
        json!({"reason": "password", "username": "nobody"})
    );
    assert_eq!(nobody[0].2.as_deref(), Some(AGENT));

    // The lockout: each wrong password is a row; attempts the lockout refuses are not (an
    // attacker hammering the login cannot grow the log at their request rate).
    let mut carol = Trail::new(app, "carol").await;
    loop {
        let res = login_with(app, "carol", "wrong-password").await;
        if res.status() == StatusCode::TOO_MANY_REQUESTS {
            break;
        }
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
        assert_eq!(
            carol.one("login_failed").await,
            json!({"reason": "password", "username": "carol"})
        );
    }
    for _ in 0..3 {
        login_with(app, "carol", "wrong-password").await;
    }
    carol.none("attempts refused by the lockout").await;

    // Every action of the issue was recorded above.
    let recorded: Vec<(String,)> = sqlx::query_as("SELECT DISTINCT action FROM audit_log")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    for action in AuditAction::ALL {
        assert!(
            recorded.iter().any(|(a,)| a == action.as_str()),
            "{label}: no {} row",
            action.as_str()
        );
    }

    // No row holds a secret: the key, its secret, the passwords, the OTP secret, a recovery
    // code, a token or the webhook URL.
    let rows: Vec<(String, String, Option<String>, Option<String>)> =
        sqlx::query_as("SELECT action, detail, address, user_agent FROM audit_log")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let text = format!("{rows:?}");
    let webhook_secret = hook.trim_end_matches('/').rsplit('/').next().unwrap();
    let mut secrets = vec![
        KEY,
        SECRET,
        PASSWORD,
        NEW_PASSWORD,
        &otp_secret,
        webhook_secret,
    ];
    secrets.extend(recovery.iter().map(String::as_str));
    secrets.extend(tokens.iter().map(String::as_str));
    secrets.push(&scripted);
    for secret in secrets {
        assert!(
            !text.contains(secret),
            "{label}: {secret:?} in the audit log"
        );
    }
}

#[tokio::test]
async fn every_action_writes_one_row_with_address_and_agent_and_no_secret_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        every_action_writes_one_row(&app).await;
        app.server.stop().await.unwrap();
    }
}

/// `GET /api/audit-log/`: own rows only, newest first, paged by `before`; bad input a 400.
async fn the_page(app: &TestApp) {
    let label = app.db().label;
    let alice = app.user_with_token("alice").await;
    let bob = app.user_with_token("bob").await;
    let settings = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &alice,
            None,
            StatusCode::OK,
        )
        .await[0]
        .clone();
    let path = format!("/api/bot-settings/{}/", settings["id"]);
    for leverage in 2..=6 {
        app.call_ok(
            Method::PUT,
            &path,
            &alice,
            Some(json!({"leverage": leverage})),
            StatusCode::OK,
        )
        .await;
    }
    // Alice: her login and five changes; bob: his login.
    let mut seen = Vec::new();
    let mut before: Option<i64> = None;
    loop {
        let query = match before {
            Some(id) => format!("/api/audit-log/?limit=2&before={id}"),
            None => "/api/audit-log/?limit=2".to_string(),
        };
        let page = app
            .call_ok(Method::GET, &query, &alice, None, StatusCode::OK)
            .await;
        let entries = page["entries"].as_array().unwrap().clone();
        assert!(entries.len() <= 2);
        seen.extend(entries);
        match page["next_before"].as_i64() {
            Some(id) => before = Some(id),
            None => break,
        }
    }
    let ids: Vec<i64> = seen.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), 6, "{label}: {seen:#?}");
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");
    assert_eq!(seen[0]["action"], "settings_changed");
    assert_eq!(
        seen[0]["detail"],
        json!({"changes": [{"field": "leverage", "old": 5, "new": 6}]})
    );
    assert!(chrono::DateTime::parse_from_rfc3339(seen[0]["at"].as_str().unwrap()).is_ok());
    assert_eq!(seen[0]["address"], "127.0.0.1");
    assert_eq!(seen[5]["action"], "login");
    let all = app
        .call_ok(Method::GET, "/api/audit-log/", &alice, None, StatusCode::OK)
        .await;
    assert_eq!(all["entries"].as_array().unwrap().len(), 6);
    assert_eq!(all["next_before"], Value::Null);
    let bobs = app
        .call_ok(Method::GET, "/api/audit-log/", &bob, None, StatusCode::OK)
        .await;
    let bobs = bobs["entries"].as_array().unwrap();
    assert_eq!(bobs.len(), 1, "{label}: only bob's own: {bobs:?}");
    assert_eq!(bobs[0]["action"], "login");
    assert!(!ids.contains(&bobs[0]["id"].as_i64().unwrap()));

    for query in [
        "limit=0",
        "limit=201",
        "limit=-1",
        "limit=abc",
        "limit=1.5",
        "before=abc",
        "before=0",
        "before=-3",
    ] {
        let res = app
            .call(
                Method::GET,
                &format!("/api/audit-log/?{query}"),
                &alice,
                None,
            )
            .await;
        assert_json_error(res, StatusCode::BAD_REQUEST).await;
    }
    let res = reqwest::get(app.url("/api/audit-log/")).await.unwrap();
    assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    let limit_200 = app
        .call(Method::GET, "/api/audit-log/?limit=200", &alice, None)
        .await;
    assert_eq!(limit_200.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_page_is_own_rows_newest_first_in_pages_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        the_page(&app).await;
        app.server.stop().await.unwrap();
    }
}

/// The triggers: no UPDATE, no DELETE of a row younger than 365 days; pruning deletes only
/// the older ones.
async fn rows_are_append_only(app: &TestApp) {
    let label = app.db().label;
    app.create_user("alice").await;
    let alice = user_id(app, "alice").await;
    let store = app.store();
    let now = chrono::Utc::now().timestamp_millis();
    let day = 24 * 60 * 60 * 1000;
    let origin = SessionOrigin {
        client_address: Some("10.0.0.1".into()),
        user_agent: Some(AGENT.into()),
    };
    let young = store
        .append_audit(
            Some(alice),
            now - AUDIT_RETENTION_MS + day,
            AuditAction::Logout,
            &json!({}),
            &origin,
        )
        .await
        .unwrap();
    let old = store
        .append_audit(
            Some(alice),
            now - AUDIT_RETENTION_MS - day,
            AuditAction::Login,
            &json!({}),
            &origin,
        )
        .await
        .unwrap();
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(app.db_url())
        .await
        .unwrap();
    for sql in [
        "UPDATE audit_log SET action = 'login' WHERE id = $1",
        "UPDATE audit_log SET detail = '{}' WHERE id = $1",
    ] {
        for id in [young, old] {
            let err = sqlx::query(sql).bind(id).execute(&mut conn).await;
            assert!(err.is_err(), "{label}: {sql} on {id} was allowed");
        }
    }
    let err = sqlx::query("DELETE FROM audit_log WHERE id = $1")
        .bind(young)
        .execute(&mut conn)
        .await;
    assert!(err.is_err(), "{label}: a young row was deleted");
    // A statement that touches a young row is refused as a whole.
    assert!(sqlx::query("DELETE FROM audit_log")
        .execute(&mut conn)
        .await
        .is_err());
    if app.store().backend() == signaldesk_store::Backend::Postgres {
        assert!(sqlx::query("TRUNCATE audit_log")
            .execute(&mut conn)
            .await
            .is_err());
    }
    assert_eq!(store.prune_audit_log().await.unwrap(), 1, "{label}");
    assert_eq!(
        store.prune_audit_log().await.unwrap(),
        0,
        "{label}: idempotent"
    );
    let left: Vec<i64> = store
        .audit_page(alice, None, 10)
        .await
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(left, vec![young], "{label}");
    let row = &store.audit_page(alice, None, 1).await.unwrap()[0];
    assert_eq!(
        row.action, "logout",
        "{label}: the failed updates changed nothing"
    );
    assert_eq!(row.origin, origin);
}

#[tokio::test]
async fn rows_are_never_updated_nor_deleted_before_365_days_on_both_databases() {
    for app in TestApp::on_every_backend().await {
        rows_are_append_only(&app).await;
        app.server.stop().await.unwrap();
    }
}
