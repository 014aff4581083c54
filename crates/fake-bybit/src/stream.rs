//! The private websocket `/v5/private`: `auth` (`args = [api key, expires, signature]`),
//! `subscribe` to `order`, `execution`, `position` and `wallet`, `ping` answered with
//! `pong`, and the account's pushes `{"id","topic","creationTime","data"}` for the
//! subscribed topics. A connection ends when the test drops the streams.

use std::collections::HashSet;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use crate::{auth, Shared};

const TOPICS: [&str; 4] = ["order", "execution", "position", "wallet"];

pub async fn upgrade(State(shared): State<Arc<Shared>>, ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(move |socket| serve(shared, socket))
}

struct Session {
    conn_id: String,
    key: Option<String>,
    topics: HashSet<String>,
}

async fn serve(shared: Arc<Shared>, mut socket: WebSocket) {
    let mut generation = shared.generation.subscribe();
    let born = *generation.borrow_and_update();
    let mut pushes = shared.pushes.subscribe();
    let mut session = Session {
        conn_id: format!("fake-{}", shared.now_ms()),
        key: None,
        topics: HashSet::new(),
    };
    let mut seq = 0u64;
    loop {
        tokio::select! {
            _ = generation.changed() => {
                // A network drop: the socket just goes away.
                return;
            }
            push = pushes.recv() => match push {
                Ok((key, push)) => {
                    // A push published after a drop must not reach a dropped connection.
                    if *generation.borrow() != born {
                        return;
                    }
                    let mine = session.key.as_deref() == Some(key.as_str());
                    if mine && session.topics.contains(push.topic) {
                        seq += 1;
                        let text = json!({
                            "id": format!("{}-{seq}", session.conn_id),
                            "topic": push.topic,
                            "creationTime": shared.now_ms(),
                            "data": push.data,
                        });
                        if socket.send(Message::Text(text.to_string().into())).await.is_err() {
                            return;
                        }
                    }
                }
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            },
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let reply = on_request(&shared, &mut session, text.as_str());
                    if socket.send(Message::Text(reply.to_string().into())).await.is_err() {
                        return;
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}

fn ack(session: &Session, op: &str, req_id: &Value, success: bool, ret_msg: &str) -> Value {
    json!({
        "success": success, "ret_msg": ret_msg, "op": op, "conn_id": session.conn_id,
        "req_id": req_id,
    })
}

fn on_request(shared: &Arc<Shared>, session: &mut Session, text: &str) -> Value {
    let Ok(request) = serde_json::from_str::<Value>(text) else {
        return json!({"success": false, "ret_msg": "error request", "conn_id": session.conn_id});
    };
    let req_id = request.get("req_id").cloned().unwrap_or(Value::Null);
    let op = request.get("op").and_then(Value::as_str).unwrap_or("");
    let args: Vec<Value> = request
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    match op {
        "ping" => {
            shared.lock().stats.ws_pings += 1;
            json!({
                "req_id": req_id, "op": "pong", "args": [shared.now_ms().to_string()],
                "conn_id": session.conn_id,
            })
        }
        "auth" => {
            shared.lock().stats.ws_auths += 1;
            match authenticate(shared, &args) {
                Ok(key) => {
                    session.key = Some(key);
                    ack(session, "auth", &req_id, true, "")
                }
                Err(msg) => ack(session, "auth", &req_id, false, &msg),
            }
        }
        "subscribe" => {
            if session.key.is_none() {
                return ack(
                    session,
                    "subscribe",
                    &req_id,
                    false,
                    "Request not authorized",
                );
            }
            shared.lock().stats.ws_subscribes += 1;
            for topic in args.iter().filter_map(Value::as_str) {
                if !TOPICS.contains(&topic) {
                    return ack(
                        session,
                        "subscribe",
                        &req_id,
                        false,
                        &format!("error:handler not found,topic:{topic}"),
                    );
                }
                session.topics.insert(topic.to_string());
            }
            ack(session, "subscribe", &req_id, true, "")
        }
        other => ack(session, other, &req_id, false, "error:unknown op"),
    }
}

fn authenticate(shared: &Arc<Shared>, args: &[Value]) -> Result<String, String> {
    let [key, expires, sign] = args else {
        return Err("Params Error".into());
    };
    let key = key.as_str().ok_or("Params Error")?;
    // Bybit's example sends expires as a number; a numeric string is accepted too.
    let expires = expires
        .as_i64()
        .or_else(|| expires.as_str().and_then(|s| s.parse().ok()))
        .ok_or("Params Error")?;
    let sign = sign.as_str().ok_or("Params Error")?;
    let secret = {
        let state = shared.lock();
        let spec = state
            .keys
            .get(key)
            .ok_or_else(|| "API key is invalid.".to_string())?;
        if !spec.ip_allowed {
            return Err("Unmatched IP, please check your API key's bound IP addresses.".into());
        }
        spec.secret.clone()
    };
    auth::verify_ws_auth(&secret, expires, sign, shared.now_ms())?;
    Ok(key.to_string())
}
