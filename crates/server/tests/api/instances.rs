//! Issue 18 point 4: several `signaldesk serve` instances behind a load balancer (no sticky
//! sessions) on one PostgreSQL database answer the same, whichever gets the request: tokens,
//! cookie sessions with their CSRF values, webhook secrets, and the login and webhook rate
//! limits (docs/security.md, "Several instances").
//!
//! Each scenario runs on two instances of one PostgreSQL database when `TEST_DATABASE_URL` is
//! set, and on SQLite with both "instances" being the one server SQLite allows: the answers
//! must be those of a single server either way.

use reqwest::{Client, Method, Response, StatusCode};
use serde_json::json;
use signaldesk_server::Config;
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{alert_body, assert_json_error, TestApp, PASSWORD};

/// Instance A, and instance B on A's database: a sibling on PostgreSQL, A itself on SQLite.
struct Pair {
    a: TestApp,
    b: Option<TestApp>,
}

impl Pair {
    fn b(&self) -> &TestApp {
        self.b.as_ref().unwrap_or(&self.a)
    }
}

/// The pairs to run a scenario on: SQLite (one instance), and two instances of one
/// PostgreSQL database when `TEST_DATABASE_URL` is set.
async fn pairs(configure: fn(&mut Config)) -> Vec<Pair> {
    let mut pairs = vec![Pair {
        a: TestApp::spawn_with(TestDatabase::sqlite(), configure).await,
        b: None,
    }];
    match TestDatabase::postgres().await {
        Some(db) => {
            let a = TestApp::spawn_with(db, configure).await;
            let b = a.sibling().await;
            assert_ne!(a.base, b.base);
            pairs.push(Pair { a, b: Some(b) });
        }
        None => eprintln!("TEST_DATABASE_URL is not set: two instances not tested"),
    }
    pairs
}

