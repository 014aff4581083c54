//! One server, every account (docs/accounts.md): each user's active key decides where their
//! bot trades, side by side. A Demo-key user trades on the fake Bybit at its price, a paper
//! user on the paper market at the simulated price, and nothing of the paper user reaches
//! Bybit; Deactivate returns the Bybit user to paper. Statistics follow the account.

use std::future::Future;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::market::Instrument;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, KeySpec, RiskTier};
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::{alert_body, assert_json_error, TestApp};
use crate::live::LiveClient;

/// A fake Bybit listing BTCUSDT and ETHUSDT, BTCUSDT at `price`, with one demo key.
async fn fake_bybit(price: Decimal) -> FakeBybit {
    let instrument = |symbol: &str| Instrument {
        symbol: symbol.into(),
        tick_size: Decimal::new(1, 2),
        qty_step: Decimal::new(1, 3),
        min_qty: Decimal::new(1, 3),
        min_notional: Decimal::from(5),
        max_leverage: 100,
    };
    // WIFUSDT: listed by Bybit, not by the simulated market, on steps of its own.
    let wif = Instrument {
        symbol: "WIFUSDT".into(),
        tick_size: Decimal::new(1, 4),
        qty_step: Decimal::from(10),
        min_qty: Decimal::from(10),
        min_notional: Decimal::from(5),
        max_leverage: 50,
    };
    let fake = FakeBybit::start(FakeConfig::new(vec![
        instrument("BTCUSDT"),
        instrument("ETHUSDT"),
        wif,
    ]))
    .await
    .unwrap();
    fake.add_key(KeySpec::new("DEMOKEY", "DEMOSECRET"));
    fake.set_price("BTCUSDT", price);
    fake.set_price("ETHUSDT", Decimal::from(3000));
    fake.set_price("WIFUSDT", Decimal::new(21345, 4));
    fake
}

/// A server whose Bybit demo accounts and Bybit market are the fake.
async fn server_beside(fake: &FakeBybit, db: TestDatabase) -> TestApp {
    let (rest, private_ws, public_ws) =
        (fake.rest_url(), fake.private_ws_url(), fake.public_ws_url());
    TestApp::spawn_with(db, move |c| {
        c.bybit.demo_rest_url = rest.clone();
        c.bybit.demo_ws_url = private_ws;
        c.market.bybit_rest_url = rest;
        c.market.bybit_ws_url = public_ws;
    })
    .await
}

async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what} within 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn status(app: &TestApp, token: &str) -> Value {
    app.call_ok(Method::GET, "/api/bot/status/", token, None, StatusCode::OK)
        .await
}

async fn post_alert(app: &TestApp, path: &str, symbol: &str, signal: &str) {
    let res = reqwest::Client::new()
        .post(app.url(path))
        .json(&alert_body(symbol, signal))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::ACCEPTED,
        "{}",
        res.text().await.unwrap()
    );
}

/// The user's open trade on `symbol`, once there is one.
async fn open_trade(app: &TestApp, token: &str, symbol: &str) -> Value {
    eventually(&format!("an open {symbol} trade"), || async {
        let page = app
            .call_ok(
                Method::GET,
                "/api/trades/?status=open",
                token,
                None,
                StatusCode::OK,
            )
            .await;
        page["results"].as_array().and_then(|t| {
            t.iter()
                .find(|t| t["symbol"] == symbol && !t["entry_price"].is_null())
                .cloned()
        })
    })
    .await
}

