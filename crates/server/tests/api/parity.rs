//! Backtest against reality (docs/parity.md): `GET /api/parity/` refuses bad periods with a
//! 400 and a sentence, answers a comparison, and `signaldesk parity` exits 0 when live and
//! backtest agree and 3 when they differ. A paper bot trading live on the simulated market
//! agrees with its replay trade for trade.

use std::str::FromStr;

use chrono::{Days, Utc};
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::Value;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::{Store, Trade, TradeStatus};

use crate::cli::{create_user, signaldesk};
use crate::helpers::{alert_body, assert_json_error, TestApp};

fn day(days_ago: u64) -> String {
    (Utc::now().date_naive() - Days::new(days_ago)).to_string()
}

#[tokio::test]
async fn bad_periods_are_400s_with_a_sentence() {
    let app = TestApp::spawn().await;
    app.create_user("trader").await;
    let token = app.login("trader").await;
    let yesterday = day(1);
    let tomorrow = (Utc::now().date_naive() + Days::new(2)).to_string();
    let long_ago = day(400);
    for (query, field) in [
        ("/api/parity/".to_string(), "from"),
        (format!("/api/parity/?from={yesterday}"), "to"),
        (
            format!("/api/parity/?from=yesterday&to={yesterday}"),
            "from",
        ),
        (format!("/api/parity/?from={yesterday}&to=2026-13-01"), "to"),
        (format!("/api/parity/?from={yesterday}&to={}", day(3)), "to"),
        (format!("/api/parity/?from={long_ago}&to={yesterday}"), "to"),
        (format!("/api/parity/?from={tomorrow}&to={tomorrow}"), "to"),
        (format!("/api/parity/?from=%20&to={yesterday}"), "from"),
    ] {
        let res = app.call(Method::GET, &query, &token, None).await;
        let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert!(error["fields"][field].is_array(), "{query}: {error:#}");
        let sentence = error["fields"][field][0].as_str().unwrap_or_default();
        assert!(sentence.ends_with('.'), "{query}: {error:#}");
    }
}

#[tokio::test]
async fn a_period_without_signals_or_trades_agrees() {
    let app = TestApp::spawn().await;
    app.create_user("trader").await;
    let token = app.login("trader").await;
    let query = format!("/api/parity/?from={}&to={}", day(2), day(1));
    let res = app.call(Method::GET, &query, &token, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let report: Value = res.json().await.unwrap();
    assert_eq!(report["differences"], 0, "{report:#}");
    assert_eq!(report["data"], "simulated");
    assert_eq!(report["rows"].as_array().unwrap().len(), 0);
    assert_eq!(report["totals"]["live"]["trades"], 0);
}

fn d(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

/// A closed live trade opened by a signal that is not stored: one live-only row.
fn lone_trade(user_id: i64, at_ms: i64) -> Trade {
    Trade {
        id: 0,
        user_id,
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        status: TradeStatus::Closed,
        client_order_id: format!("parity-{at_ms}"),
        leverage: 10,
        margin: d("100"),
        qty: d("0.01"),
        open_qty: d("0"),
        entry_price: Some(d("30000")),
        exit_price: Some(d("30300")),
        closed_qty: d("0.01"),
        exit_value: d("303"),
        pnl: d("2.6"),
        fees: d("0.4"),
        funding: d("0"),
        volume: d("603"),
        stop_loss: None,
        tp_step: 0,
        close_reason: Some("manual".into()),
        chain_id: None,
        chain_step: None,
        signal_id: Some(987_654),
        signal_at: Some(at_ms),
        signal_price: Some(d("30000")),
        created_at: at_ms,
        opened_at: Some(at_ms),
        closed_at: Some(at_ms + 600_000),
        venue: Some(AccountVenue::Paper),
    }
}

#[test]
fn the_command_exits_0_when_they_agree_and_3_when_they_differ() {
    let dir = tempfile::tempdir().unwrap();
    let out = create_user(dir.path(), "trader");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parity = |extra: &[&str]| {
        let mut args = vec![
            "parity",
            "--username",
            "trader",
            "--from",
            "2026-11-02",
            "--to",
        ];
        args.extend_from_slice(extra);
        signaldesk(dir.path()).args(args).output().unwrap()
    };

    let agree = parity(&["2026-11-03"]);
    assert_eq!(
        agree.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&agree.stderr)
    );
    let text = String::from_utf8_lossy(&agree.stdout);
    assert!(text.contains("No differences"), "{text}");

    // A live trade whose signal is not stored: the backtest cannot have it.
    let url = format!("sqlite://{}/sd.db", dir.path().display());
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = Store::connect(&url).await.unwrap();
        let user = store.user_by_username("trader").await.unwrap().unwrap();
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-02T10:00:00Z")
            .unwrap()
            .timestamp_millis();
        store.insert_trade(&lone_trade(user.id, at)).await.unwrap();
        store.close().await;
    });
    let differ = parity(&["2026-11-03", "--json"]);
    assert_eq!(
        differ.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&differ.stderr)
    );
    let report: Value = serde_json::from_slice(&differ.stdout).unwrap();
    assert_eq!(report["differences"], 1, "{report:#}");
    let row = &report["rows"][0];
    assert_eq!(row["signal_id"], 987_654);
    assert!(row["backtest"].is_null());
    assert_eq!(row["live"]["pnl"], 2.6);
    assert!(
        row["reason"].as_str().unwrap().contains("missed signal"),
        "{row:#}"
    );
    assert_eq!(report["totals"]["difference"]["pnl"], -2.6);

    // An RFC 3339 period that ends before the trade: nothing to compare.
    let before = parity(&["2026-11-02T09:00:00Z"]);
    assert_eq!(
        before.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );

    // A bad period is an error (1), not a difference.
    let bad = parity(&["not-a-date"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("neither a date"));
}

fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

async fn open_trades(app: &TestApp, user_id: i64) -> usize {
    app.store()
        .all_trades(user_id)
        .await
        .unwrap()
        .iter()
        .filter(|t| matches!(t.status, TradeStatus::Open | TradeStatus::Pending))
        .count()
}

/// The whole live path, in real time: the simulated market's ticks, webhook alerts stored
/// by the signal worker, the trading worker and the paper exchange opening, protecting and
/// closing positions by stop loss, take profits and trailing stops. `parity` over the period
/// replays it from the market's anchor and the stored signals: zero differences.
#[tokio::test]
async fn a_paper_bot_trading_live_agrees_with_its_replay_trade_for_trade() {
    let symbols = ["BTCUSDT", "ETHUSDT", "SOLUSDT", "DOGEUSDT"];
    let app = TestApp::spawn_with(
        signaldesk_store::test_support::TestDatabase::sqlite(),
        |c| {
            c.market.symbols = symbols.map(String::from).to_vec();
            // Few rating signals: the alerts below make the trades.
            c.market.interval_minutes = 15;
        },
    )
    .await;
    let token = app.user_with_token("trader").await;
    let user_id = app
        .store()
        .user_by_username("trader")
        .await
        .unwrap()
        .unwrap()
        .id;
    let mut settings = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await[0]
        .clone();
    // Moves a 2-second tick makes within a minute: every trade ends within the test.
    for (field, value) in [
        ("initial_stop_loss_pct", 0.05),
        ("take_profit_first_pct", 0.02),
        ("take_profit_next_pct", 0.02),
        ("trail_activation_pct", 0.02),
        ("trail_step_pct", 0.01),
    ] {
        settings[field] = serde_json::json!(value);
    }
    settings["use_trailing_stop"] = serde_json::json!(true);
    settings["max_trades"] = serde_json::json!(10);
    let path = format!("/api/bot-settings/{}/", settings["id"]);
    app.call_ok(Method::PUT, &path, &token, Some(settings), StatusCode::OK)
        .await;
    let hook = app.new_webhook(&token).await;
    // The period starts before the signals and the bot: the ratings stored when the signals
    // start come before the bot did, and the replay starts from them as the bot did.
    let from_ms = app.market_now();
    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        &token,
        None,
        StatusCode::OK,
    )
    .await;
    app.start_bot(&token).await;
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;

    let client = reqwest::Client::new();
    for round in 0..6 {
        let signal = if round % 2 == 0 {
            "strong_buy"
        } else {
            "strong_sell"
        };
        for symbol in symbols {
            let body = alert_body(symbol, signal).to_string();
            let res = client.post(app.url(&hook)).body(body).send().await.unwrap();
            assert_eq!(res.status(), StatusCode::ACCEPTED);
        }
        tokio::time::sleep(std::time::Duration::from_secs(8)).await;
    }
    // Every trade ends by its stops; the period ends with none open.
    let mut to_ms = app.market_now();
    for _ in 0..90 {
        if open_trades(&app, user_id).await == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        to_ms = app.market_now();
    }
    assert_eq!(open_trades(&app, user_id).await, 0, "trades still open");

    let query = format!(
        "/api/parity/?from={}&to={}",
        rfc3339(from_ms),
        rfc3339(to_ms)
    );
    let report = app
        .call_ok(Method::GET, &query, &token, None, StatusCode::OK)
        .await;
    let live = app.store().all_trades(user_id).await.unwrap();
    let traded: Vec<&Trade> = live
        .iter()
        .filter(|t| t.status == TradeStatus::Closed)
        .collect();
    assert!(traded.len() >= 4, "too few trades: {live:#?}");
    assert_eq!(report["data"], "simulated");
    assert_eq!(report["differences"], 0, "{report:#}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), traded.len(), "{report:#}");
    assert!(rows
        .iter()
        .all(|r| r["agrees"] == true && !r["backtest"].is_null()));
    assert_eq!(report["totals"]["live"], report["totals"]["backtest"]);
    let pnl: Decimal = traded.iter().map(|t| t.pnl).sum();
    assert_eq!(
        Decimal::from_str(&report["totals"]["live"]["pnl"].to_string()).unwrap(),
        pnl.normalize()
    );
    let reasons: std::collections::HashSet<_> = traded
        .iter()
        .filter_map(|t| t.close_reason.clone())
        .collect();
    assert!(reasons.len() >= 2, "one way of closing only: {reasons:?}");
}
