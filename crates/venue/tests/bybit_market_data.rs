//! Bybit V5 public market data against a local fake Bybit on 127.0.0.1 that answers in the
//! documented shapes (REST /v5/market/kline, /tickers, /instruments-info and the public
//! linear websocket). Nothing here reaches the internet.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::response::Response;
use axum::routing::{any, get};
use axum::{Json, Router};
use rust_decimal_macros::dec;
use serde_json::{json, Value};
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_venue::bybit::{BybitMarketConfig, BybitMarketData};
use signaldesk_venue::market::{MarketData, MarketEvent};
use signaldesk_venue::VenueError;

const NOW: i64 = 1_750_000_500_000;
const MIN15: i64 = 900_000;
const SERIES: usize = 1200;

#[derive(Default)]
struct Fake {
    ws_connections: AtomicUsize,
    ws_received: Mutex<Vec<Value>>,
    kline_queries: Mutex<Vec<HashMap<String, String>>>,
}

/// The fake's 15-minute series: index 0 oldest, the last one still open at NOW.
fn candle(i: usize) -> (i64, String, String, String, String, String) {
    let open_start = NOW - NOW % MIN15;
    let start = open_start - (SERIES - 1 - i) as i64 * MIN15;
    let o = 1000 + i;
    (
        start,
        o.to_string(),
        (o + 5).to_string(),
        (o - 5).to_string(),
        format!("{}.5", o + 1),
        "12.345".into(),
    )
}

fn envelope(code: i64, msg: &str, result: Value) -> Json<Value> {
    Json(json!({"retCode": code, "retMsg": msg, "result": result, "retExtInfo": {}, "time": NOW}))
}

async fn kline(
    State(fake): State<Arc<Fake>>,
    Query(q): Query<HashMap<String, String>>,
) -> Json<Value> {
    fake.kline_queries.lock().unwrap().push(q.clone());
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    if get("category") != "linear" || get("interval") != "15" {
        return envelope(10001, "params error", json!({}));
    }
    match get("symbol").as_str() {
        "BTCUSDT" => {}
        "BUSYUSDT" => return envelope(10006, "Too many visits!", json!({})),
        _ => return envelope(10001, "params error: symbol invalid", json!({})),
    }
    let limit: usize = get("limit").parse().unwrap_or(200).min(1000);
    let end: i64 = get("end").parse().unwrap_or(i64::MAX);
    let rows: Vec<Value> = (0..SERIES)
        .rev()
        .map(candle)
        .filter(|c| c.0 <= end)
        .take(limit)
        .map(|(s, o, h, l, c, v)| json!([s.to_string(), o, h, l, c, v, "1000.0"]))
        .collect();
    envelope(
        0,
        "OK",
        json!({"symbol": "BTCUSDT", "category": "linear", "list": rows}),
    )
}

async fn tickers(Query(q): Query<HashMap<String, String>>) -> Json<Value> {
    let list = if q.get("symbol").map(String::as_str) == Some("BTCUSDT") {
        json!([{"symbol": "BTCUSDT", "lastPrice": "91234.5", "markPrice": "91230.1",
                "indexPrice": "91228.0", "price24hPcnt": "0.012", "bid1Price": "91234.4",
                "ask1Price": "91234.5", "volume24h": "50000.123"}])
    } else {
        json!([])
    };
    envelope(0, "OK", json!({"category": "linear", "list": list}))
}

fn instrument(symbol: &str, status: &str, contract: &str, tick: &str, step: &str) -> Value {
    json!({
        "symbol": symbol, "contractType": contract, "status": status,
        "baseCoin": symbol.trim_end_matches("USDT"), "quoteCoin": "USDT", "settleCoin": "USDT",
        "priceScale": "2",
        "leverageFilter": {"minLeverage": "1", "maxLeverage": "100.00", "leverageStep": "0.01"},
        "priceFilter": {"minPrice": "0.10", "maxPrice": "1999999.80", "tickSize": tick},
        "lotSizeFilter": {"maxOrderQty": "1190.000", "minOrderQty": step, "qtyStep": step,
                          "postOnlyMaxOrderQty": "1190.000", "maxMktOrderQty": "500.000",
                          "minNotionalValue": "5"}
    })
}

async fn instruments_info(Query(q): Query<HashMap<String, String>>) -> Json<Value> {
    let (list, next) = match q.get("cursor").map(String::as_str) {
        None => (
            json!([
                instrument("BTCUSDT", "Trading", "LinearPerpetual", "0.10", "0.001"),
                instrument("ETHUSDT", "Trading", "LinearPerpetual", "0.01", "0.01"),
                instrument("BTC-26DEC25", "Trading", "LinearFutures", "0.50", "0.001"),
            ]),
            "page-2",
        ),
        Some("page-2") => (
            json!([
                instrument("SOLUSDT", "Trading", "LinearPerpetual", "0.010", "0.1"),
                instrument("NEWUSDT", "PreLaunch", "LinearPerpetual", "0.0001", "1"),
            ]),
            "",
        ),
        Some(_) => (json!([]), ""),
    };
    envelope(
        0,
        "OK",
        json!({"category": "linear", "list": list, "nextPageCursor": next}),
    )
}