#[tokio::test]
async fn a_bybit_user_and_a_paper_user_trade_side_by_side_each_on_their_own_market() {
    let mut databases = vec![TestDatabase::sqlite()];
    if let Some(pg) = TestDatabase::postgres().await {
        databases.push(pg);
    }
    for db in databases {
        let fake_price = Decimal::from(12345);
        let fake = fake_bybit(fake_price).await;
        let app = server_beside(&fake, db).await;

        let bob = app.user_with_token("bob").await;
        let demo = app
            .add_key_on(&bob, "bybit", "DEMOKEY", "DEMOSECRET", true)
            .await;
        assert_eq!(demo["exchange"], "bybit", "{demo}");
        let activate = format!("/api/api-keys/{}/set_active/", demo["id"]);
        app.call_ok(Method::POST, &activate, &bob, None, StatusCode::OK)
            .await;
        let carol = app.user_with_token("carol").await;

        assert_eq!(
            status(&app, &bob).await["venue"],
            json!({"exchange": "bybit", "environment": "demo"})
        );
        assert_eq!(
            status(&app, &carol).await["venue"],
            json!({"exchange": "paper", "environment": "paper"})
        );

        // Both bots run in the one server: carol with no key at all, on paper.
        for token in [&bob, &carol] {
            app.call_ok(
                Method::POST,
                "/api/command/bot/start/",
                token,
                None,
                StatusCode::OK,
            )
            .await;
        }
        let orders_before = fake.requests("/v5/order/create");
        for token in [&bob, &carol] {
            let hook = app.new_webhook(token).await;
            post_alert(&app, &hook, "BTCUSDT", "NEUTRAL").await;
            post_alert(&app, &hook, "BTCUSDT", "STRONG_BUY").await;
        }
        let bobs = open_trade(&app, &bob, "BTCUSDT").await;
        let carols = open_trade(&app, &carol, "BTCUSDT").await;
        let entry = |t: &Value| -> Decimal {
            t["entry_price"]
                .to_string()
                .trim_matches('"')
                .parse()
                .unwrap()
        };
        // Bob's entry is the fake's price (a market buy fills at it, with the fake's spread);
        // carol's the simulated market's, nowhere near it.
        assert!(
            (entry(&bobs) - fake_price).abs() < fake_price / Decimal::from(1000),
            "bob traded on Bybit: {bobs}"
        );
        assert!(
            (entry(&carols) - fake_price).abs() > Decimal::from(100),
            "carol traded on the paper market: {carols}"
        );
        assert_eq!(
            bobs["venue"],
            json!({"exchange": "bybit", "environment": "demo"})
        );
        assert_eq!(
            carols["venue"],
            json!({"exchange": "paper", "environment": "paper"})
        );
        // One order reached Bybit: bob's. Nothing of carol's.
        assert_eq!(fake.requests("/v5/order/create") - orders_before, 1);
        assert_eq!(fake.order_count("DEMOKEY"), 1);

        // A symbol Bybit lists and the simulated market does not: bob's alert trades it on
        // Bybit's steps; carol's market refuses it.
        let carols_hook = app.new_webhook(&carol).await;
        let res = reqwest::Client::new()
            .post(app.url(&carols_hook))
            .json(&json!({"symbol": "WIFUSDT", "signal": "STRONG_BUY"}))
            .send()
            .await
            .unwrap();
        let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert!(
            body["fields"]["symbol"][0]
                .as_str()
                .unwrap()
                .contains("WIFUSDT"),
            "{body}"
        );
        let bobs_hook = app.new_webhook(&bob).await;
        post_alert(&app, &bobs_hook, "WIFUSDT", "NEUTRAL").await;
        post_alert(&app, &bobs_hook, "WIFUSDT", "STRONG_BUY").await;
        let wif = open_trade(&app, &bob, "WIFUSDT").await;
        let qty: Decimal = wif["quantity"].to_string().parse().unwrap();
        assert!(
            qty > Decimal::ZERO && (qty % Decimal::from(10)).is_zero(),
            "{wif}"
        );
        assert!(
            (entry(&wif) - Decimal::new(21345, 4)).abs() < Decimal::new(1, 2),
            "{wif}"
        );
        assert_eq!(fake.position_qty("DEMOKEY", "WIFUSDT"), qty);
        let close = format!("/api/trades/{}/close/", wif["id"]);
        app.call_ok(Method::POST, &close, &bob, None, StatusCode::OK)
            .await;

        // The risk preview's liquidation distance rests on each account's own maintenance
        // margin: Bybit's first risk tier for bob (2 % here), the paper exchange's for carol.
        fake.set_risk_tiers(
            "BTCUSDT",
            vec![RiskTier {
                risk_limit_value: Decimal::from(2_000_000),
                maintenance_margin: Decimal::new(2, 2),
                initial_margin: Decimal::new(4, 2),
                max_leverage: Decimal::from(25),
                mm_deduction: None,
            }],
        );
        let preview = |token: String| {
            let app = &app;
            async move {
                let body =
                    json!({"bot_mode": "martingale", "leverage": 10, "symbols": ["BTCUSDT"]});
                let answer = app
                    .call_ok(
                        Method::POST,
                        "/api/bot-settings/risk-preview/",
                        &token,
                        Some(body),
                        StatusCode::OK,
                    )
                    .await;
                answer["steps"][0]["liquidation_distance_pct"]
                    .as_f64()
                    .unwrap()
            }
        };
        let (bybit_distance, paper_distance) =
            (preview(bob.clone()).await, preview(carol.clone()).await);
        assert!(
            (paper_distance - bybit_distance - 1.5).abs() < 1e-9,
            "10x: 2 % maintenance leaves 1.5 points less room than 0.5 %: {bybit_distance} vs {paper_distance}"
        );

        // A switch is refused while the bot runs, and while trades are open.
        let deactivate = format!("/api/api-keys/{}/deactivate/", demo["id"]);
        let res = app.call(Method::POST, &deactivate, &bob, None).await;
        assert_json_error(res, StatusCode::CONFLICT).await;
        app.call_ok(
            Method::POST,
            "/api/command/bot/stop/",
            &bob,
            None,
            StatusCode::OK,
        )
        .await;
        let res = app.call(Method::POST, &deactivate, &bob, None).await;
        let body = assert_json_error(res, StatusCode::CONFLICT).await;
        assert!(
            body["error"].as_str().unwrap().contains("open positions"),
            "{body}"
        );
        let close = format!("/api/trades/{}/close/", bobs["id"]);
        app.call_ok(Method::POST, &close, &bob, None, StatusCode::OK)
            .await;
        eventually("bob's trade closed", || async {
            let page = app
                .call_ok(
                    Method::GET,
                    "/api/trades/?status=open",
                    &bob,
                    None,
                    StatusCode::OK,
                )
                .await;
            page["results"].as_array().unwrap().is_empty().then_some(())
        })
        .await;
        assert_eq!(fake.position_qty("DEMOKEY", "BTCUSDT"), Decimal::ZERO);

        // Deactivate: bob is back on paper.
        let key = app
            .call_ok(Method::POST, &deactivate, &bob, None, StatusCode::OK)
            .await;
        assert_eq!(key["is_active"], false);
        assert_eq!(
            status(&app, &bob).await["venue"],
            json!({"exchange": "paper", "environment": "paper"})
        );
        let balance = app
            .call_ok(Method::GET, "/api/balance/", &bob, None, StatusCode::OK)
            .await;
        assert_ne!(
            balance["equity"].as_f64(),
            Some(
                fake.wallet_balance("DEMOKEY")
                    .to_string()
                    .parse::<f64>()
                    .unwrap()
            ),
            "bob's balance is his paper wallet's now: {balance}"
        );
        app.server.stop().await.unwrap();
    }
}

