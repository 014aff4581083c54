//! `/ws/dashboard/` against the real server: authentication, the snapshot, each message type
//! with the fields the spec names, isolation between users and slow clients.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use signaldesk_engine::UserEvent;
use signaldesk_store::{LogEntry, LogLevel};
use signaldesk_venue::{OrderRequest, Venue};

use crate::helpers::{alert_body, TestApp};
use crate::live::{Frame, LiveClient};

const SECOND: Duration = Duration::from_secs(1);

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    keys
}

fn assert_has(value: &Value, fields: &[&str]) {
    for field in fields {
        assert!(value.get(field).is_some(), "{field} missing in {value}");
    }
}

const SIGNAL_FIELDS: [&str; 11] = [
    "id",
    "symbol",
    "recommendation",
    "signal",
    "rating",
    "total",
    "ma",
    "osc",
    "candle_time",
    "created_at",
    "source",
];

#[tokio::test]
async fn an_unauthenticated_socket_hears_nothing_and_is_closed_after_10_s() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    // Events for the user while the stranger waits must not reach the stranger.
    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let started = Instant::now();
    let mut stranger = LiveClient::connect(&app).await;
    stranger.send(json!({"action": "get_signals"})).await;
    stranger.send(json!({"action": "ping"})).await;
    match stranger.next_frame(Duration::from_secs(15)).await {
        Some(Frame::Closed(code)) => assert_eq!(code, Some(4008)),
        other => panic!("expected the close, got {other:?}"),
    }
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(9_500) && waited < Duration::from_secs(12),
        "closed after {waited:?}"
    );
}

#[tokio::test]
async fn a_bad_token_is_refused_and_the_socket_closed() {
    let app = TestApp::spawn().await;
    let mut client = LiveClient::connect(&app).await;
    client
        .send(json!({"action": "authenticate", "token": "not-a-token"}))
        .await;
    let refusal = client.next_json().await;
    assert_eq!(refusal["type"], "error");
    assert_eq!(refusal["error"], "Invalid or expired credentials.");
    match client.next_frame(5 * SECOND).await {
        Some(Frame::Closed(code)) => assert_eq!(code, Some(4001)),
        other => panic!("expected the close, got {other:?}"),
    }
}

#[tokio::test]
async fn a_logged_out_token_is_refused() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    app.call_ok(
        Method::POST,
        "/api/auth/logout/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let mut client = LiveClient::connect(&app).await;
    client
        .send(json!({"action": "authenticate", "token": token}))
        .await;
    assert_eq!(client.next_json().await["type"], "error");
}

#[tokio::test]
async fn the_session_cookie_authenticates_at_upgrade_from_our_own_pages_only() {
    let app = TestApp::spawn().await;
    app.create_user("alice").await;
    let session = app.browser_login("alice").await;
    let origin = app.base.clone();
    let mut own =
        LiveClient::connect_with(&app, &[("cookie", &session.cookie), ("origin", &origin)]).await;
    let first = own.next_json().await;
    assert_eq!(first["type"], "authenticated");
    assert_eq!(first["user"]["username"], "alice");

    let mut foreign = LiveClient::connect_with(
        &app,
        &[
            ("cookie", &session.cookie),
            ("origin", "https://evil.example"),
        ],
    )
    .await;
    assert!(
        foreign.next_frame(SECOND).await.is_none(),
        "a cross-site upgrade is not authenticated by the cookie"
    );
}

