//! Issue 18 points 2 and 3 on two instances of one PostgreSQL database: the bot runs on the
//! instance that holds its lease; the other relays the user's requests to it (alerts,
//! closes) and its websocket clients hear the bot's events; a gracefully stopped owner hands
//! the bot over at once. (The SIGKILL failovers run on the real binary in `make faults`.)
//! Skipped without `TEST_DATABASE_URL`: SQLite serves one instance.

use signaldesk_core::account::AccountVenue;
use std::time::{Duration, Instant};

use reqwest::{Client, Method, StatusCode};
use serde_json::Value;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{LeaseHolder, ProcessPlace};

use crate::helpers::{alert_body, TestApp};
use crate::live::{Frame, LiveClient};

async fn pair() -> Option<(TestApp, TestApp)> {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: two instances not tested");
        return None;
    };
    let a = TestApp::spawn_with(db, |c| c.multi_instance = true).await;
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

async fn post_alert(webhook: &str, symbol: &str, signal: &str) {
    let res = Client::new()
        .post(webhook)
        .header("content-type", "text/plain")
        .body(alert_body(symbol, signal).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED, "{symbol} {signal}");
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
    let started = a.start_bot(&token).await;
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
    let made = b.new_webhook(&token).await;
    post_alert(&b.url(&made), "ETHUSDT", "STRONG_BUY").await;

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

    let relayed = "signaldesk_events_relayed_total";
    assert!(a.metric(relayed, &[("direction", "sent")]).await >= Some(1.0));
    assert!(b.metric(relayed, &[("direction", "received")]).await >= Some(1.0));
    let user_label = user.to_string();
    let owned = [("user_id", user_label.as_str())];
    assert_eq!(a.metric("signaldesk_bot_owned", &owned).await, Some(1.0));
}

/// An owner whose lease another tenure took (as when it was paused past its end) stops
/// acting for the bot at its next renewal; when that tenure ends, an instance takes the bot
/// again under a newer token, and nothing was sent under an older token after a newer one.
#[tokio::test]
async fn an_owner_whose_lease_was_taken_acts_no_more() {
    let Some((a, b)) = pair().await else { return };
    let token = a.user_with_token("alice").await;
    let user = user_id(&a, &token).await;
    a.start_bot(&token).await;
    let made = b.new_webhook(&token).await;
    let webhook = b.url(&made);
    post_alert(&webhook, "ETHUSDT", "STRONG_BUY").await;
    eventually("A's bot acting", Duration::from_secs(20), || async {
        (!a.store().fence_log(user).await.unwrap().is_empty()).then_some(())
    })
    .await;

    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(a.db_url())
        .await
        .unwrap();
    sqlx::Executor::execute(
        &mut conn,
        format!(
            "UPDATE bot_leases SET owner = 'intruder#0', instance = 'intruder', token = token + 1,
                 expires_at = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT + 3000
             WHERE user_id = {user}"
        )
        .as_str(),
    )
    .await
    .unwrap();
    let lost = [("result", "lost")];
    eventually(
        "A knowing it lost the bot",
        Duration::from_secs(5),
        || async {
            let count = a.metric("signaldesk_lease_renewals_total", &lost).await;
            (count >= Some(1.0)).then_some(())
        },
    )
    .await;
    let user_label = user.to_string();
    let owned = [("user_id", user_label.as_str())];
    assert_eq!(a.metric("signaldesk_bot_owned", &owned).await, Some(0.0));

    let ids = [a.config.instance_id.clone(), b.config.instance_id.clone()];
    let next = eventually(
        "an instance running the bot again",
        Duration::from_secs(10),
        || async { lease_instance(&a, user).await.filter(|i| ids.contains(i)) },
    )
    .await;
    post_alert(&webhook, "BTCUSDT", "STRONG_SELL").await;
    let log = eventually("the bot acting again", Duration::from_secs(20), || async {
        let log = a.store().fence_log(user).await.unwrap();
        (log.last()?.token > log[0].token).then_some(log)
    })
    .await;
    let (first, last) = (log[0].token, log[log.len() - 1].token);
    assert!(last >= first + 2, "the stolen tenure came between: {log:?}");
    assert!(
        log.windows(2).all(|w| w[0].token <= w[1].token),
        "an older tenure acted after a newer one: {log:?}"
    );
    let next_owner = format!("{next}#");
    assert!(log
        .iter()
        .filter(|e| e.token == last)
        .all(|e| e.owner.starts_with(&next_owner)));
}