#[tokio::test]
async fn a_paper_key_trades_on_paper_and_bad_exchanges_are_refused() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("dora").await;
    let res = app
        .call(
            Method::POST,
            "/api/api-keys/",
            &token,
            Some(json!({"key": "k", "secret": "s", "exchange": "moon"})),
        )
        .await;
    assert_json_error(res, StatusCode::BAD_REQUEST).await;
    let keys = app
        .call_ok(Method::GET, "/api/api-keys/", &token, None, StatusCode::OK)
        .await;
    assert_eq!(keys, json!([]), "nothing stored");

    // The default exchange is Bybit.
    let bybit = app
        .call_ok(
            Method::POST,
            "/api/api-keys/",
            &token,
            Some(json!({"key": "k", "secret": "s", "is_demo": false})),
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(bybit["exchange"], "bybit");
    let paper = app.add_key(&token, "any", "thing", false).await;
    assert_eq!(paper["exchange"], "paper");
    let activate = format!("/api/api-keys/{}/set_active/", paper["id"]);
    app.call_ok(Method::POST, &activate, &token, None, StatusCode::OK)
        .await;
    assert_eq!(
        status(&app, &token).await["venue"],
        json!({"exchange": "paper", "environment": "paper"})
    );
    // The Symbols setting takes what the account's market lists: the simulated market has
    // no WIFUSDT.
    let record = &app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await[0];
    let path = format!("/api/bot-settings/{}/", record["id"]);
    let res = app
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"symbols": ["WIFUSDT", "BTCUSDT"]})),
        )
        .await;
    let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        body["fields"]["symbols"][0],
        "Not traded on this account's market: WIFUSDT."
    );
    let saved = app
        .call_ok(
            Method::PUT,
            &path,
            &token,
            Some(json!({"symbols": ["ethusdt", "BTCUSDT"]})),
            StatusCode::OK,
        )
        .await;
    assert_eq!(saved["symbols"], json!(["ETHUSDT", "BTCUSDT"]), "{saved}");

    // Deactivate on a key of another user is a 404; on an inactive key a no-op.
    let other = app.user_with_token("eve").await;
    let deactivate = format!("/api/api-keys/{}/deactivate/", paper["id"]);
    let res = app.call(Method::POST, &deactivate, &other, None).await;
    assert_json_error(res, StatusCode::NOT_FOUND).await;
    let inactive = format!("/api/api-keys/{}/deactivate/", bybit["id"]);
    let key = app
        .call_ok(Method::POST, &inactive, &token, None, StatusCode::OK)
        .await;
    assert_eq!(key["is_active"], false);
    app.server.stop().await.unwrap();
}