#[tokio::test]
async fn the_snapshot_and_every_message_type_carry_the_fields_the_spec_names() {
    let app = TestApp::spawn_with(
        signaldesk_store::test_support::TestDatabase::sqlite(),
        |c| {
            // One-minute candles every second.
            c.market.speed = 60.0;
        },
    )
    .await;
    let token = app.user_with_token("alice").await;
    let user_id = app
        .store()
        .user_by_username("alice")
        .await
        .unwrap()
        .unwrap()
        .id;
    let (mut client, first) = LiveClient::authenticated(&app, &token).await;
    let types: Vec<&str> = first.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "authenticated",
            "signals_update",
            "balance",
            "bot_status",
            "statistics"
        ]
    );
    assert_eq!(first[0]["user"]["username"], "alice");
    assert_eq!(
        first[1]["signals"],
        json!([]),
        "nothing before signals start"
    );
    assert_eq!(
        keys(&first[2]["data"]),
        ["available_balance", "equity", "margin_balance"]
    );
    assert_eq!(first[2]["data"]["equity"], 10000.0, "a new paper wallet");
    assert_eq!(first[3]["data"]["status"], "stopped");
    assert_has(
        &first[3]["data"],
        &["is_bot_running", "is_signals_fetching_active", "bot_mode"],
    );
    assert_eq!(
        keys(&first[4]["data"]),
        [
            "average_profit",
            "losing_trades",
            "max_drawdown",
            "total_profit",
            "total_trades",
            "win_rate",
            "winning_trades"
        ]
    );

    // Start Signals: the log line, the status and then the list arrive live.
    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    let log = client.next_of_type("new_log", 5 * SECOND).await;
    assert_eq!(keys(&log["data"]), ["id", "level", "message", "timestamp"]);
    assert_eq!(log["data"]["level"], "info");
    assert_eq!(log["data"]["message"], "Signal worker started");
    let status = client.next_of_type("bot_status", 5 * SECOND).await;
    assert_eq!(status["data"]["is_signals_fetching_active"], true);
    let update = client.next_of_type("signals_update", 5 * SECOND).await;
    let signals = update["signals"].as_array().unwrap();
    assert_eq!(signals.len(), 2);
    for signal in signals {
        assert_has(signal, &SIGNAL_FIELDS);
    }
    // The next closed candle sends the whole list again without asking.
    let again = client.next_of_type("signals_update", 10 * SECOND).await;
    assert_eq!(again["signals"].as_array().unwrap().len(), 2);

    // A changed recommendation is a `signal` with the fields at the top level.
    app.server.state.engine.bus().publish(
        user_id,
        UserEvent::Signal(
            app.store()
                .recent_signals(user_id, 1)
                .await
                .unwrap()
                .remove(0),
        ),
    );
    let signal = client.next_of_type("signal", 5 * SECOND).await;
    assert_has(&signal, &SIGNAL_FIELDS);

    client.send(json!({"action": "get_signals"})).await;
    let asked = client.next_of_type("signals_update", 5 * SECOND).await;
    assert_eq!(asked["signals"].as_array().unwrap().len(), 2);

    // An open paper position shows in `orders`.
    let paper = app.server.state.engine.paper_exchange();
    paper
        .account(user_id)
        .submit_market_order(OrderRequest {
            client_order_id: "test-open-1".into(),
            symbol: "BTCUSDT".into(),
            side: signaldesk_core::market::Side::Buy,
            qty: rust_decimal::Decimal::new(1, 2),
            reduce_only: false,
        })
        .await
        .unwrap();
    client.send(json!({"action": "get_trades"})).await;
    let orders = client.next_of_type("orders", 5 * SECOND).await;
    let positions = orders["data"].as_array().unwrap();
    assert_eq!(positions.len(), 1);
    assert_eq!(positions[0]["symbol"], "BTCUSDT");
    assert_eq!(positions[0]["side"], "long");
    assert_has(
        &positions[0],
        &[
            "qty",
            "entry_price",
            "mark_price",
            "leverage",
            "unrealized_pnl",
            "opened_at",
        ],
    );

    client.send(json!({"action": "ping"})).await;
    client.next_of_type("pong", 5 * SECOND).await;
    client.send(json!({"action": "launch"})).await;
    let error = client.next_of_type("error", 5 * SECOND).await;
    assert!(error["error"].as_str().unwrap().contains("Unknown message"));
    client.send(json!({"action": "ping"})).await;
    client.next_of_type("pong", 5 * SECOND).await;
}

#[tokio::test]
async fn each_user_receives_only_their_own_events() {
    let app = TestApp::spawn_with(
        signaldesk_store::test_support::TestDatabase::sqlite(),
        |c| {
            c.market.speed = 60.0;
        },
    )
    .await;
    let alice = app.user_with_token("alice").await;
    let bob = app.user_with_token("bob").await;
    let (mut alice_live, _) = LiveClient::authenticated(&app, &alice).await;
    let (mut bob_live, _) = LiveClient::authenticated(&app, &bob).await;
    for token in [&alice, &bob] {
        app.call_ok(
            Method::POST,
            "/api/command/signals/start/",
            token,
            None,
            StatusCode::OK,
        )
        .await;
    }
    // Each user also gets a webhook alert of their own.
    for (token, symbol) in [(&alice, "BTCUSDT"), (&bob, "ETHUSDT")] {
        let made = app
            .call_ok(
                Method::POST,
                "/api/webhook/",
                token,
                None,
                StatusCode::CREATED,
            )
            .await;
        let res = app
            .client
            .post(app.url(made["path"].as_str().unwrap()))
            .json(&alert_body(symbol, "STRONG_SELL"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::ACCEPTED);
    }
    let heard_by_alice = alice_live.drain(3 * SECOND).await;
    let heard_by_bob = bob_live.drain(SECOND).await;
    for (heard, token, own_alert, other_alert) in [
        (&heard_by_alice, &alice, "BTCUSDT", "ETHUSDT"),
        (&heard_by_bob, &bob, "ETHUSDT", "BTCUSDT"),
    ] {
        let own_logs: Vec<i64> = app
            .call_ok(
                Method::GET,
                "/api/logs/?limit=1000",
                token,
                None,
                StatusCode::OK,
            )
            .await
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_i64().unwrap())
            .collect();
        let logs: Vec<&Value> = heard.iter().filter(|m| m["type"] == "new_log").collect();
        assert!(
            logs.len() >= 2,
            "the user's own log lines arrive: {heard:?}"
        );
        for log in logs {
            let id = log["data"]["id"].as_i64().unwrap();
            assert!(own_logs.contains(&id), "log {id} is not this user's");
        }
        let alerts: Vec<&str> = heard
            .iter()
            .filter(|m| m["type"] == "signal" && m["source"] == "webhook")
            .map(|m| m["symbol"].as_str().unwrap())
            .collect();
        assert_eq!(alerts, [own_alert], "never {other_alert}");
        let statuses = heard.iter().filter(|m| m["type"] == "bot_status").count();
        assert_eq!(statuses, 1, "only their own Start Signals");
    }
}

