//! The Trades page's API on SQLite and PostgreSQL: `/api/trades/search/` (filters, the
//! server's sorts, keyset pages that stay put while trades arrive, 400s), the CSV export
//! (the same rows as the filter, quoting, defused formulas, exact decimals) and a live
//! trade's chart. Another user's trades, and the user's trades on another account, never
//! show.

use std::str::FromStr;

use chrono::{NaiveDate, Utc};
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_store::{Trade, TradeStatus};

use crate::helpers::{assert_json_error, TestApp};

const HOUR: i64 = 3_600_000;

struct Seed {
    symbol: &'static str,
    side: PositionSide,
    status: TradeStatus,
    reason: Option<&'static str>,
    pnl: &'static str,
    /// Hours before now it was made.
    hours_ago: i64,
}

fn trade(user_id: i64, n: usize, s: &Seed, now: i64, venue: AccountVenue) -> Trade {
    let created = now - s.hours_ago * HOUR;
    let closed = s.status == TradeStatus::Closed;
    Trade {
        id: 0,
        user_id,
        symbol: s.symbol.into(),
        side: s.side,
        status: s.status,
        client_order_id: format!("ts-{user_id}-{n}-{}", venue.as_str()),
        leverage: 10,
        margin: Decimal::from(100),
        qty: Decimal::from_str("0.0123").unwrap(),
        open_qty: if closed { Decimal::ZERO } else { Decimal::ONE },
        entry_price: Some(Decimal::from(30000)),
        exit_price: closed.then(|| Decimal::from(30100)),
        closed_qty: Decimal::ZERO,
        exit_value: Decimal::ZERO,
        pnl: Decimal::from_str(s.pnl).unwrap(),
        fees: Decimal::from_str("0.0165").unwrap(),
        funding: Decimal::ZERO,
        volume: Decimal::ZERO,
        stop_loss: None,
        tp_step: 0,
        close_reason: s.reason.map(str::to_string),
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: created,
        opened_at: Some(created),
        closed_at: closed.then_some(created + HOUR / 2),
        venue: Some(venue),
    }
}

use PositionSide::{Long, Short};
use TradeStatus::{Closed, Open};

/// Alice's paper trades: distinct pnls so an order names itself.
fn seeds() -> Vec<Seed> {
    let s = |symbol, side, status, reason, pnl, hours_ago| Seed {
        symbol,
        side,
        status,
        reason,
        pnl,
        hours_ago,
    };
    vec![
        s("BTCUSDT", Long, Closed, Some("take_profit"), "12.5", 2),
        s("BTCUSDT", Short, Closed, Some("stop_loss"), "-7.25", 30),
        s("ETHUSDT", Long, Closed, Some("stop_loss"), "-0.5", 50),
        s("ETHUSDT", Short, Closed, Some("trailing"), "3.125", 100),
        s("SOLUSDT", Long, Open, None, "0", 1),
        s("BTCUSDT", Long, Closed, Some("manual"), "100.0001", 400),
        s(
            "SOLUSDT",
            Short,
            Closed,
            Some("take_profit"),
            "-100.5",
            1000,
        ),
    ]
}

/// Seeds alice (Asia/Tokyo), bob, and an alice trade on a Bybit account; returns alice's
/// token and her ids by seed index.
async fn seeded(app: &TestApp) -> (String, Vec<i64>) {
    let token = app.user_with_token("alice").await;
    let bob_token = app.user_with_token("bob").await;
    let settings = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    app.call_ok(
        Method::PUT,
        &format!("/api/bot-settings/{}/", settings[0]["id"]),
        &token,
        Some(json!({"user_timezone": "Asia/Tokyo"})),
        StatusCode::OK,
    )
    .await;
    let alice = app
        .store()
        .user_by_username("alice")
        .await
        .unwrap()
        .unwrap()
        .id;
    let bob = app
        .store()
        .user_by_username("bob")
        .await
        .unwrap()
        .unwrap()
        .id;
    let now = Utc::now().timestamp_millis();
    let mut ids = Vec::new();
    for (n, s) in seeds().iter().enumerate() {
        let t = app
            .store()
            .insert_trade(&trade(alice, n, s, now, AccountVenue::Paper))
            .await
            .unwrap();
        ids.push(t.id);
        // The same trade for bob, and for alice on another account: never listed.
        app.store()
            .insert_trade(&trade(bob, n, s, now, AccountVenue::Paper))
            .await
            .unwrap();
        app.store()
            .insert_trade(&trade(alice, n, s, now, AccountVenue::Bybit { demo: true }))
            .await
            .unwrap();
    }
    drop(bob_token);
    (token, ids)
}

async fn get(app: &TestApp, token: &str, path: &str) -> Value {
    app.call_ok(Method::GET, path, token, None, StatusCode::OK)
        .await
}