#[tokio::test]
async fn a_gracefully_stopped_owner_hands_the_bot_over_at_once() {
    let Some((a, b)) = pair().await else { return };
    let token = a.user_with_token("alice").await;
    let user = user_id(&a, &token).await;
    a.start_bot(&token).await;
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
    for stop in ["/api/command/bot/stop/", "/api/command/signals/stop/"] {
        b.call_ok(Method::POST, stop, &token, None, StatusCode::OK)
            .await;
    }
    assert_eq!(lease_instance(&b, user).await, None);
}

/// Issue 30 point 6: another instance's status reads the owner's renewals. An owner that
/// renews is running; one that stopped renewing is `unknown` (it may act for a few seconds
/// more) and then `stopped` (past the time it stops itself), each with when another instance
/// takes over, instead of "running" until its lease runs out.
#[tokio::test]
async fn another_instance_tells_a_silent_owner_from_a_live_one() {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: two instances not tested");
        return;
    };
    let b = TestApp::spawn_with(db, |c| c.multi_instance = true).await;
    let token = b.user_with_token("alice").await;
    let user = user_id(&b, &token).await;
    let owner = LeaseHolder::new("elsewhere");
    let place = ProcessPlace {
        host: "another-host".into(),
        pid: 1,
    };
    let registered = b.store().register_instance(&owner, &place, 60_000).await;
    assert_eq!(registered.unwrap(), None);
    // A 10 s lease last renewed `ago` ms ago runs out in `10 000 - ago` ms.
    for (ago, state, answering) in [
        (1_000, "running", true),
        (5_500, "unknown", false),
        (8_000, "stopped", false),
    ] {
        let held = b.store().acquire_lease(user, &owner, 10_000 - ago).await;
        assert!(held.unwrap().is_some());
        let status = b
            .call_ok(
                Method::GET,
                "/api/bot/status/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(status["trading_worker"], state, "{ago}: {status}");
        assert_eq!(status["signal_worker"], state, "{ago}: {status}");
        let runs_on = &status["runs_on"];
        assert_eq!(runs_on["instance"], "elsewhere", "{status}");
        assert_eq!(runs_on["here"], false, "{status}");
        assert_eq!(runs_on["answering"], answering, "{ago}: {status}");
        let renewed = runs_on["renewed_ms_ago"].as_i64().unwrap();
        assert!((ago..ago + 1_000).contains(&renewed), "{ago}: {status}");
        let within = runs_on["taken_over_within_ms"].as_i64();
        if answering {
            assert_eq!(within, None, "{status}");
        } else {
            let within = within.expect("when another instance takes over");
            assert!(
                within > 0 && within <= 10_000 - ago + 2_000,
                "{ago}: {status}"
            );
        }
    }
}

/// Issue 30 point 6: each user's balance is recorded by one instance: the one running the
/// user's bot, whose paper account is the latest; a user whose bot nobody runs by the one
/// holding the snapshot duty. Both record at the same time: every user once.
#[tokio::test]
async fn each_users_balance_is_recorded_by_one_instance() {
    let Some((a, b)) = pair().await else { return };
    let alice = a.user_with_token("alice").await;
    let alice_id = user_id(&a, &alice).await;
    b.user_with_token("bob").await;
    a.start_bot(&alice).await;
    let at = chrono::Utc::now() + chrono::Duration::minutes(7);
    let step = 5 * 60 * 1000;
    let taken_at = at.timestamp_millis().div_euclid(step) * step;
    let record = |app: &TestApp| {
        let engine = app.server.state.engine.clone();
        async move { engine.record_balance_snapshots(at).await.unwrap() }
    };
    let on_b = record(&b).await;
    let alices = a
        .store()
        .balance_snapshot_at(alice_id, AccountVenue::Paper, at.timestamp_millis())
        .await;
    assert!(
        alices.unwrap().is_none_or(|s| s.taken_at < taken_at),
        "B recorded the balance of a bot A runs"
    );
    let on_a = record(&a).await;
    assert_eq!(on_a + on_b, 2, "A {on_a}, B {on_b}: every user once");
    let alices = a
        .store()
        .balance_snapshot_at(alice_id, AccountVenue::Paper, at.timestamp_millis())
        .await;
    assert_eq!(alices.unwrap().map(|s| s.taken_at), Some(taken_at));
}
