//! Backtest against reality (docs/parity.md): `GET /api/parity/` refuses bad periods with a
//! 400 and a sentence, answers a comparison, and `signaldesk parity` exits 0 when live and
//! backtest agree and 3 when they differ.

use std::str::FromStr;

use chrono::{Days, Utc};
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::Value;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::{Store, Trade, TradeStatus};

use crate::cli::{create_user, signaldesk};
use crate::helpers::{assert_json_error, TestApp};

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