fn ids_of(page: &Value) -> Vec<i64> {
    page["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect()
}

/// Every id of a search, page by page with `limit`.
async fn walk(app: &TestApp, token: &str, query: &str, limit: usize) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut path = format!("/api/trades/search/?{query}&limit={limit}");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let page = get(app, token, &path).await;
        assert!(page["results"].as_array().unwrap().len() <= limit);
        ids.extend(ids_of(&page));
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return ids,
        }
    }
    panic!("never reached the last page of {query}");
}

#[tokio::test]
async fn search_filters_the_account_s_trades_by_every_field() {
    for app in TestApp::on_every_backend().await {
        let (token, ids) = seeded(&app).await;
        let all = get(&app, &token, "/api/trades/search/").await;
        assert_eq!(all["count"], 7, "{}", app.db_url());
        assert_eq!(all["time_zone"], "Asia/Tokyo");
        assert_eq!(all["venue"]["exchange"], "paper", "{}", all["venue"]);
        // Newest opened first by default.
        assert_eq!(
            ids_of(&all),
            vec![ids[4], ids[0], ids[1], ids[2], ids[3], ids[5], ids[6]]
        );
        for (query, want) in [
            ("symbol=btcusdt", vec![ids[0], ids[1], ids[5]]),
            ("side=short", vec![ids[1], ids[3], ids[6]]),
            ("status=open", vec![ids[4]]),
            ("status=CLOSED&close_reason=stop_loss", vec![ids[1], ids[2]]),
            ("close_reason=take_profit&side=long", vec![ids[0]]),
            ("period=7d&symbol=SOLUSDT", vec![ids[4]]),
            ("period=all&status=all", ids_of(&all)),
        ] {
            let page = get(&app, &token, &format!("/api/trades/search/?{query}")).await;
            assert_eq!(ids_of(&page), want, "{query} on {}", app.db_url());
            assert_eq!(page["count"], want.len(), "{query}");
        }
        // A custom period is whole days in the user's zone, both ends included.
        let tokyo = chrono_tz::Asia::Tokyo;
        let day_of = |i: usize| {
            let t = Utc::now().timestamp_millis() - seeds()[i].hours_ago * HOUR;
            chrono::DateTime::from_timestamp_millis(t)
                .unwrap()
                .with_timezone(&tokyo)
                .date_naive()
        };
        let (from, to): (NaiveDate, NaiveDate) = (day_of(5), day_of(3));
        let custom = get(
            &app,
            &token,
            &format!("/api/trades/search/?period=custom&date_from={from}&date_to={to}"),
        )
        .await;
        let inside: Vec<i64> = (0..7)
            .filter(|&i| day_of(i) >= from && day_of(i) <= to)
            .map(|i| ids[i])
            .collect();
        let mut got = ids_of(&custom);
        got.sort();
        let mut want = inside;
        want.sort();
        assert_eq!(got, want);
        assert!(got.contains(&ids[3]) && got.contains(&ids[5]));
    }
}

#[tokio::test]
async fn sorts_are_the_server_s_and_cursor_pages_stay_put_while_trades_arrive() {
    for app in TestApp::on_every_backend().await {
        let (token, ids) = seeded(&app).await;
        // Exact decimal order, not text order: 100.0001 > 12.5 > 3.125 > 0 > -0.5 > -7.25 > -100.5.
        let by_pnl = vec![ids[5], ids[0], ids[3], ids[4], ids[2], ids[1], ids[6]];
        assert_eq!(
            walk(&app, &token, "sort=pnl_desc", 2).await,
            by_pnl,
            "{}",
            app.db_url()
        );
        let mut ascending = by_pnl.clone();
        ascending.reverse();
        assert_eq!(walk(&app, &token, "sort=pnl_asc", 3).await, ascending);
        // Closed newest first; the open trade (no close time) last.
        assert_eq!(
            walk(&app, &token, "sort=closed_desc", 4).await,
            vec![ids[0], ids[1], ids[2], ids[3], ids[5], ids[6], ids[4]]
        );
        assert_eq!(
            walk(&app, &token, "sort=opened_asc", 1).await,
            vec![ids[6], ids[5], ids[3], ids[2], ids[1], ids[0], ids[4]]
        );
        // Take the first page, store a newer trade and one with the top pnl, then go on: the
        // pages still cover the original rows exactly once, in order.
        let first = get(&app, &token, "/api/trades/search/?limit=3").await;
        let alice = app
            .store()
            .user_by_username("alice")
            .await
            .unwrap()
            .unwrap()
            .id;
        let now = Utc::now().timestamp_millis();
        let newest = Seed {
            symbol: "BTCUSDT",
            side: Long,
            status: Open,
            reason: None,
            pnl: "999",
            hours_ago: 0,
        };
        app.store()
            .insert_trade(&trade(alice, 50, &newest, now + 1000, AccountVenue::Paper))
            .await
            .unwrap();
        let mut seen = ids_of(&first);
        let mut cursor = first["next_cursor"].as_str().unwrap().to_string();
        loop {
            let page = get(
                &app,
                &token,
                &format!("/api/trades/search/?limit=3&cursor={cursor}"),
            )
            .await;
            seen.extend(ids_of(&page));
            match page["next_cursor"].as_str() {
                Some(c) => cursor = c.to_string(),
                None => break,
            }
        }
        assert_eq!(
            seen,
            vec![ids[4], ids[0], ids[1], ids[2], ids[3], ids[5], ids[6]],
            "{}",
            app.db_url()
        );
    }
}