#[tokio::test]
async fn paper_on_bybits_prices_fills_at_bybits_price_and_sends_bybit_nothing() {
    let fake_price = Decimal::from(23456);
    let fake = fake_bybit(fake_price).await;
    let (rest, public_ws) = (fake.rest_url(), fake.public_ws_url());
    let app = TestApp::spawn_with(TestDatabase::sqlite(), move |c| {
        c.paper.market = signaldesk_engine::paper::PaperMarket::Bybit;
        c.market.bybit_rest_url = rest;
        c.market.bybit_ws_url = public_ws;
    })
    .await;
    let dora = app.user_with_token("dora").await;
    assert_eq!(
        status(&app, &dora).await["venue"],
        json!({"exchange": "paper", "environment": "paper"})
    );
    app.call_ok(
        Method::POST,
        "/api/command/bot/start/",
        &dora,
        None,
        StatusCode::OK,
    )
    .await;
    let hook = app.new_webhook(&dora).await;
    post_alert(&app, &hook, "BTCUSDT", "NEUTRAL").await;
    post_alert(&app, &hook, "BTCUSDT", "STRONG_BUY").await;
    let trade = open_trade(&app, &dora, "BTCUSDT").await;
    let entry: Decimal = trade["entry_price"].to_string().parse().unwrap();
    // The paper exchange's fill: Bybit's last price and the paper slippage (2 bps).
    assert!(
        (entry - fake_price).abs() <= fake_price * Decimal::new(3, 4),
        "{trade}"
    );
    assert_eq!(
        trade["venue"],
        json!({"exchange": "paper", "environment": "paper"})
    );
    assert_eq!(fake.requests("/v5/order/create"), 0);
    app.server.stop().await.unwrap();
}

/// Opens a trade on `symbol` through the user's webhook, closes it from the app and answers
/// its pnl once it is closed.
async fn trade_once(app: &TestApp, token: &str, hook: &str, symbol: &str) -> f64 {
    post_alert(app, hook, symbol, "NEUTRAL").await;
    post_alert(app, hook, symbol, "STRONG_BUY").await;
    let trade = open_trade(app, token, symbol).await;
    let close = format!("/api/trades/{}/close/", trade["id"]);
    let closed = app
        .call_ok(Method::POST, &close, token, None, StatusCode::OK)
        .await;
    assert_eq!(closed["status"], "CLOSED", "{closed}");
    closed["pnl"].as_f64().unwrap()
}

async fn bot(app: &TestApp, token: &str, command: &str) {
    let path = format!("/api/command/bot/{command}/");
    app.call_ok(Method::POST, &path, token, None, StatusCode::OK)
        .await;
}

/// What the statistics pages and the dashboard show of the user's trades, with the ids of
/// the trades in the chains table.
async fn figures(app: &TestApp, token: &str) -> (Value, Value, Value, Value, Vec<Value>) {
    let get = |path: &'static str| async move {
        app.call_ok(Method::GET, path, token, None, StatusCode::OK)
            .await
    };
    let chains = get("/api/martingale_chains/").await;
    let chain_trades = chains["chains"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["trades"].as_array().unwrap().clone())
        .map(|t| t["id"].clone())
        .collect();
    (
        get("/api/stats/?period=all").await,
        get("/api/stats/daily/").await,
        get("/api/statistics/?period=all").await,
        get("/api/dashboard/").await,
        chain_trades,
    )
}