async fn ws_upgrade(ws: WebSocketUpgrade, State(fake): State<Arc<Fake>>) -> Response {
    ws.on_upgrade(move |socket| ws_session(socket, fake))
}

async fn send(socket: &mut WebSocket, v: Value) -> bool {
    socket
        .send(Message::Text(v.to_string().into()))
        .await
        .is_ok()
}

/// A kline push of the fake's candle `i`.
fn kline_push(i: usize, confirm: bool) -> Value {
    let (start, o, h, l, c, v) = candle(i);
    json!({"topic": "kline.15.BTCUSDT", "type": "snapshot", "ts": NOW, "data": [{
        "start": start, "end": start + MIN15 - 1, "interval": "15",
        "open": o, "close": c, "high": h, "low": l, "volume": v, "turnover": "1000.0",
        "confirm": confirm, "timestamp": NOW}]})
}

/// The fake's candle `i` as the client should publish it.
fn expected(i: usize) -> MarketEvent {
    let (start, ..) = candle(i);
    let o = rust_decimal::Decimal::from(1000 + i as i64);
    MarketEvent::CandleClosed {
        symbol: "BTCUSDT".into(),
        interval_minutes: 15,
        candle: Candle {
            open_time_ms: start,
            open: o,
            high: o + dec!(5),
            low: o - dec!(5),
            close: o + dec!(1.5),
            volume: dec!(12.345),
        },
    }
}

fn ticker_push(kind: &str, last_price: Option<&str>) -> Value {
    let mut data =
        json!({"symbol": "BTCUSDT", "tickDirection": "PlusTick", "markPrice": "91000.0"});
    if let Some(p) = last_price {
        data["lastPrice"] = json!(p);
    }
    json!({"topic": "tickers.BTCUSDT", "type": kind, "data": data, "cs": 1, "ts": NOW})
}