#[tokio::test]
async fn bad_parameters_answer_400_with_a_sentence() {
    for app in TestApp::on_every_backend().await {
        let (token, _) = seeded(&app).await;
        let pnl_cursor = get(&app, &token, "/api/trades/search/?sort=pnl_desc&limit=1").await
            ["next_cursor"]
            .as_str()
            .unwrap()
            .to_string();
        for query in [
            "side=up".to_string(),
            "status=won".into(),
            "sort=profit".into(),
            "limit=0".into(),
            "limit=201".into(),
            "limit=ten".into(),
            "period=year".into(),
            "period=custom&date_from=2026-13-01".into(),
            "period=custom&date_from=2026-02-02&date_to=2026-02-01".into(),
            "close_reason=DROP%20TABLE".into(),
            "symbol=BTC-USDT".into(),
            "cursor=not-a-cursor".into(),
            "cursor=%25%25".into(),
            format!("sort=opened_desc&cursor={pnl_cursor}"),
        ] {
            let res = app
                .call(
                    Method::GET,
                    &format!("/api/trades/search/?{query}"),
                    &token,
                    None,
                )
                .await;
            assert_json_error(res, StatusCode::BAD_REQUEST).await;
            let res = app
                .call(
                    Method::GET,
                    &format!("/api/trades/export.csv?{query}"),
                    &token,
                    None,
                )
                .await;
            if query.starts_with("limit") || query.contains("cursor") {
                // The export reads everything: it takes no page parameters to refuse.
                continue;
            }
            assert_json_error(res, StatusCode::BAD_REQUEST).await;
        }
        let res = Client::new()
            .get(app.url("/api/trades/export.csv"))
            .send()
            .await
            .unwrap();
        assert_json_error(res, StatusCode::UNAUTHORIZED).await;
    }
}

use reqwest::Client;

/// Parses RFC 4180 text into rows of cells.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    rows
}

