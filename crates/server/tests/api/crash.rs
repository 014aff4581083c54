//! SIGKILL with open positions and an open martingale chain on the paper venue, then a
//! restart of the real binary on the same files: no trade is lost or duplicated, the stops
//! are still on the positions, and the worker goes on managing the chain.

use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::cli::{signaldesk, start_serve_with};
use crate::helpers::alert_body;

struct Api {
    base: String,
    token: String,
    client: Client,
}

impl Api {
    async fn login(addr: &str) -> Api {
        let client = Client::new();
        let base = format!("http://{addr}");
        let res = client
            .post(format!("{base}/api/auth/login/"))
            .json(&json!({"username": "trader", "password": "crash-test-pass"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let token = res.json::<Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string();
        Api {
            base,
            token,
            client,
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self
            .client
            .request(method.clone(), format!("{}{path}", self.base))
            .header("Authorization", format!("Token {}", self.token));
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        assert!(
            res.status().is_success(),
            "{method} {path}: {}",
            res.status()
        );
        res.json().await.unwrap_or(Value::Null)
    }

    async fn get(&self, path: &str) -> Value {
        self.call(reqwest::Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Option<Value>) -> Value {
        self.call(reqwest::Method::POST, path, body).await
    }

    /// An alert that changes `symbol` into a strong signal, so the bot enters.
    async fn enter(&self, webhook: &str, symbol: &str) {
        let signals = self.get("/api/signals/").await;
        let current = signals
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["symbol"] == symbol)
            .map(|s| s["recommendation"].as_str().unwrap().to_string())
            .unwrap_or_default();
        let new = if current == "STRONG_BUY" {
            "STRONG_SELL"
        } else {
            "STRONG_BUY"
        };
        let res = self
            .client
            .post(format!("{}{webhook}", self.base))
            .json(&alert_body(symbol, new))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::ACCEPTED);
    }

    async fn trades(&self) -> Vec<Value> {
        let mut all = self.get("/api/trades/?page_size=500").await["results"]
            .as_array()
            .unwrap()
            .clone();
        all.reverse();
        all
    }

    /// Polls until `check` holds on the trades (at most `wait`).
    async fn until(&self, wait: Duration, check: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + wait;
        loop {
            let trades = self.trades().await;
            if check(&trades) {
                return trades;
            }
            assert!(Instant::now() < deadline, "never held: {trades:#?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The server process, killed with SIGKILL when dropped: by the test on purpose, or by a
/// failing assertion's unwinding, so no server outlives the test.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sigkill(server: Server) {
    drop(server);
}

#[tokio::test]
async fn a_sigkilled_server_restarts_with_every_trade_once_its_stops_and_its_chain() {
    let dir = tempfile::tempdir().unwrap();
    let created = signaldesk(dir.path())
        .args([
            "user",
            "create",
            "--username",
            "trader",
            "--password",
            "crash-test-pass",
        ])
        .output()
        .unwrap();
    assert!(created.status.success());
    let quiet = [("SIGNALDESK_MARKET__SPEED", "1")];
    let (child, addr, _, _) = start_serve_with(dir.path(), &quiet);
    let child = Server(child);
    let api = Api::login(&addr).await;

    // 1x leverage, a 0.5 % stop, no trailing, take profit far away: a position lasts until
    // the market moves half a percent against it.
    let id = api.get("/api/bot-settings/").await[0]["id"]
        .as_i64()
        .unwrap();
    let settings = json!({
        "bot_mode": "martingale", "leverage": 1, "initial_stop_loss_pct": 0.5,
        "use_trailing_stop": false, "take_profit_first_pct": 50, "take_profit_next_pct": 50,
        "martingale_initial_margin": 100, "martingale_max_depth": 4, "max_total_usdt": 5000,
    });
    api.call(
        reqwest::Method::PUT,
        &format!("/api/bot-settings/{id}/"),
        Some(settings),
    )
    .await;
    let key = api
        .post(
            "/api/api-keys/",
            Some(json!({"key": "k", "secret": "s", "is_demo": true, "exchange": "paper"})),
        )
        .await;
    api.post(&format!("/api/api-keys/{}/set_active/", key["id"]), None)
        .await;
    api.post("/api/command/bot/start/", None).await;
    let webhook = api.post("/api/webhook/", None).await["path"]
        .as_str()
        .unwrap()
        .to_string();

    // A martingale chain on BTC, then a classic trade on ETH.
    api.enter(&webhook, "BTCUSDT").await;
    api.until(Duration::from_secs(10), |t| t.len() == 1).await;
    api.call(
        reqwest::Method::PUT,
        &format!("/api/bot-settings/{id}/"),
        Some(json!({"bot_mode": "classic"})),
    )
    .await;
    api.enter(&webhook, "ETHUSDT").await;
    let before = api
        .until(Duration::from_secs(10), |t| {
            t.len() == 2 && t.iter().all(|x| x["status"] == "OPEN")
        })
        .await;
    let chain = before[0]["chain_id"].as_i64().expect("a martingale trade");
    assert_eq!(before[1]["chain_id"], Value::Null);
    // Let the paper exchange's writer store the accounts, then kill without warning.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    sigkill(child);

    // The market now runs at 600x, so the BTC stop is soon reached.
    let fast = [("SIGNALDESK_MARKET__SPEED", "600")];
    let (child, addr, _, log) = start_serve_with(dir.path(), &fast);
    let child = Server(child);
    let api = Api::login(&addr).await;
    let status = api.get("/api/bot/status/").await;
    assert_eq!(status["is_bot_running"], true);
    assert_eq!(status["trading_worker"], "running");
    assert_eq!(status["active_chains"], 1);
    // The same two trades, once each. (At 600x the ratings move and the bot may already be
    // entering other symbols: those are new trades, not copies.)
    let after = api.trades().await;
    let ids = |t: &[Value]| {
        t.iter()
            .map(|x| x["id"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&after[..2]), ids(&before), "the same trades first");
    for symbol in ["BTCUSDT", "ETHUSDT"] {
        let open = after
            .iter()
            .filter(|t| t["symbol"] == symbol && t["status"] != "CLOSED")
            .count();
        assert!(open <= 1, "{symbol} held once: {after:#?}");
    }

    // Both positions still carry their stop loss on the venue (read through the live feed),
    // or, if the 600x market already reached it, the stop closed the trade.
    let orders = live_orders(&addr, &api.token).await;
    for (before_trade, symbol) in before.iter().zip(["BTCUSDT", "ETHUSDT"]) {
        match orders.iter().find(|p| p["symbol"] == symbol) {
            Some(position) => assert!(position["stop_loss"].as_f64().is_some(), "{position}"),
            None => {
                let now = api
                    .until(Duration::from_secs(10), |t| {
                        t.iter()
                            .any(|x| x["id"] == before_trade["id"] && x["status"] == "CLOSED")
                    })
                    .await;
                let trade = now.iter().find(|t| t["id"] == before_trade["id"]).unwrap();
                assert_eq!(trade["close_reason"], "stop_loss", "{trade}");
            }
        }
    }

    // The worker manages the chain on: its first trade closes and the chain either takes
    // its next step (a loss) or ends won.
    let chain_moved = api
        .until(Duration::from_secs(120), |t| {
            let first = t.iter().find(|x| x["id"] == before[0]["id"]).unwrap();
            first["status"] == "CLOSED"
        })
        .await;
    let first = chain_moved
        .iter()
        .find(|x| x["id"] == before[0]["id"])
        .unwrap();
    if first["pnl"].as_f64().unwrap() <= 0.0 {
        let stepped = api
            .until(Duration::from_secs(10), |t| {
                t.iter()
                    .any(|x| x["chain_id"] == chain && x["chain_step"] == 2)
            })
            .await;
        let step2 = stepped.iter().find(|x| x["chain_step"] == 2).unwrap();
        assert_eq!(step2["symbol"], "BTCUSDT");
    } else {
        assert_eq!(api.get("/api/bot/status/").await["active_chains"], 0);
    }
    let logs = log.lock().unwrap().join("\n");
    assert!(!logs.contains("panicked"), "no panic in the log");
    let bot_log = api.get("/api/logs/?limit=1000").await;
    assert!(
        !bot_log.to_string().contains("adopted"),
        "nothing was adopted: the store knew every position"
    );
    sigkill(child);
}

/// The open positions, from `get_trades` on the websocket.
async fn live_orders(addr: &str, token: &str) -> Vec<Value> {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws/dashboard/"))
        .await
        .unwrap();
    let send = |v: Value| Message::Text(v.to_string().into());
    socket
        .send(send(json!({"action": "authenticate", "token": token})))
        .await
        .unwrap();
    socket
        .send(send(json!({"action": "get_trades"})))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let Ok(Some(Ok(Message::Text(text)))) =
            tokio::time::timeout(Duration::from_secs(5), socket.next()).await
        else {
            continue;
        };
        let message: Value = serde_json::from_str(text.as_str()).unwrap();
        if message["type"] == "orders" {
            return message["data"].as_array().unwrap().clone();
        }
    }
    panic!("no orders message");
}
