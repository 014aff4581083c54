//! A websocket client of `/ws/dashboard/` for the tests, on tokio-tungstenite. Every message it
//! receives must match the OpenAPI document's `ServerMessage`, the contract the web app is
//! typed from, so each websocket test also proves the contract holds.

use std::sync::LazyLock;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::helpers::TestApp;

/// A validator for one schema of the OpenAPI document (`#/components/schemas/{name}`).
pub fn contract_schema(name: &str) -> jsonschema::Validator {
    let document = signaldesk_server::router::document();
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": document["components"],
    });
    jsonschema::validator_for(&schema).expect("the document's schemas compile")
}

static SERVER_MESSAGE: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| contract_schema("ServerMessage"));

/// Fails the test when `message` is not a `ServerMessage` of the document.
fn assert_in_contract(message: &Value) {
    let errors: Vec<String> = SERVER_MESSAGE
        .iter_errors(message)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "a frame outside the ServerMessage contract: {message}\n{}",
        errors.join("\n")
    );
}

pub struct LiveClient {
    pub socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// What the next frame was.
#[derive(Debug)]
pub enum Frame {
    Json(Value),
    Closed(Option<u16>),
}

impl LiveClient {
    /// Connects without any credential.
    pub async fn connect(app: &TestApp) -> LiveClient {
        LiveClient::connect_with(app, &[]).await
    }

    /// Connects with extra upgrade headers (a cookie, an origin).
    pub async fn connect_with(app: &TestApp, headers: &[(&str, &str)]) -> LiveClient {
        let url = format!("{}/ws/dashboard/", app.base.replacen("http", "ws", 1));
        let mut request = url.into_client_request().unwrap();
        for (name, value) in headers {
            let name =
                tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes())
                    .unwrap();
            request.headers_mut().insert(name, value.parse().unwrap());
        }
        let (socket, _) = tokio_tungstenite::connect_async(request)
            .await
            .expect("websocket upgrade");
        LiveClient { socket }
    }

    /// Connects and authenticates with `token`; returns the client after `authenticated`
    /// and the four snapshot messages, which it also returns.
    pub async fn authenticated(app: &TestApp, token: &str) -> (LiveClient, Vec<Value>) {
        let mut client = LiveClient::connect(app).await;
        client
            .send(json!({"action": "authenticate", "token": token}))
            .await;
        let mut first = Vec::new();
        for _ in 0..5 {
            first.push(client.next_json().await);
        }
        (client, first)
    }

    pub async fn send(&mut self, message: Value) {
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
    }

    /// The next text message or close, within `wait`; `None` if nothing came.
    pub async fn next_frame(&mut self, wait: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .ok()?;
            match frame {
                Some(Ok(Message::Text(text))) => {
                    let message = serde_json::from_str(text.as_str()).unwrap();
                    assert_in_contract(&message);
                    return Some(Frame::Json(message));
                }
                Some(Ok(Message::Close(frame))) => {
                    return Some(Frame::Closed(frame.map(|f| u16::from(f.code))))
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Some(Frame::Closed(None)),
            }
        }
    }

    /// The next JSON message (within 5 s), failing on anything else.
    pub async fn next_json(&mut self) -> Value {
        match self.next_frame(Duration::from_secs(5)).await {
            Some(Frame::Json(value)) => value,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// The next message of `kind` (within `wait`), skipping others.
    pub async fn next_of_type(&mut self, kind: &str, wait: Duration) -> Value {
        self.next_where(kind, wait, |_| true).await
    }

    /// The next message of `kind` that `accept` takes (within `wait`), skipping others.
    pub async fn next_where(
        &mut self,
        kind: &str,
        wait: Duration,
        accept: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_frame(left).await {
                Some(Frame::Json(value)) if value["type"] == kind && accept(&value) => {
                    return value
                }
                Some(Frame::Json(_)) => continue,
                other => panic!("no {kind} message: {other:?}"),
            }
        }
    }

    /// Everything that arrives within `wait`.
    pub async fn drain(&mut self, wait: Duration) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut all = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_frame(left).await {
                Some(Frame::Json(value)) => all.push(value),
                _ => return all,
            }
        }
    }
}