async fn ws_session(mut socket: WebSocket, fake: Arc<Fake>) {
    let connection = fake.ws_connections.fetch_add(1, Ordering::SeqCst);
    while let Some(Ok(msg)) = socket.recv().await {
        let Message::Text(text) = msg else { continue };
        let request: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
        fake.ws_received.lock().unwrap().push(request.clone());
        let op = request["op"].as_str().unwrap_or_default().to_string();
        let ack = json!({"success": true, "ret_msg": if op == "ping" { "pong" } else { "" },
                         "conn_id": "fake", "req_id": request["req_id"], "op": op});
        if !send(&mut socket, ack).await {
            return;
        }
        match (op.as_str(), connection) {
            ("subscribe", 0) => {
                send(&mut socket, ticker_push("snapshot", Some("91000.5"))).await;
                send(&mut socket, kline_push(1195, false)).await;
                send(&mut socket, kline_push(1195, true)).await;
                // The first connection drops: the client must reconnect and resubscribe.
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
            ("subscribe", _) => {
                // 1195 again (already published), then 1198: 1196 and 1197 were missed.
                send(&mut socket, kline_push(1195, true)).await;
                send(&mut socket, kline_push(1198, true)).await;
                send(&mut socket, ticker_push("snapshot", Some("91001.0"))).await;
            }
            ("ping", _) => {
                send(&mut socket, ticker_push("delta", None)).await;
                send(&mut socket, ticker_push("delta", Some("91002.5"))).await;
            }
            _ => {}
        }
    }
}

async fn fake_bybit() -> (String, Arc<Fake>) {
    let fake = Arc::new(Fake::default());
    let app = Router::new()
        .route("/v5/market/kline", get(kline))
        .route("/v5/market/tickers", get(tickers))
        .route("/v5/market/instruments-info", get(instruments_info))
        .route("/v5/public/linear", any(ws_upgrade))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (addr.to_string(), fake)
}

fn client(addr: &str) -> BybitMarketData {
    BybitMarketData::new(BybitMarketConfig {
        rest_url: format!("http://{addr}"),
        ws_url: format!("ws://{addr}/v5/public/linear"),
        symbols: vec!["BTCUSDT".into(), "ETHUSDT".into(), "SOLUSDT".into()],
        interval_minutes: 15,
        ping_interval: Duration::from_millis(150),
        reconnect_min: Duration::from_millis(20),
        reconnect_max: Duration::from_millis(200),
        ..BybitMarketConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn history_pages_back_and_drops_the_open_candle() {
    let (addr, fake) = fake_bybit().await;
    let md = client(&addr);
    let h = md.history("BTCUSDT", 15, 1100).await.unwrap();
    assert_eq!(h.len(), 1100);
    for pair in h.windows(2) {
        assert_eq!(pair[1].open_time_ms - pair[0].open_time_ms, MIN15);
    }
    // The newest closed candle is index 1198 (1199 is still open at NOW).
    let (start, ..) = candle(1198);
    assert_eq!(
        h.last().unwrap(),
        &Candle {
            open_time_ms: start,
            open: dec!(2198),
            high: dec!(2203),
            low: dec!(2193),
            close: dec!(2199.5),
            volume: dec!(12.345),
        }
    );
    assert_eq!(h[0].open_time_ms, candle(99).0);
    let queries = fake.kline_queries.lock().unwrap().clone();
    assert_eq!(queries.len(), 2);
    assert_eq!(queries[0]["limit"], "1000");
    assert_eq!(queries[0]["category"], "linear");
    assert_eq!(queries[1]["limit"], "101");
    assert_eq!(queries[1]["end"], (candle(200).0 - 1).to_string());

    let five = md.history("BTCUSDT", 15, 5).await.unwrap();
    assert_eq!(five, h[h.len() - 5..].to_vec());
    assert!(matches!(
        md.history("BTCUSDT", 7, 5).await.unwrap_err(),
        VenueError::InvalidRequest(_)
    ));
}

#[tokio::test]
async fn exchange_errors_read_as_trader_errors() {
    let (addr, _) = fake_bybit().await;
    let md = client(&addr);
    assert_eq!(
        md.history("BADUSDT", 15, 5).await.unwrap_err(),
        VenueError::Exchange {
            code: 10001,
            message: "params error: symbol invalid".into()
        }
    );
    assert_eq!(
        md.history("BUSYUSDT", 15, 5).await.unwrap_err(),
        VenueError::RateLimited {
            retry_after_ms: None
        }
    );
    let nowhere = BybitMarketData::new(BybitMarketConfig {
        rest_url: "http://127.0.0.1:1".into(),
        ..BybitMarketConfig::default()
    })
    .unwrap();
    assert!(matches!(
        nowhere.last_price("BTCUSDT").await.unwrap_err(),
        VenueError::Network(_)
    ));
}

#[tokio::test]
async fn instruments_and_ticker_prices() {
    let (addr, _) = fake_bybit().await;
    let md = client(&addr);
    let list = md.instruments().await.unwrap();
    let symbols: Vec<&str> = list.iter().map(|i| i.symbol.as_str()).collect();
    assert_eq!(symbols, ["BTCUSDT", "ETHUSDT", "SOLUSDT"]);
    assert_eq!(
        list[0],
        Instrument {
            symbol: "BTCUSDT".into(),
            tick_size: dec!(0.1),
            qty_step: dec!(0.001),
            min_qty: dec!(0.001),
            min_notional: dec!(5),
            max_leverage: 100,
        }
    );
    assert_eq!(md.last_price("BTCUSDT").await.unwrap(), dec!(91234.5));
    assert_eq!(
        md.last_price("FOOUSDT").await.unwrap_err(),
        VenueError::UnknownSymbol("FOOUSDT".into())
    );
}

async fn next_event(rx: &mut tokio::sync::broadcast::Receiver<MarketEvent>) -> MarketEvent {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("an event within 10 s")
        .unwrap()
}

#[tokio::test]
async fn websocket_ticks_closed_candles_ping_reconnect_and_backfill() {
    let (addr, fake) = fake_bybit().await;
    let md = client(&addr);
    let mut rx = md.subscribe();
    let stream = md.start();

    let tick = |p| MarketEvent::Tick {
        symbol: "BTCUSDT".into(),
        price: p,
        ts_ms: NOW,
    };
    assert_eq!(next_event(&mut rx).await, tick(dec!(91000.5)));
    // The confirm=false push is not a closed candle; the confirm=true one is.
    assert_eq!(next_event(&mut rx).await, expected(1195));
    // The server dropped the connection; the client came back and subscribed again. The
    // repeated 1195 is dropped; 1196 and 1197, missed meanwhile, come from REST before 1198.
    for i in [1196, 1197, 1198] {
        assert_eq!(next_event(&mut rx).await, expected(i));
    }
    assert_eq!(next_event(&mut rx).await, tick(dec!(91001.0)));
    // A ping was answered; a delta without lastPrice moves nothing.
    assert_eq!(next_event(&mut rx).await, tick(dec!(91002.5)));
    assert_eq!(md.last_price("BTCUSDT").await.unwrap(), dec!(91002.5));
    stream.abort();

    assert!(fake.ws_connections.load(Ordering::SeqCst) >= 2);
    let received = fake.ws_received.lock().unwrap().clone();
    let subscribes: Vec<&Value> = received.iter().filter(|r| r["op"] == "subscribe").collect();
    assert!(subscribes.len() >= 2);
    for s in &subscribes[..2] {
        assert_eq!(
            s["args"],
            json!([
                "tickers.BTCUSDT",
                "kline.15.BTCUSDT",
                "tickers.ETHUSDT",
                "kline.15.ETHUSDT",
                "tickers.SOLUSDT",
                "kline.15.SOLUSDT"
            ])
        );
    }
    assert!(received.iter().any(|r| r["op"] == "ping"));
    // The backfill asked for the three candles before 1198.
    let queries = fake.kline_queries.lock().unwrap().clone();
    assert_eq!(queries.len(), 1);
    assert_eq!(queries[0]["limit"], "3");
    assert_eq!(queries[0]["end"], (candle(1198).0 - 1).to_string());
}