fn big_log(id: i64) -> UserEvent {
    UserEvent::NewLog(LogEntry {
        id,
        user_id: 0,
        ts: 0,
        level: LogLevel::Info,
        message: "x".repeat(16 * 1024),
    })
}

#[tokio::test]
async fn a_client_that_stops_reading_is_dropped_and_the_others_keep_receiving() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let user_id = app
        .store()
        .user_by_username("alice")
        .await
        .unwrap()
        .unwrap()
        .id;
    let (mut slow, _) = LiveClient::authenticated(&app, &token).await;
    let (fast, _) = LiveClient::authenticated(&app, &token).await;
    let bus = app.server.state.engine.bus().clone();

    // The fast client reads on its own task and reports each message's id as it lands.
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel::<(i64, Instant)>();
    let reader = tokio::spawn(async move {
        let mut fast = fast;
        while let Some(Frame::Json(m)) = fast.next_frame(Duration::from_secs(30)).await {
            if m["type"] == "new_log" {
                let _ = seen_tx.send((m["data"]["id"].as_i64().unwrap(), Instant::now()));
            }
        }
    });

    // 16 KiB a message, 100 at a time, each batch taken by the fast client before the next:
    // the slow one's socket buffers fill, then its queue, and the bus lets it go.
    let mut id = 0;
    while bus.dropped_slow() == 0 {
        assert!(id < 20_000, "the slow client was never dropped");
        for _ in 0..100 {
            id += 1;
            bus.publish(user_id, big_log(id));
        }
        while let Some((got, _)) = seen.recv().await {
            if got == id {
                break;
            }
        }
    }
    assert_eq!(bus.subscriber_count(), 1, "only the fast client is left");

    let sent_at = Instant::now();
    bus.publish(user_id, big_log(id + 1));
    let (got, at) = seen.recv().await.unwrap();
    assert_eq!(got, id + 1);
    let latency = at.duration_since(sent_at);
    assert!(latency < Duration::from_millis(100), "took {latency:?}");

    // The slow client, reading again, finds what was buffered and then the close.
    let closed = loop {
        match slow.next_frame(Duration::from_secs(10)).await {
            Some(Frame::Json(_)) => continue,
            Some(Frame::Closed(code)) => break code,
            None => panic!("the slow client was not closed"),
        }
    };
    assert!(
        matches!(closed, Some(4009) | None),
        "closed with {closed:?}"
    );
    assert_eq!(
        app.metric("signaldesk_websocket_dropped_slow_total", &[])
            .await,
        Some(1.0)
    );
    reader.abort();
}