fn close_to(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[tokio::test]
async fn statistics_follow_the_account_from_paper_to_bybit_demo_and_back() {
    for db in TestDatabase::all().await {
        let fake = fake_bybit(Decimal::from(12345)).await;
        let app = server_beside(&fake, db).await;
        let sam = app.user_with_token("sam").await;
        let hook = app.new_webhook(&sam).await;
        let wait = Duration::from_secs(30);

        // On paper (no key): one trade.
        bot(&app, &sam, "start").await;
        let paper_pnl = trade_once(&app, &sam, &hook, "BTCUSDT").await;
        bot(&app, &sam, "stop").await;
        let paper = figures(&app, &sam).await;
        let (stats, daily, live, dashboard, _) = &paper;
        assert_eq!(stats["total_trades"], 1, "{stats}");
        assert!(close_to(stats["total_pnl"].as_f64().unwrap(), paper_pnl));
        assert_eq!(daily[0]["trades"], 1, "{daily}");
        assert_eq!(live["total_trades"], 1, "{live}");
        assert_eq!(dashboard["summary"]["total_trades"], 1, "{dashboard}");

        // On Bybit demo: two trades, and only they count.
        let demo = app
            .add_key_on(&sam, "bybit", "DEMOKEY", "DEMOSECRET", true)
            .await;
        let activate = format!("/api/api-keys/{}/set_active/", demo["id"]);
        app.call_ok(Method::POST, &activate, &sam, None, StatusCode::OK)
            .await;
        let (mut ws, first) = LiveClient::authenticated(&app, &sam).await;
        let snapshot = first.iter().find(|m| m["type"] == "statistics").unwrap();
        assert_eq!(snapshot["data"]["total_trades"], 0, "{snapshot}");
        bot(&app, &sam, "start").await;
        let mut demo_pnl = trade_once(&app, &sam, &hook, "BTCUSDT").await;
        ws.next_where("statistics", wait, |m| {
            m["data"]["total_trades"] == 1
                && close_to(m["data"]["total_profit"].as_f64().unwrap(), demo_pnl)
        })
        .await;
        demo_pnl += trade_once(&app, &sam, &hook, "ETHUSDT").await;
        ws.next_where("statistics", wait, |m| {
            m["data"]["total_trades"] == 2
                && close_to(m["data"]["total_profit"].as_f64().unwrap(), demo_pnl)
        })
        .await;
        bot(&app, &sam, "stop").await;
        let all = app
            .call_ok(Method::GET, "/api/trades/", &sam, None, StatusCode::OK)
            .await;
        assert_eq!(all["count"], 3, "the trade list keeps every account: {all}");
        let on_demo: Vec<Value> = all["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["venue"]["environment"] == "demo")
            .map(|t| t["id"].clone())
            .collect();
        assert_eq!(on_demo.len(), 2, "{all}");
        let (stats, daily, live, dashboard, chained) = figures(&app, &sam).await;
        assert_eq!(stats["total_trades"], 2, "{stats}");
        assert!(close_to(stats["total_pnl"].as_f64().unwrap(), demo_pnl));
        let daily_trades: u64 = daily
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["trades"].as_u64().unwrap())
            .sum();
        assert_eq!(daily_trades, 2, "{daily}");
        assert_eq!(live["total_trades"], 2, "{live}");
        assert!(close_to(live["total_profit"].as_f64().unwrap(), demo_pnl));
        assert_eq!(dashboard["summary"]["total_trades"], 2, "{dashboard}");
        assert_eq!(dashboard["summary"]["open_trades"], 0, "{dashboard}");
        assert_ne!(dashboard["volume24h"], paper.3["volume24h"], "{dashboard}");
        assert!(chained.iter().all(|id| on_demo.contains(id)), "{chained:?}");

        // Deactivate: back on paper, the paper figures again.
        let deactivate = format!("/api/api-keys/{}/deactivate/", demo["id"]);
        app.call_ok(Method::POST, &deactivate, &sam, None, StatusCode::OK)
            .await;
        let again = figures(&app, &sam).await;
        assert_eq!(again.0, paper.0);
        assert_eq!(again.1, paper.1);
        assert_eq!(again.2, paper.2);
        assert_eq!(again.3["summary"], paper.3["summary"]);
        assert_eq!(again.3["volume24h"], paper.3["volume24h"]);
        assert_eq!(again.4, paper.4);
        let (_, first) = LiveClient::authenticated(&app, &sam).await;
        let snapshot = first.iter().find(|m| m["type"] == "statistics").unwrap();
        assert_eq!(snapshot["data"]["total_trades"], 1, "{snapshot}");
        app.server.stop().await.unwrap();
    }
}
