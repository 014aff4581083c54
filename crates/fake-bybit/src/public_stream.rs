//! The public websocket `/v5/public/linear`, no keys: `subscribe` and `unsubscribe` to
//! `tickers.{symbol}` and `kline.{interval}.{symbol}`, `ping` answered as Bybit answers it on
//! linear public streams, a `tickers` snapshot on subscribe and deltas after each price, and
//! the open candle with `confirm: false` as prices move, `confirm: true` once it closed. A
//! connection ends when the test drops the streams.
//!
//! ws/connect (docs/v5/websocket/wss-authentication.mdx), linear/inverse answers:
//! subscribe `{"success":true,"ret_msg":"","conn_id":"…","req_id":"","op":"subscribe"}`,
//! ping `{"success":true,"ret_msg":"pong","conn_id":"…","req_id":"","op":"ping"}`.
//! Refusals are undocumented; the fake answers as Bybit's public linear stream was recorded
//! answering (a third-party probe of stream.bybit.com, 2026-09): an unknown topic, book
//! depth or symbol (symbols are case-sensitive) `error:handler not found,topic:<topic>` (an
//! unknown kline interval likewise, by the fake's reading; older clients saw `Invalid symbol
//! :[<topic>]`), a topic subscribed twice `error:already subscribed,topic:<topic>`, an
//! unknown op `error:invalid op`, a frame that is not JSON `Failed to decode incoming data:
//! …` (the socket stays open). A request with one refused topic subscribes none of its
//! topics and names the first refused one (how clients that recover from it read Bybit's
//! answer; not documented either).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::error::RecvError;

use crate::market::{interval_minutes, MarketPush};
use crate::Shared;

static CONNECTIONS: AtomicU64 = AtomicU64::new(0);

pub async fn upgrade(State(shared): State<Arc<Shared>>, ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(move |socket| serve(shared, socket))
}

struct Session {
    shared: Arc<Shared>,
    conn_id: String,
    /// Subscribed topics, each with the push sequence its subscription's snapshot holds.
    topics: HashMap<String, u64>,
    /// The ticker last sent per symbol: deltas carry what changed since.
    tickers_sent: HashMap<String, Map<String, Value>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        for topic in self.topics.keys() {
            state.market.unwatch(topic);
        }
    }
}

