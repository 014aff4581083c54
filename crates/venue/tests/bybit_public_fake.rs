//! Bybit V5 public market data against the fake Bybit on loopback (crates/fake-bybit):
//! `BybitMarketData` lists instruments, reads candles and ticker prices over REST and
//! follows the public linear stream (ticks, closed candles, a dropped connection); the
//! fake's own public contract (tickers, risk limits, the stream's answers and refusals) is
//! checked on the wire.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::{json, Value};
use signaldesk_core::market::{Candle, Instrument};
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, RiskTier};
use signaldesk_venue::bybit::http::{BybitHttpClient, BybitHttpError};
use signaldesk_venue::bybit::{BybitMarketConfig, BybitMarketData};
use signaldesk_venue::market::{MarketData, MarketEvent};
use signaldesk_venue::VenueError;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const MIN15: i64 = 15 * 60_000;

fn instrument(symbol: &str, tick: Decimal, step: Decimal, max_leverage: u32) -> Instrument {
    Instrument {
        symbol: symbol.into(),
        tick_size: tick,
        qty_step: step,
        min_qty: step,
        min_notional: dec!(5),
        max_leverage,
    }
}

fn instruments() -> Vec<Instrument> {
    vec![
        instrument("BTCUSDT", dec!(0.1), dec!(0.001), 100),
        instrument("ETHUSDT", dec!(0.01), dec!(0.01), 50),
        instrument("SOLUSDT", dec!(0.01), dec!(0.1), 25),
    ]
}

/// The fake, its clock set one minute into a 15-minute candle (so no candle's time runs
/// out while a test runs).
async fn fake() -> FakeBybit {
    let fake = FakeBybit::start(FakeConfig::new(instruments()))
        .await
        .unwrap();
    let local = fake.now_ms();
    set_fake_now(&fake, local - local % MIN15 + 60_000);
    fake
}

/// Sets the fake's clock to `ms` now.
fn set_fake_now(fake: &FakeBybit, ms: i64) {
    let local = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    fake.set_clock_offset_ms(ms - local);
}

/// Open time of the fake's current 15-minute candle.
fn current_open(fake: &FakeBybit) -> i64 {
    let now = fake.now_ms();
    now - now % MIN15
}

fn candle(open_time_ms: i64, open: Decimal) -> Candle {
    Candle {
        open_time_ms,
        open,
        high: open + dec!(5),
        low: open - dec!(5),
        close: open + dec!(1.5),
        volume: dec!(12.345),
    }
}

fn client(fake: &FakeBybit) -> BybitMarketData {
    BybitMarketData::new(BybitMarketConfig {
        rest_url: fake.rest_url(),
        ws_url: fake.public_ws_url(),
        symbols: vec!["BTCUSDT".into(), "ETHUSDT".into()],
        interval_minutes: 15,
        ping_interval: Duration::from_millis(200),
        reconnect_min: Duration::from_millis(20),
        reconnect_max: Duration::from_millis(200),
        ..BybitMarketConfig::default()
    })
    .unwrap()
}