async fn me_with_cookie(app: &TestApp, cookie: &str) -> StatusCode {
    Client::new()
        .get(app.url("/api/auth/me/"))
        .header("Cookie", cookie)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_token_from_one_instance_works_on_the_other_until_a_logout_on_either() {
    for pair in pairs(|_| {}).await {
        let (a, b) = (&pair.a, pair.b());
        a.create_user("alice").await;
        let token = a.login("alice").await;
        let me = b.with_token(Method::GET, "/api/auth/me/", &token).await;
        assert_eq!(me.status(), StatusCode::OK);
        assert_eq!(
            me.json::<serde_json::Value>().await.unwrap()["username"],
            "alice"
        );
        // A token from `/api/auth/token/` on B works on A.
        let other = b
            .post_json(
                "/api/auth/token/",
                json!({"username": "alice", "password": PASSWORD}),
            )
            .await;
        assert_eq!(other.status(), StatusCode::OK);
        let other = other.json::<serde_json::Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string();
        let me = a.with_token(Method::GET, "/api/auth/me/", &other).await;
        assert_eq!(me.status(), StatusCode::OK);

        // Logging out on B ends the token on A; the other token lives on.
        let out = b
            .with_token(Method::POST, "/api/auth/logout/", &token)
            .await;
        assert_eq!(out.status(), StatusCode::OK);
        let me = a.with_token(Method::GET, "/api/auth/me/", &token).await;
        assert_json_error(me, StatusCode::UNAUTHORIZED).await;
        let me = a.with_token(Method::GET, "/api/auth/me/", &other).await;
        assert_eq!(me.status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn a_cookie_session_and_its_csrf_value_from_one_instance_hold_on_the_other() {
    for pair in pairs(|_| {}).await {
        let (a, b) = (&pair.a, pair.b());
        a.create_user("alice").await;
        let browser = a.browser_login("alice").await;
        assert_eq!(me_with_cookie(b, &browser.cookie).await, StatusCode::OK);
        let write = |app: &TestApp, path: &str, csrf: Option<&str>| {
            let mut req = Client::new()
                .post(app.url(path))
                .header("Cookie", &browser.cookie);
            if let Some(csrf) = csrf {
                req = req.header("X-CSRFToken", csrf);
            }
            req.send()
        };
        // On B, a write needs the CSRF value A gave, and takes it.
        let refused = write(b, "/api/webhook/", None).await.unwrap();
        assert_json_error(refused, StatusCode::FORBIDDEN).await;
        let refused = write(b, "/api/webhook/", Some("made-up")).await.unwrap();
        assert_json_error(refused, StatusCode::FORBIDDEN).await;
        let made = write(b, "/api/webhook/", Some(&browser.csrf))
            .await
            .unwrap();
        assert_eq!(made.status(), StatusCode::CREATED);

        // Logging out on B ends the session on A.
        let out = write(b, "/api/auth/logout/", Some(&browser.csrf))
            .await
            .unwrap();
        assert_eq!(out.status(), StatusCode::OK);
        assert_eq!(
            me_with_cookie(a, &browser.cookie).await,
            StatusCode::UNAUTHORIZED
        );
    }
}

async fn login_as(app: &TestApp, username: &str, from: &str, password: &str) -> Response {
    Client::new()
        .post(app.url("/api/auth/login/"))
        .header("X-Forwarded-For", from)
        .json(&json!({"username": username, "password": password}))
        .send()
        .await
        .unwrap()
}

/// The `Retry-After` of a 429 with the JSON error body.
async fn retry_after(res: Response) -> u64 {
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let secs = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_json_error(res, StatusCode::TOO_MANY_REQUESTS).await;
    secs
}

fn behind_a_proxy(config: &mut Config) {
    config.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
}

/// The per-(username, address) failures counted on both instances use up one quota; the
/// lockout, its growing delay and a success's reset are the same on both.
#[tokio::test]
async fn failed_logins_on_one_instance_lock_the_pair_out_on_the_other() {
    for pair in pairs(behind_a_proxy).await {
        let (a, b) = (&pair.a, pair.b());
        a.create_user("alice").await;
        let here = "203.0.113.8";
        // The quota is 5 failures: 3 on A, 2 on B.
        for app in [a, a, a, b, b] {
            let res = login_as(app, "alice", here, "wrong-wrong").await;
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        }
        // Locked out on both, even with the right password; elsewhere alice is welcome.
        assert_eq!(
            retry_after(login_as(b, "alice", here, PASSWORD).await).await,
            1
        );
        assert_eq!(
            retry_after(login_as(a, "alice", here, PASSWORD).await).await,
            1
        );
        let res = login_as(b, "alice", "198.51.100.7", PASSWORD).await;
        assert_eq!(res.status(), StatusCode::OK);

        // The next failure, on B, doubles the delay A answers.
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let res = login_as(b, "alice", here, "wrong-wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            retry_after(login_as(a, "alice", here, PASSWORD).await).await,
            2
        );
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        // A success on A starts the delays over on B.
        let res = login_as(a, "alice", here, PASSWORD).await;
        assert_eq!(res.status(), StatusCode::OK);
        let res = login_as(b, "alice", here, "wrong-wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            retry_after(login_as(b, "alice", here, PASSWORD).await).await,
            1
        );
    }
}

/// One address trying usernames on both instances uses up one per-address quota (20).
#[tokio::test]
async fn an_address_trying_usernames_on_both_instances_is_slowed_on_both() {
    for pair in pairs(behind_a_proxy).await {
        let (a, b) = (&pair.a, pair.b());
        a.create_user("alice").await;
        crate::auth::lock_out_address(&[a, b], "192.0.2.1", 4).await;
        for app in [a, b] {
            let res = login_as(app, "alice", "192.0.2.1", PASSWORD).await;
            assert!(retry_after(res).await >= 1);
        }
        let res = login_as(b, "alice", "192.0.2.2", PASSWORD).await;
        assert_eq!(res.status(), StatusCode::OK);
    }
}

async fn post_alert(app: &TestApp, path: &str) -> Response {
    Client::new()
        .post(app.url(path))
        .header("content-type", "text/plain")
        .body(alert_body("BTCUSDT", "STRONG_BUY").to_string())
        .send()
        .await
        .unwrap()
}

/// A user's alert quota counted on both instances is one quota, and so is an address's
/// quota of posts to unknown URLs. The user's signals are off, so accepted alerts answer 409
/// (they count all the same) and no worker runs.
#[tokio::test]
async fn webhook_rate_limits_counted_on_one_instance_hold_on_the_other() {
    for pair in pairs(|c| c.webhook_alerts_per_minute = 3).await {
        let (a, b) = (&pair.a, pair.b());
        let token = a.user_with_token("alice").await;
        let path = a.new_webhook(&token).await;

        for app in [a, b, a] {
            let res = post_alert(app, "/api/webhook/not-a-secret/").await;
            assert_json_error(res, StatusCode::NOT_FOUND).await;
        }
        for app in [b, a] {
            let res = post_alert(app, "/api/webhook/not-a-secret/").await;
            assert!(retry_after(res).await >= 1);
        }

        for app in [b, a, b] {
            let res = post_alert(app, &path).await;
            assert_json_error(res, StatusCode::CONFLICT).await;
        }
        for app in [a, b] {
            assert!(retry_after(post_alert(app, &path).await).await >= 1);
        }
    }
}

/// A webhook URL made on one instance is the user's on the other, and replacing it on the
/// other ends it on the first.
#[tokio::test]
async fn a_webhook_secret_made_on_one_instance_is_known_and_replaced_on_the_other() {
    for pair in pairs(|_| {}).await {
        let (a, b) = (&pair.a, pair.b());
        let token = a.user_with_token("alice").await;
        let first = a.new_webhook(&token).await;
        // Known on B: the alert reaches alice's (stopped) signals, not a 404.
        assert_json_error(post_alert(b, &first).await, StatusCode::CONFLICT).await;
        let second = b.new_webhook(&token).await;
        assert_json_error(post_alert(a, &first).await, StatusCode::NOT_FOUND).await;
        assert_json_error(post_alert(a, &second).await, StatusCode::CONFLICT).await;
    }
}

/// The master key is configuration each instance is given: one given another key than the
/// database's secrets are sealed with refuses to start, instead of saving exchange keys the
/// other instances cannot decrypt.
#[tokio::test]
async fn an_instance_with_another_master_key_refuses_to_start() {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: two instances not tested");
        return;
    };
    let a = TestApp::spawn_with(db, |_| {}).await;
    let token = a.user_with_token("alice").await;
    a.add_key(&token, "k", "s", true).await;
    // Its own data dir, so a master.key file of its own.
    let elsewhere = tempfile::tempdir().unwrap();
    let config = Config {
        data_dir: elsewhere.path().to_path_buf(),
        ..a.config.clone()
    };
    let store = signaldesk_store::Store::connect(a.db_url()).await.unwrap();
    let refused = signaldesk_server::start(config, store).await.err();
    let refused = format!("{:#}", refused.expect("another master key is refused"));
    assert!(refused.contains("same master key"), "{refused}");
    // Given the same key, an instance starts.
    let b = a.sibling().await;
    assert_eq!(b.login("alice").await.len(), 64);
}

/// Issue 30 point 6: a second process given an instance id a running process renews is
/// refused at start, saying which process holds it and what to do, instead of taking the
/// first one's bots as its "dead predecessor".
#[tokio::test]
async fn a_second_process_with_an_instance_id_in_use_refuses_to_start() {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: two instances not tested");
        return;
    };
    let a = TestApp::spawn_with(db, |c| c.multi_instance = true).await;
    let store = signaldesk_store::Store::connect(a.db_url()).await.unwrap();
    let refused = signaldesk_server::start(a.config.clone(), store)
        .await
        .err();
    let refused = format!("{:#}", refused.expect("an instance id in use is refused"));
    let id = &a.config.instance_id;
    assert!(
        refused.contains(&format!(
            "instance id \"{id}\" is in use by another running process (pid {}",
            std::process::id()
        )),
        "{refused}"
    );
    assert!(
        refused.contains("give each process its own instance id"),
        "{refused}"
    );
    // The first one runs on.
    assert_eq!(a.user_with_token("alice").await.len(), 64);
}