async fn serve(shared: Arc<Shared>, mut socket: WebSocket) {
    let mut generation = shared.generation.subscribe();
    let born = *generation.borrow_and_update();
    let mut pushes = shared.market_pushes.subscribe();
    shared.lock().stats.public_ws_connections += 1;
    let n = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
    let mut session = Session {
        shared: shared.clone(),
        conn_id: format!("fake-public-{}-{n}", shared.now_ms()),
        topics: HashMap::new(),
        tickers_sent: HashMap::new(),
    };
    loop {
        tokio::select! {
            _ = generation.changed() => {
                // A network drop: the socket just goes away.
                return;
            }
            push = pushes.recv() => match push {
                Ok(push) => {
                    // A push published after a drop must not reach a dropped connection.
                    if *generation.borrow() != born {
                        return;
                    }
                    let Some(text) = session.message(push) else { continue };
                    if socket.send(Message::Text(text.to_string().into())).await.is_err() {
                        return;
                    }
                }
                // A ticker push carries the whole ticker, so the next one still sends all
                // that changed.
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            },
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(text))) => {
                    for reply in session.on_request(text.as_str()) {
                        if socket.send(Message::Text(reply.to_string().into())).await.is_err() {
                            return;
                        }
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}

/// A valid topic of the linear public stream, if the fake serves it: its symbol must be an
/// instrument of the fake.
fn known_topic(shared: &Shared, topic: &str) -> bool {
    let parts: Vec<&str> = topic.split('.').collect();
    let symbol = match parts.as_slice() {
        ["tickers", symbol] => symbol,
        ["kline", interval, symbol] if interval_minutes(interval).is_some() => symbol,
        _ => return false,
    };
    shared
        .lock()
        .exchange
        .instruments
        .iter()
        .any(|i| i.symbol == *symbol)
}

impl Session {
    fn ack(&self, op: &str, req_id: &Value, success: bool, ret_msg: &str) -> Value {
        json!({
            "success": success, "ret_msg": ret_msg, "conn_id": self.conn_id,
            "req_id": req_id, "op": op,
        })
    }

    /// The frame a push becomes on this connection, if it is for it.
    fn message(&mut self, push: MarketPush) -> Option<Value> {
        let since = *self.topics.get(&push.topic())?;
        if push.seq() <= since {
            return None; // the subscription's snapshot holds it already
        }
        match push {
            MarketPush::Ticker {
                symbol,
                seq,
                ts,
                fields,
            } => {
                // websocket/public/ticker: "This topic utilises the snapshot field and delta
                // field. If a response param is not found in the message, then its value has
                // not changed."
                let (kind, data) = match self.tickers_sent.get(&symbol) {
                    None => ("snapshot", fields.clone()),
                    Some(sent) => {
                        let delta: Map<String, Value> = fields
                            .iter()
                            .filter(|(k, v)| sent.get(*k) != Some(*v))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        if delta.is_empty() {
                            return None;
                        }
                        let mut data = delta;
                        data.insert("symbol".into(), json!(symbol));
                        ("delta", data)
                    }
                };
                let topic = format!("tickers.{symbol}");
                self.tickers_sent.insert(symbol, fields);
                Some(json!({"topic": topic, "type": kind, "data": data, "cs": seq, "ts": ts}))
            }
            // websocket/public/kline: `type` "snapshot", `data` an array of candles.
            MarketPush::Kline {
                topic, ts, data, ..
            } => Some(json!({"topic": topic, "data": data, "ts": ts, "type": "snapshot"})),
        }
    }

    /// The answers to one request frame: the acknowledgement, then any snapshots.
    fn on_request(&mut self, text: &str) -> Vec<Value> {
        let request = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(request)) => request,
            Ok(_) => {
                return vec![json!({
                    "success": false, "ret_msg": "Failed to decode incoming data: not an object",
                    "conn_id": self.conn_id,
                })]
            }
            Err(e) => {
                return vec![json!({
                    "success": false, "ret_msg": format!("Failed to decode incoming data: {e}"),
                    "conn_id": self.conn_id,
                })]
            }
        };
        let req_id = request.get("req_id").cloned().unwrap_or(json!(""));
        let op = request.get("op").and_then(Value::as_str).unwrap_or("");
        let args: Vec<String> = request
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        match op {
            "ping" => {
                self.shared.lock().stats.public_ws_pings += 1;
                vec![self.ack("ping", &req_id, true, "pong")]
            }
            "subscribe" => self.subscribe(&req_id, &args),
            "unsubscribe" => {
                let mut state = self.shared.lock();
                for topic in &args {
                    if self.topics.remove(topic).is_some() {
                        state.market.unwatch(topic);
                    }
                }
                drop(state);
                vec![self.ack("unsubscribe", &req_id, true, "")]
            }
            other => vec![self.ack(other, &req_id, false, "error:invalid op")],
        }
    }

    fn subscribe(&mut self, req_id: &Value, topics: &[String]) -> Vec<Value> {
        self.shared.lock().stats.public_ws_subscribes += 1;
        for (i, topic) in topics.iter().enumerate() {
            let refusal = if self.topics.contains_key(topic) || topics[..i].contains(topic) {
                Some("already subscribed")
            } else if topic.starts_with("kline.M.") {
                // A topic Bybit has, which the fake does not serve: said so.
                Some("the fake keeps no monthly klines")
            } else if !known_topic(&self.shared, topic) {
                Some("handler not found")
            } else {
                None
            };
            if let Some(why) = refusal {
                let msg = format!("error:{why},topic:{topic}");
                return vec![self.ack("subscribe", req_id, false, &msg)];
            }
        }
        let mut replies = vec![self.ack("subscribe", req_id, true, "")];
        let now = self.shared.now_ms();
        let mut state = self.shared.lock();
        let crate::State {
            exchange, market, ..
        } = &mut *state;
        for topic in topics {
            let parts: Vec<&str> = topic.split('.').collect();
            let snapshot = match parts.as_slice() {
                ["tickers", symbol] => market.ws_ticker(exchange, symbol, now).map(|fields| {
                    self.tickers_sent.insert(symbol.to_string(), fields.clone());
                    json!({
                        "topic": topic, "type": "snapshot", "data": fields,
                        "cs": market.seq(), "ts": now,
                    })
                }),
                ["kline", interval, symbol] => {
                    let minutes = interval_minutes(interval).unwrap_or(1);
                    // A candle whose time is over closes before the open one is sent.
                    if let Some(push) = market.roll(symbol, minutes, now) {
                        let _ = self.shared.market_pushes.send(push);
                    }
                    market.kline_snapshot(symbol, minutes).map(
                        |data| json!({"topic": topic, "data": data, "ts": now, "type": "snapshot"}),
                    )
                }
                _ => None,
            };
            market.watch(topic);
            self.topics.insert(topic.clone(), market.seq());
            replies.extend(snapshot);
        }
        replies
    }
}