/// Issue 16 point 6: a text frame above the documented 16 KiB is answered with close code 1009
/// (it dropped the TCP connection, 1006), before and after authentication, and also far above
/// what the library buffers.
#[tokio::test]
async fn a_message_above_16_kib_is_closed_with_1009() {
    use futures::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    for (authenticate, size) in [
        (false, 32 * 1024),
        (true, 32 * 1024),
        (true, 16 * 1024 + 1),
        (true, 2 * 1024 * 1024),
    ] {
        let mut client = if authenticate {
            LiveClient::authenticated(&app, &token).await.0
        } else {
            LiveClient::connect(&app).await
        };
        let padding = "x".repeat(size - 29);
        let text = format!(r#"{{"action": "ping", "pad": "{padding}"}}"#);
        assert_eq!(text.len(), size);
        let _ = client.socket.send(Message::Text(text.into())).await;
        match client.next_frame(5 * SECOND).await {
            Some(Frame::Closed(code)) => assert_eq!(code, Some(1009), "{size} bytes"),
            other => panic!("expected the close 1009 for {size} bytes, got {other:?}"),
        }
    }
    // 16 KiB exactly is still a message.
    let (mut client, _) = LiveClient::authenticated(&app, &token).await;
    let padding = "x".repeat(16 * 1024 - 40);
    let mut text = format!(r#"{{"action": "ping", "pad": "{padding}""#);
    text.push_str(&" ".repeat(16 * 1024 - 1 - text.len()));
    text.push('}');
    assert_eq!(text.len(), 16 * 1024);
    client
        .socket
        .send(Message::Text(text.into()))
        .await
        .unwrap();
    assert_eq!(
        client.next_of_type("pong", 5 * SECOND).await["type"],
        "pong"
    );
}

/// Issue 16 point 6: on an authenticated socket, a further `authenticate` with a token that
/// is not valid for its session (another user's logged-out one, another user's live one,
/// junk) closes with 4001 (it dropped the connection, 1006).
#[tokio::test]
async fn a_further_invalid_token_closes_with_4001() {
    let app = TestApp::spawn().await;
    let alice = app.user_with_token("alice").await;
    let bob = app.user_with_token("bob").await;
    let bob_old = app.login("bob").await;
    app.call_ok(
        Method::POST,
        "/api/auth/logout/",
        &bob_old,
        None,
        StatusCode::OK,
    )
    .await;
    for token in [bob_old.as_str(), bob.as_str(), "junk"] {
        let (mut client, _) = LiveClient::authenticated(&app, &alice).await;
        client
            .send(json!({"action": "authenticate", "token": token}))
            .await;
        match client.next_frame(5 * SECOND).await {
            Some(Frame::Json(v)) => assert_eq!(v["type"], "error", "{v}"),
            other => panic!("expected an error, got {other:?}"),
        }
        match client.next_frame(5 * SECOND).await {
            Some(Frame::Closed(code)) => assert_eq!(code, Some(4001), "{token}"),
            other => panic!("expected the close 4001, got {other:?}"),
        }
    }
    // And a logged-out token as the first message: error then 4001.
    let mut client = LiveClient::connect(&app).await;
    client
        .send(json!({"action": "authenticate", "token": bob_old}))
        .await;
    assert_eq!(client.next_json().await["type"], "error");
    match client.next_frame(5 * SECOND).await {
        Some(Frame::Closed(code)) => assert_eq!(code, Some(4001)),
        other => panic!("expected the close 4001, got {other:?}"),
    }
}

/// Issue 16 point 6: a binary frame is answered with an `error` (it was ignored silently)
/// and the socket stays open.
#[tokio::test]
async fn a_binary_frame_is_answered_with_an_error() {
    use futures::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let (mut client, _) = LiveClient::authenticated(&app, &token).await;
    client
        .socket
        .send(Message::Binary(b"{\"action\": \"ping\"}".to_vec().into()))
        .await
        .unwrap();
    let reply = client.next_of_type("error", 5 * SECOND).await;
    assert!(
        reply["error"].as_str().unwrap().contains("Binary"),
        "{reply}"
    );
    client.send(json!({"action": "ping"})).await;
    client.next_of_type("pong", 5 * SECOND).await;
}

#[test]
fn the_contract_names_each_message_and_refuses_others() {
    let server = crate::live::contract_schema("ServerMessage");
    assert!(server.is_valid(&json!({"type": "pong"})));
    assert!(server.is_valid(&json!({"type": "error", "error": "Invalid token"})));
    assert!(server.is_valid(&json!({"type": "authenticated", "user": {"id": 1, "username": "a"}})));
    // A type it does not name, a missing field, a field of the wrong kind.
    assert!(!server.is_valid(&json!({"type": "launch"})));
    assert!(!server.is_valid(&json!({"type": "error"})));
    assert!(!server.is_valid(&json!({"type": "orders", "data": [{"symbol": 1}]})));
    assert!(!server.is_valid(
        &json!({"type": "new_log", "data": {"id": 1, "timestamp": "t",
        "level": "debug", "message": "m"}})
    ));

    let client = crate::live::contract_schema("ClientMessage");
    assert!(client.is_valid(&json!({"action": "authenticate", "token": "t"})));
    assert!(client.is_valid(&json!({"action": "ping"})));
    assert!(!client.is_valid(&json!({"action": "authenticate"})));
    assert!(!client.is_valid(&json!({"action": "launch"})));
}