#[tokio::test]
async fn the_export_is_the_filter_s_rows_as_safe_exact_csv() {
    for app in TestApp::on_every_backend().await {
        let (token, _) = seeded(&app).await;
        let alice = app
            .store()
            .user_by_username("alice")
            .await
            .unwrap()
            .unwrap()
            .id;
        let now = Utc::now().timestamp_millis();
        let evil = Seed {
            symbol: "BTCUSDT",
            side: Short,
            status: Closed,
            reason: Some("x"),
            pnl: "-0.000001",
            hours_ago: 3,
        };
        let mut t = trade(alice, 60, &evil, now, AccountVenue::Paper);
        t.symbol = "=HYPERLINK(\"http://x\",\"a,b\")".into();
        t.close_reason = Some("@SUM(1+1)".into());
        let evil_id = app.store().insert_trade(&t).await.unwrap().id;
        for query in ["", "side=short", "status=closed&sort=pnl_asc", "period=24h"] {
            let page = get(
                &app,
                &token,
                &format!("/api/trades/search/?{query}&limit=200"),
            )
            .await;
            let res = app
                .call(
                    Method::GET,
                    &format!("/api/trades/export.csv?{query}"),
                    &token,
                    None,
                )
                .await;
            assert_eq!(res.status(), StatusCode::OK);
            assert!(res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/csv"));
            let disposition = res.headers()["content-disposition"]
                .to_str()
                .unwrap()
                .to_string();
            let today = Utc::now()
                .with_timezone(&chrono_tz::Asia::Tokyo)
                .format("%Y-%m-%d");
            assert_eq!(
                disposition,
                format!("attachment; filename=\"trades-paper-{today}.csv\"")
            );
            let text = res.text().await.unwrap();
            assert!(text.ends_with("\r\n"));
            let rows = parse_csv(&text);
            assert_eq!(rows[0][0], "id");
            assert_eq!(rows[0].len(), 21);
            let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
            let ids: Vec<i64> = rows[1..].iter().map(|r| r[0].parse().unwrap()).collect();
            assert_eq!(ids, ids_of(&page), "{query} on {}", app.db_url());
            for r in &rows[1..] {
                assert_eq!(r.len(), 21, "{r:?}");
                assert_eq!(r[col("time_zone")], "Asia/Tokyo");
                assert!(r[col("created_at_utc")].ends_with('Z'));
            }
            if let Some(r) = rows[1..].iter().find(|r| r[0] == evil_id.to_string()) {
                assert_eq!(r[col("symbol")], "'=HYPERLINK(\"http://x\",\"a,b\")");
                assert_eq!(r[col("close_reason")], "'@SUM(1+1)");
                // Money exact, as stored, sign kept.
                assert_eq!(r[col("pnl_usdt")], "-0.000001");
                assert_eq!(r[col("fees_usdt")], "0.0165");
                assert_eq!(r[col("quantity")], "0.0123");
                assert!(r[col("opened_at_local")].ends_with("+09:00"));
            }
        }
        // Compressed, as browsers ask for it, the stream still ends cleanly.
        let res = Client::new()
            .get(app.url("/api/trades/export.csv"))
            .header("Authorization", format!("Token {token}"))
            .header("Accept-Encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.headers()["content-encoding"], "gzip");
        let packed = res.bytes().await.expect("a whole compressed body");
        assert_eq!(&packed[..2], &[0x1f, 0x8b]);
        // Bob's export holds only his own trades.
        let bob_token = app.login("bob").await;
        let res = app
            .call(Method::GET, "/api/trades/export.csv", &bob_token, None)
            .await;
        let rows = parse_csv(&res.text().await.unwrap());
        assert_eq!(rows.len(), 1 + 7);
        assert!(rows.iter().all(|r| r[0] != evil_id.to_string()));
    }
}

#[tokio::test]
async fn a_live_trade_has_a_chart_on_its_market_s_candles() {
    for app in TestApp::on_every_backend().await {
        let (token, _) = seeded(&app).await;
        let alice = app
            .store()
            .user_by_username("alice")
            .await
            .unwrap()
            .unwrap()
            .id;
        let bob = app
            .store()
            .user_by_username("bob")
            .await
            .unwrap()
            .unwrap()
            .id;
        let now = app.market_now();
        let seed = Seed {
            symbol: "BTCUSDT",
            side: Long,
            status: Closed,
            reason: Some("manual"),
            pnl: "1",
            hours_ago: 0,
        };
        let mut t = trade(alice, 70, &seed, now, AccountVenue::Paper);
        t.opened_at = Some(now - 40 * 60_000);
        t.closed_at = Some(now - 20 * 60_000);
        let id = app.store().insert_trade(&t).await.unwrap().id;
        let chart = get(&app, &token, &format!("/api/trades/{id}/chart/")).await;
        assert_eq!(chart["symbol"], "BTCUSDT");
        let candles = chart["candles"].as_array().unwrap();
        assert!(!candles.is_empty(), "no candles on {}", app.db_url());
        let first = candles[0]["time"].as_i64().unwrap();
        assert!(
            first <= now - 40 * 60_000,
            "the window starts before the entry"
        );
        let kinds: Vec<&str> = chart["markers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, vec!["entry", "exit"]);
        // Someone else's trade is not found; one that never opened has no chart.
        let theirs = app
            .store()
            .insert_trade(&trade(bob, 71, &seed, now, AccountVenue::Paper))
            .await
            .unwrap()
            .id;
        let res = app
            .call(
                Method::GET,
                &format!("/api/trades/{theirs}/chart/"),
                &token,
                None,
            )
            .await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
        let mut pending = trade(alice, 72, &seed, now, AccountVenue::Paper);
        pending.status = TradeStatus::Pending;
        pending.entry_price = None;
        pending.opened_at = None;
        let pending = app.store().insert_trade(&pending).await.unwrap().id;
        let res = app
            .call(
                Method::GET,
                &format!("/api/trades/{pending}/chart/"),
                &token,
                None,
            )
            .await;
        assert_json_error(res, StatusCode::CONFLICT).await;
    }
}

#[test]
fn the_export_takes_the_filter_and_no_page() {
    let document = signaldesk_server::router::document();
    let names = |path: &str| -> Vec<String> {
        document["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap_or_else(|| panic!("{path} has no parameters"))
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let export = names("/api/trades/export.csv");
    let search = names("/api/trades/search/");
    for page in ["cursor", "limit"] {
        assert!(!export.iter().any(|p| p == page), "export takes {page}");
        assert!(search.iter().any(|p| p == page), "search lacks {page}");
    }
    assert!(export.iter().all(|p| search.contains(p)));
    assert_eq!(export.len() + 2, search.len());
}