async fn get(fake: &FakeBybit, path_and_query: &str) -> Value {
    reqwest::get(format!("{}{path_and_query}", fake.rest_url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn wait_until(done: impl Fn() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("not done within 5 s");
}

async fn next_event(rx: &mut tokio::sync::broadcast::Receiver<MarketEvent>) -> MarketEvent {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("an event within 5 s")
        .unwrap()
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn connect(fake: &FakeBybit) -> Ws {
    tokio_tungstenite::connect_async(fake.public_ws_url())
        .await
        .unwrap()
        .0
}

async fn send(ws: &mut Ws, request: Value) {
    ws.send(Message::Text(request.to_string().into()))
        .await
        .unwrap();
}

/// The next text frame, as JSON.
async fn recv(ws: &mut Ws) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("a frame within 5 s")
            .unwrap()
            .unwrap();
        if let Message::Text(text) = frame {
            return serde_json::from_str(text.as_str()).unwrap();
        }
    }
}

/// Nothing arrives for a while.
async fn silent(ws: &mut Ws) {
    let frame = tokio::time::timeout(Duration::from_millis(300), ws.next()).await;
    assert!(frame.is_err(), "unexpected frame {frame:?}");
}

#[tokio::test]
async fn market_data_lists_instruments_reads_history_and_ticker_prices() {
    let fake = fake().await;
    let md = client(&fake);
    // Every trading USDT perpetual is listed, not only the streamed symbols: any can be
    // traded.
    let list = md.instruments().await.unwrap();
    assert_eq!(list, instruments());

    // Five closed candles, then a price that opens the current one: REST answers it too, and
    // the client leaves it out because its time is not over.
    let open = current_open(&fake);
    for i in 1..=5 {
        fake.close_kline(
            "BTCUSDT",
            15,
            candle(open - (6 - i) * MIN15, Decimal::from(1000 + i)),
        );
    }
    fake.set_price("BTCUSDT", dec!(91234.5));
    let raw = get(
        &fake,
        "/v5/market/kline?category=linear&symbol=BTCUSDT&interval=15&limit=2",
    )
    .await;
    assert_eq!(raw["result"]["list"][0][0], open.to_string());
    assert_eq!(raw["result"]["list"][1][0], (open - MIN15).to_string());
    let history = md.history("BTCUSDT", 15, 3).await.unwrap();
    let expected: Vec<Candle> = (3..=5)
        .map(|i| candle(open - (6 - i) * MIN15, Decimal::from(1000 + i)))
        .collect();
    assert_eq!(history, expected);

    assert_eq!(md.last_price("BTCUSDT").await.unwrap(), dec!(91234.5));
    // Bybit answers a symbol it does not list with 10001, not an empty list.
    assert_eq!(
        md.last_price("FOOUSDT").await.unwrap_err(),
        VenueError::Exchange {
            code: 10001,
            message: "Not supported symbols".into()
        }
    );
}

#[tokio::test]
async fn market_data_streams_ticks_and_closed_candles() {
    let fake = fake().await;
    fake.set_price("BTCUSDT", dec!(50000));
    let md = client(&fake);
    let mut rx = md.subscribe();
    let stream = md.start();

    // The subscription's snapshot is the first tick.
    match next_event(&mut rx).await {
        MarketEvent::Tick { symbol, price, .. } => {
            assert_eq!((symbol.as_str(), price), ("BTCUSDT", dec!(50000)));
        }
        other => panic!("expected the snapshot's tick, got {other:?}"),
    }
    // Four topics in one request.
    assert_eq!(fake.stats().public_ws_subscribes, 1);

    fake.set_price("BTCUSDT", dec!(50100.5));
    match next_event(&mut rx).await {
        MarketEvent::Tick {
            symbol,
            price,
            ts_ms,
        } => {
            assert_eq!((symbol.as_str(), price), ("BTCUSDT", dec!(50100.5)));
            assert!((ts_ms - fake.now_ms()).abs() < 5_000);
        }
        other => panic!("expected a tick, got {other:?}"),
    }
    assert_eq!(md.last_price("BTCUSDT").await.unwrap(), dec!(50100.5));

    // The open candle moved (confirm=false) without closing; the test closes the one
    // before it.
    let closed = candle(current_open(&fake) - MIN15, dec!(49000));
    fake.close_kline("BTCUSDT", 15, closed.clone());
    assert_eq!(
        next_event(&mut rx).await,
        MarketEvent::CandleClosed {
            symbol: "BTCUSDT".into(),
            interval_minutes: 15,
            candle: closed,
        }
    );
    // A closed candle of an interval nobody subscribed to is not pushed.
    fake.close_kline("ETHUSDT", 5, candle(current_open(&fake), dec!(3000)));
    fake.set_price("ETHUSDT", dec!(3001));
    match next_event(&mut rx).await {
        MarketEvent::Tick { symbol, price, .. } => {
            assert_eq!((symbol.as_str(), price), ("ETHUSDT", dec!(3001)));
        }
        other => panic!("expected ETH's first tick, got {other:?}"),
    }
    stream.abort();
}

#[tokio::test]
async fn a_candle_whose_time_is_over_closes_with_the_next_price() {
    let fake = fake().await;
    let open = current_open(&fake);
    for price in [dec!(100), dec!(110), dec!(95)] {
        fake.set_price("BTCUSDT", price);
    }
    let md = client(&fake);
    let mut rx = md.subscribe();
    let stream = md.start();
    assert!(matches!(
        next_event(&mut rx).await,
        MarketEvent::Tick { .. }
    ));

    // A quarter of an hour later the next trade finds the candle over: Bybit has closed it.
    set_fake_now(&fake, open + MIN15 + 60_000);
    fake.set_price("BTCUSDT", dec!(97));
    let closed = Candle {
        open_time_ms: open,
        open: dec!(100),
        high: dec!(110),
        low: dec!(95),
        close: dec!(95),
        volume: Decimal::ZERO,
    };
    assert_eq!(
        next_event(&mut rx).await,
        MarketEvent::CandleClosed {
            symbol: "BTCUSDT".into(),
            interval_minutes: 15,
            candle: closed.clone(),
        }
    );
    match next_event(&mut rx).await {
        MarketEvent::Tick { price, .. } => assert_eq!(price, dec!(97)),
        other => panic!("expected a tick, got {other:?}"),
    }
    // REST serves it closed, and the new one open.
    assert_eq!(md.history("BTCUSDT", 15, 1).await.unwrap(), vec![closed]);
    let raw = get(
        &fake,
        "/v5/market/kline?category=linear&symbol=BTCUSDT&interval=15",
    )
    .await;
    assert_eq!(raw["result"]["list"][0][0], (open + MIN15).to_string());
    assert_eq!(raw["result"]["list"][0][1], "97");
    stream.abort();
}

#[tokio::test]
async fn a_dropped_public_stream_is_reconnected_and_resubscribed() {
    let fake = fake().await;
    fake.set_price("BTCUSDT", dec!(50000));
    let md = client(&fake);
    let mut rx = md.subscribe();
    let stream = md.start();
    assert!(matches!(
        next_event(&mut rx).await,
        MarketEvent::Tick { .. }
    ));

    fake.drop_streams();
    wait_until(|| fake.stats().public_ws_subscribes >= 2).await;
    assert_eq!(fake.stats().public_ws_connections, 2);
    // The new subscription's snapshot, then the next price.
    assert!(matches!(
        next_event(&mut rx).await,
        MarketEvent::Tick { .. }
    ));
    fake.set_price("BTCUSDT", dec!(50200));
    match next_event(&mut rx).await {
        MarketEvent::Tick { price, .. } => assert_eq!(price, dec!(50200)),
        other => panic!("expected a tick, got {other:?}"),
    }
    stream.abort();
}

#[tokio::test]
async fn tickers_answer_the_documented_linear_fields_as_strings() {
    let fake = fake().await;
    fake.set_price("BTCUSDT", dec!(50000));
    fake.set_price("BTCUSDT", dec!(51000));
    fake.set_price("BTCUSDT", dec!(50500));
    fake.set_turnover_24h("BTCUSDT", dec!(1010000000));
    fake.set_funding_rate("BTCUSDT", dec!(-0.00025));
    fake.set_price("ETHUSDT", dec!(3000));

    // SOLUSDT has no price yet: the fake's market has not opened there.
    let all = get(&fake, "/v5/market/tickers?category=linear").await;
    assert_eq!(all["retCode"], 0);
    assert_eq!(all["result"]["category"], "linear");
    let symbols: Vec<&str> = all["result"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(symbols, ["BTCUSDT", "ETHUSDT"]);

    let one = get(&fake, "/v5/market/tickers?category=linear&symbol=BTCUSDT").await;
    let list = one["result"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    let t = &list[0];
    for field in [
        "symbol",
        "lastPrice",
        "indexPrice",
        "markPrice",
        "prevPrice24h",
        "price24hPcnt",
        "highPrice24h",
        "lowPrice24h",
        "prevPrice1h",
        "openInterest",
        "openInterestValue",
        "turnover24h",
        "volume24h",
        "fundingRate",
        "nextFundingTime",
        "predictedDeliveryPrice",
        "basisRate",
        "deliveryFeeRate",
        "deliveryTime",
        "ask1Size",
        "bid1Price",
        "ask1Price",
        "bid1Size",
        "basis",
        "preOpenPrice",
        "preQty",
        "curPreListingPhase",
        "fundingIntervalHour",
        "fundingCap",
        "basisRateYear",
    ] {
        assert!(t[field].is_string(), "{field} is {:?}", t[field]);
    }
    assert_eq!(t["lastPrice"], "50500");
    assert_eq!(t["markPrice"], "50500");
    assert_eq!(t["prevPrice24h"], "50000");
    assert_eq!(t["price24hPcnt"], "0.01");
    assert_eq!(t["highPrice24h"], "51000");
    assert_eq!(t["lowPrice24h"], "50000");
    assert_eq!(t["turnover24h"], "1010000000");
    assert_eq!(t["volume24h"], "20000");
    assert_eq!(t["fundingRate"], "-0.00025");
    assert_eq!(t["bid1Price"], "50500");
    assert_eq!(t["ask1Price"], "50500.1");
    assert_eq!(t["openInterest"], "0");
    // Funding is every 8 hours, on the hour.
    let next: i64 = t["nextFundingTime"].as_str().unwrap().parse().unwrap();
    let now = fake.now_ms();
    assert!(next > now && next - now <= 8 * 3_600_000 && next % (8 * 3_600_000) == 0);
    // market/tickers has no tickDirection (the stream's ticker does).
    assert!(t.get("tickDirection").is_none());
}

#[tokio::test]
async fn market_endpoints_refuse_a_bad_category_and_an_unknown_symbol() {
    let fake = fake().await;
    fake.set_price("BTCUSDT", dec!(50000));
    for path in [
        "/v5/market/tickers?category=futures&symbol=BTCUSDT",
        "/v5/market/tickers?symbol=BTCUSDT",
        "/v5/market/risk-limit?category=perp",
        "/v5/market/instruments-info?category=usdt",
        "/v5/market/kline?category=x&symbol=BTCUSDT&interval=15",
    ] {
        let answer = get(&fake, path).await;
        assert_eq!(answer["retCode"], 10001, "{path}");
        assert_eq!(answer["retMsg"], "Illegal category", "{path}");
        assert_eq!(answer["result"], json!({}), "{path}");
    }
    for path in [
        "/v5/market/tickers?category=linear&symbol=FOOUSDT",
        "/v5/market/risk-limit?category=linear&symbol=FOOUSDT",
        "/v5/market/kline?category=linear&symbol=FOOUSDT&interval=15",
        // Symbols are upper case only.
        "/v5/market/tickers?category=linear&symbol=btcusdt",
    ] {
        let answer = get(&fake, path).await;
        assert_eq!(answer["retCode"], 10001, "{path}");
        assert_eq!(answer["retMsg"], "Not supported symbols", "{path}");
    }
    // A real category the fake does not trade says so.
    let spot = get(&fake, "/v5/market/tickers?category=spot&symbol=BTCUSDT").await;
    assert_eq!(spot["retCode"], 10001);
    assert!(spot["retMsg"].as_str().unwrap().contains("linear only"));
    // A listed symbol before its first price.
    let early = get(&fake, "/v5/market/tickers?category=linear&symbol=SOLUSDT").await;
    assert_eq!(early["retCode"], 10016);
    // market/kline alone defaults the category to linear.
    let kline = get(&fake, "/v5/market/kline?symbol=BTCUSDT&interval=15").await;
    assert_eq!(kline["retCode"], 0);
    assert_eq!(kline["result"]["list"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn risk_limit_answers_tiers_in_pages_of_15_symbols() {
    let mut many: Vec<Instrument> = (0..20)
        .map(|i| instrument(&format!("C{i:02}USDT"), dec!(0.001), dec!(1), 50))
        .collect();
    many.insert(0, instruments()[0].clone());
    let fake = FakeBybit::start(FakeConfig::new(many)).await.unwrap();

    let btc = get(
        &fake,
        "/v5/market/risk-limit?category=linear&symbol=BTCUSDT",
    )
    .await;
    assert_eq!(btc["retCode"], 0);
    let tiers = btc["result"]["list"].as_array().unwrap();
    // The pattern of Bybit's BTCUSDT table.
    assert_eq!(
        tiers[0],
        json!({"id": 1, "symbol": "BTCUSDT", "riskLimitValue": "2000000",
               "maintenanceMargin": "0.005", "initialMargin": "0.01", "isLowestRisk": 1,
               "maxLeverage": "100.00", "mmDeduction": ""})
    );
    assert_eq!(
        tiers[1],
        json!({"id": 2, "symbol": "BTCUSDT", "riskLimitValue": "4000000",
               "maintenanceMargin": "0.01", "initialMargin": "0.0175", "isLowestRisk": 0,
               "maxLeverage": "57.14", "mmDeduction": "10000"})
    );
    assert_eq!(tiers.len(), 5);
    assert_eq!(btc["result"]["nextPageCursor"], "");

    let first = get(&fake, "/v5/market/risk-limit?category=linear").await;
    let symbols = |page: &Value| -> Vec<String> {
        let mut s: Vec<String> = page["result"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["symbol"].as_str().unwrap().to_string())
            .collect();
        s.dedup();
        s
    };
    assert_eq!(symbols(&first).len(), 15);
    let cursor = first["result"]["nextPageCursor"].as_str().unwrap();
    assert!(!cursor.is_empty());
    let second = reqwest::Client::new()
        .get(format!("{}/v5/market/risk-limit", fake.rest_url()))
        .query(&[("category", "linear"), ("cursor", cursor)])
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(symbols(&second).len(), 6);
    assert_eq!(second["result"]["nextPageCursor"], "");

    fake.set_risk_tiers(
        "C03USDT",
        vec![RiskTier {
            risk_limit_value: dec!(200000),
            maintenance_margin: dec!(0.01),
            initial_margin: dec!(0.02),
            max_leverage: dec!(50),
            mm_deduction: None,
        }],
    );
    let set = get(
        &fake,
        "/v5/market/risk-limit?category=linear&symbol=C03USDT",
    )
    .await;
    assert_eq!(
        set["result"]["list"],
        json!([{"id": 1, "symbol": "C03USDT", "riskLimitValue": "200000",
                "maintenanceMargin": "0.01", "initialMargin": "0.02", "isLowestRisk": 1,
                "maxLeverage": "50.00", "mmDeduction": ""}])
    );
}

/// What `candles fetch` asks of the HTTP client: one contract as Bybit lists it, and its
/// risk limit tiers, lowest first, each read exactly.
#[tokio::test]
async fn the_client_reads_one_instrument_and_its_risk_tiers_lowest_first() {
    use signaldesk_core::market::RiskTier as Tier;
    let fake = fake().await;
    let http = BybitHttpClient::new(&fake.rest_url(), Duration::from_secs(5)).unwrap();
    let eth = http.instrument_info("ETHUSDT").await.unwrap().unwrap();
    assert_eq!(eth.untradable(), None);
    assert_eq!(eth.to_instrument().unwrap(), instruments()[1]);
    assert!(http.instrument_info("FOOUSDT").await.unwrap().is_none());

    fake.set_risk_tiers(
        "ETHUSDT",
        vec![
            RiskTier {
                risk_limit_value: dec!(400000),
                maintenance_margin: dec!(0.03),
                initial_margin: dec!(0.05),
                max_leverage: dec!(20),
                mm_deduction: Some(dec!(2000)),
            },
            RiskTier {
                risk_limit_value: dec!(200000),
                maintenance_margin: dec!(0.02),
                initial_margin: dec!(0.04),
                max_leverage: dec!(25),
                mm_deduction: None,
            },
        ],
    );
    assert_eq!(
        http.risk_tiers("ETHUSDT").await.unwrap(),
        [
            Tier {
                risk_limit_value: dec!(200000),
                maintenance_margin_rate: dec!(0.02),
                mm_deduction: dec!(0),
                max_leverage: dec!(25),
            },
            Tier {
                risk_limit_value: dec!(400000),
                maintenance_margin_rate: dec!(0.03),
                mm_deduction: dec!(2000),
                max_leverage: dec!(20),
            },
        ]
    );
    // The default table: the pattern of Bybit's BTCUSDT (0.5 %, then 1 % less 10,000 USDT).
    let btc = http.risk_tiers("BTCUSDT").await.unwrap();
    assert_eq!(btc.len(), 5);
    assert_eq!(
        (
            btc[0].maintenance_margin_rate,
            btc[1].maintenance_margin_rate
        ),
        (dec!(0.005), dec!(0.01))
    );
    assert_eq!(btc[1].mm_deduction, dec!(10000));
    assert!(matches!(
        http.risk_tiers("FOOUSDT").await,
        Err(BybitHttpError::Api { code: 10001, .. })
    ));
}

#[tokio::test]
async fn the_public_stream_answers_subscribe_and_ping_as_documented() {
    let fake = fake().await;
    fake.set_price("BTCUSDT", dec!(50000));
    let mut ws = connect(&fake).await;

    send(
        &mut ws,
        json!({"req_id": "s1", "op": "subscribe", "args": ["tickers.BTCUSDT"]}),
    )
    .await;
    let ack = recv(&mut ws).await;
    assert_eq!(ack["success"], true);
    assert_eq!(ack["ret_msg"], "");
    assert_eq!(ack["op"], "subscribe");
    assert_eq!(ack["req_id"], "s1");
    assert!(!ack["conn_id"].as_str().unwrap().is_empty());
    let snapshot = recv(&mut ws).await;
    assert_eq!(snapshot["topic"], "tickers.BTCUSDT");
    assert_eq!(snapshot["type"], "snapshot");
    assert!(snapshot["cs"].is_u64() && snapshot["ts"].is_i64());
    assert_eq!(snapshot["data"]["lastPrice"], "50000");
    assert_eq!(snapshot["data"]["tickDirection"], "ZeroPlusTick");
    for (field, value) in snapshot["data"].as_object().unwrap() {
        assert!(value.is_string(), "{field} is {value:?}");
    }

    // ws/connect: the linear pong, req_id "" when none was sent.
    send(&mut ws, json!({"op": "ping"})).await;
    let pong = recv(&mut ws).await;
    assert_eq!(
        pong,
        json!({"success": true, "ret_msg": "pong", "conn_id": ack["conn_id"], "req_id": "",
               "op": "ping"})
    );
    assert_eq!(fake.stats().public_ws_pings, 1);
    // The private stream's counters are its own.
    assert_eq!(fake.stats().ws_pings, 0);
}

#[tokio::test]
async fn the_public_stream_refuses_unknown_topics_and_ops() {
    let fake = fake().await;
    fake.set_price("BTCUSDT", dec!(50000));
    let mut ws = connect(&fake).await;
    for (args, refused) in [
        (json!(["tickers.FOOUSDT"]), "tickers.FOOUSDT"),
        (json!(["tickers.btcusdt"]), "tickers.btcusdt"),
        (json!(["kline.7.BTCUSDT"]), "kline.7.BTCUSDT"),
        (json!(["order"]), "order"),
        // One refused topic refuses the request: kline.1 is not subscribed either.
        (
            json!(["kline.1.BTCUSDT", "orderbook.30.BTCUSDT"]),
            "orderbook.30.BTCUSDT",
        ),
    ] {
        send(
            &mut ws,
            json!({"req_id": "r", "op": "subscribe", "args": args}),
        )
        .await;
        let ack = recv(&mut ws).await;
        assert_eq!(ack["success"], false, "{args}");
        assert_eq!(ack["op"], "subscribe");
        assert_eq!(
            ack["ret_msg"],
            format!("error:handler not found,topic:{refused}")
        );
    }
    fake.set_price("BTCUSDT", dec!(50001));
    silent(&mut ws).await;
    // Monthly candles are a Bybit topic the fake does not serve, and says so.
    send(
        &mut ws,
        json!({"op": "subscribe", "args": ["kline.M.BTCUSDT"]}),
    )
    .await;
    let monthly = recv(&mut ws).await;
    assert_eq!(monthly["success"], false);
    assert!(monthly["ret_msg"].as_str().unwrap().contains("monthly"));

    send(
        &mut ws,
        json!({"op": "subscribe", "args": ["tickers.BTCUSDT"]}),
    )
    .await;
    assert_eq!(recv(&mut ws).await["success"], true);
    assert_eq!(recv(&mut ws).await["type"], "snapshot");
    send(
        &mut ws,
        json!({"op": "subscribe", "args": ["tickers.BTCUSDT"]}),
    )
    .await;
    assert_eq!(
        recv(&mut ws).await["ret_msg"],
        "error:already subscribed,topic:tickers.BTCUSDT"
    );

    send(&mut ws, json!({"req_id": "n", "op": "nope"})).await;
    let nope = recv(&mut ws).await;
    assert_eq!(
        (nope["success"].clone(), nope["ret_msg"].clone()),
        (json!(false), json!("error:invalid op"))
    );
    // A frame that is not JSON is refused and the socket stays open.
    ws.send(Message::Text("hello".into())).await.unwrap();
    let undecoded = recv(&mut ws).await;
    assert_eq!(undecoded["success"], false);
    assert!(undecoded["ret_msg"]
        .as_str()
        .unwrap()
        .starts_with("Failed to decode incoming data"));
    send(&mut ws, json!({"op": "ping"})).await;
    assert_eq!(recv(&mut ws).await["ret_msg"], "pong");
}

#[tokio::test]
async fn ticker_deltas_carry_only_what_changed() {
    let fake = fake().await;
    fake.set_price("ETHUSDT", dec!(3000));
    let mut ws = connect(&fake).await;
    send(
        &mut ws,
        json!({"op": "subscribe", "args": ["tickers.ETHUSDT"]}),
    )
    .await;
    assert_eq!(recv(&mut ws).await["success"], true);
    let snapshot = recv(&mut ws).await;

    fake.set_price("ETHUSDT", dec!(2990.5));
    let delta = recv(&mut ws).await;
    assert_eq!(delta["topic"], "tickers.ETHUSDT");
    assert_eq!(delta["type"], "delta");
    assert!(delta["cs"].as_u64().unwrap() > snapshot["cs"].as_u64().unwrap());
    let data = delta["data"].as_object().unwrap();
    assert_eq!(data["symbol"], "ETHUSDT");
    assert_eq!(data["lastPrice"], "2990.5");
    assert_eq!(data["tickDirection"], "MinusTick");
    assert_eq!(data["lowPrice24h"], "2990.5");
    // Unchanged: not in the delta.
    for field in ["highPrice24h", "prevPrice24h", "fundingRate", "turnover24h"] {
        assert!(!data.contains_key(field), "{field} did not change");
    }

    // The same price with a new funding rate: only the rate and the tick direction move.
    fake.set_funding_rate("ETHUSDT", dec!(0.0003));
    fake.set_price("ETHUSDT", dec!(2990.5));
    let delta = recv(&mut ws).await;
    let mut keys: Vec<&String> = delta["data"].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["fundingRate", "symbol", "tickDirection"]);
    assert_eq!(delta["data"]["tickDirection"], "ZeroMinusTick");

    // Unsubscribed: nothing more.
    send(
        &mut ws,
        json!({"op": "unsubscribe", "args": ["tickers.ETHUSDT"]}),
    )
    .await;
    assert_eq!(recv(&mut ws).await["success"], true);
    fake.set_price("ETHUSDT", dec!(2900));
    silent(&mut ws).await;
}

#[tokio::test]
async fn klines_push_the_open_candle_then_the_closed_one_which_rest_serves() {
    let fake = fake().await;
    let mut ws = connect(&fake).await;
    send(
        &mut ws,
        json!({"op": "subscribe", "args": ["kline.15.BTCUSDT"]}),
    )
    .await;
    assert_eq!(recv(&mut ws).await["success"], true);
    // No price yet, no candle.
    silent(&mut ws).await;

    let open = current_open(&fake);
    fake.set_price("BTCUSDT", dec!(50000));
    fake.set_price("BTCUSDT", dec!(50010));
    fake.set_price("BTCUSDT", dec!(49990));
    let mut push = Value::Null;
    for _ in 0..3 {
        push = recv(&mut ws).await;
        assert_eq!(push["topic"], "kline.15.BTCUSDT");
        assert_eq!(push["type"], "snapshot");
        assert_eq!(push["data"][0]["confirm"], false);
    }
    let k = &push["data"][0];
    assert_eq!(k["start"], open);
    assert_eq!(k["end"], open + MIN15 - 1);
    assert_eq!(k["interval"], "15");
    assert_eq!(
        (&k["open"], &k["high"], &k["low"], &k["close"]),
        (
            &json!("50000"),
            &json!("50010"),
            &json!("49990"),
            &json!("49990")
        )
    );

    // The test closes the current candle: confirm=true, then REST serves it as closed and
    // the next price opens the candle after it.
    let closed = candle(open, dec!(50000));
    fake.close_kline("BTCUSDT", 15, closed.clone());
    let done = recv(&mut ws).await;
    assert_eq!(done["data"][0]["confirm"], true);
    assert_eq!(done["data"][0]["start"], open);
    assert_eq!(done["data"][0]["close"], "50001.5");
    let rest = get(
        &fake,
        "/v5/market/kline?category=linear&symbol=BTCUSDT&interval=15",
    )
    .await;
    assert_eq!(
        rest["result"]["list"],
        json!([[
            open.to_string(),
            "50000",
            "50005",
            "49995",
            "50001.5",
            "12.345",
            (dec!(50001.5) * dec!(12.345)).to_string()
        ]])
    );
    fake.set_price("BTCUSDT", dec!(50020));
    let next = recv(&mut ws).await;
    assert_eq!(next["data"][0]["start"], open + MIN15);
    assert_eq!(next["data"][0]["open"], "50020");
    assert_eq!(next["data"][0]["confirm"], false);

    // A new subscription gets the open candle at once.
    let mut other = connect(&fake).await;
    send(
        &mut other,
        json!({"op": "subscribe", "args": ["kline.15.BTCUSDT"]}),
    )
    .await;
    assert_eq!(recv(&mut other).await["success"], true);
    assert_eq!(recv(&mut other).await["data"][0]["start"], open + MIN15);
}

#[tokio::test]
async fn the_default_universe_is_bybits_largest_by_turnover() {
    let fake = fake().await;
    for (symbol, price, turnover) in [
        ("BTCUSDT", dec!(50000), dec!(300)),
        ("ETHUSDT", dec!(3000), dec!(900)),
        ("SOLUSDT", dec!(150), dec!(600)),
    ] {
        fake.set_price(symbol, price);
        fake.set_turnover_24h(symbol, turnover);
    }
    let md = client(&fake);
    assert_eq!(
        md.largest_by_turnover(2).await.unwrap(),
        ["ETHUSDT", "SOLUSDT"]
    );
    assert_eq!(md.largest_by_turnover(20).await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_watched_symbol_outside_the_streamed_ones_ticks_from_then_on() {
    let fake = fake().await;
    for (symbol, price) in [("BTCUSDT", dec!(50000)), ("SOLUSDT", dec!(150))] {
        fake.set_price(symbol, price);
    }
    let md = client(&fake);
    let _task = md.start();
    let mut events = md.subscribe();
    md.watch("SOLUSDT");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        fake.set_price("SOLUSDT", dec!(151));
        let next = tokio::time::timeout(Duration::from_millis(200), events.recv()).await;
        if let Ok(Ok(MarketEvent::Tick { symbol, price, .. })) = next {
            if symbol == "SOLUSDT" {
                assert_eq!(price, dec!(151));
                break;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "a SOLUSDT tick within 5 s"
        );
    }
}

#[tokio::test]
async fn the_streamed_funding_rate_is_the_market_s_and_funding_history_follows_the_docs() {
    let fake = fake().await;
    fake.set_funding_rate("BTCUSDT", dec!(-0.00025));
    fake.set_price("BTCUSDT", dec!(50000));
    let md = client(&fake);
    let mut rx = md.subscribe();
    let stream = md.start();
    assert!(matches!(
        next_event(&mut rx).await,
        MarketEvent::Tick { .. }
    ));
    assert_eq!(md.funding_rate("BTCUSDT", 0), Some(dec!(-0.00025)));
    stream.abort();

    let eight_hours = 8 * 3_600_000;
    let first = 1_780_000_000_000 / eight_hours * eight_hours;
    let rates: Vec<(i64, Decimal)> = (0..250)
        .map(|n| (first + n * eight_hours, Decimal::new(n, 6)))
        .collect();
    fake.add_funding_history("BTCUSDT", &rates);
    let path = "/v5/market/funding/history?category=linear&symbol=BTCUSDT";
    let times = |answer: &Value| -> Vec<i64> {
        answer["result"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["fundingRateTimestamp"].as_str().unwrap().parse().unwrap())
            .collect()
    };
    // Neither time: the newest 200, newest first.
    let all = get(&fake, path).await;
    assert_eq!(all["retCode"], 0, "{all}");
    let newest = times(&all);
    assert_eq!(newest.len(), 200);
    assert_eq!(newest[0], rates[249].0);
    assert_eq!(all["result"]["list"][0]["fundingRate"], "0.000249");
    // endTime only: up till it; both: the range, `limit` of it.
    let until = get(&fake, &format!("{path}&endTime={}", rates[9].0)).await;
    assert_eq!(
        times(&until),
        rates[..10].iter().rev().map(|r| r.0).collect::<Vec<_>>()
    );
    let range = format!(
        "{path}&startTime={}&endTime={}&limit=3",
        rates[5].0, rates[20].0
    );
    assert_eq!(
        times(&get(&fake, &range).await),
        [rates[20].0, rates[19].0, rates[18].0]
    );
    // "Passing only `startTime` returns an error"; limit is 1 to 200; category is required.
    for refused in [
        format!("{path}&startTime={first}"),
        format!("{path}&limit=201"),
        format!("{path}&limit=0"),
        "/v5/market/funding/history?symbol=BTCUSDT".to_string(),
    ] {
        let answer = get(&fake, &refused).await;
        assert_eq!(answer["retCode"], 10001, "{refused}: {answer}");
    }
}
