//! `/api/backtests/` on every database: a run in the background with its progress and
//! result, each user's runs their own, bad requests refused by field with nothing made, a
//! run on stored Bybit candles and instruments, one run per user at a time, cancel and
//! delete.

use std::str::FromStr;
use std::time::{Duration, Instant};

use chrono::{Days, Utc};
use reqwest::{Method, StatusCode};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::market::{Candle, Instrument, RiskTier};
use signaldesk_store::StoredInstrument;

use crate::helpers::{assert_json_error, TestApp};
use crate::wif::{assert_traded_on_wif, wif, wif_minutes};

fn day(days_ago: u64) -> String {
    (Utc::now().date_naive() - Days::new(days_ago)).to_string()
}

/// Reads the backtest until it is no longer running; every progress seen on the way.
async fn wait_for_end(app: &TestApp, token: &str, id: i64) -> (Value, Vec<f64>) {
    let path = format!("/api/backtests/{id}/");
    let began = Instant::now();
    let mut seen = Vec::new();
    loop {
        let run = app
            .call_ok(Method::GET, &path, token, None, StatusCode::OK)
            .await;
        seen.push(run["progress"].as_f64().unwrap());
        if run["status"] != "running" {
            return (run, seen);
        }
        assert!(
            began.elapsed() < Duration::from_secs(180),
            "still running: {run}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Starts a backtest (202) and answers the run.
async fn start_backtest(app: &TestApp, token: &str, asked: Value) -> Value {
    app.call_ok(
        Method::POST,
        "/api/backtests/",
        token,
        Some(asked),
        StatusCode::ACCEPTED,
    )
    .await
}

/// The chart's candles reach the trade's entry price, give or take the paper exchange's
/// slippage (2 basis points, rounded to the instrument's tick against the trader: the entry
/// of a candle's high may lie a tick above it).
fn assert_charted_at_entry(chart: &Value, trade: &Value, tick: f64) {
    let entry = trade["entry_price"].as_f64().unwrap();
    let slipped = |price: f64, up: bool| {
        let moved = if up { price * 1.0002 } else { price * 0.9998 };
        let ticks = moved / tick;
        (if up { ticks.ceil() } else { ticks.floor() }) * tick
    };
    let candles = chart["candles"].as_array().unwrap();
    let (low, high) = candles.iter().fold((f64::MAX, f64::MIN), |(l, h), c| {
        (
            l.min(c["low"].as_f64().unwrap()),
            h.max(c["high"].as_f64().unwrap()),
        )
    });
    let (low, high) = (slipped(low, false) - 1e-9, slipped(high, true) + 1e-9);
    assert!(
        low <= entry && entry <= high,
        "{entry} outside {low}..{high}"
    );
}

#[tokio::test]
async fn a_backtest_runs_in_the_background_and_only_its_owner_sees_it() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;
        let other = app.user_with_token("someone").await;
        let asked = json!({
            "date_from": day(3),
            "date_to": day(2),
            "symbols": ["BTCUSDT", "ETHUSDT"],
            "overrides": {"initial_stop_loss_pct": 2}
        });
        let started = start_backtest(&app, &token, asked).await;
        assert_eq!(started["status"], "running");
        assert_eq!(started["request"]["overrides"]["initial_stop_loss_pct"], 2);
        let id = started["id"].as_i64().unwrap();

        let (done, seen) = wait_for_end(&app, &token, id).await;
        assert_eq!(done["status"], "done", "{done}");
        assert_eq!(done["progress"], 1.0);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        let result = &done["result"];
        let trades = result["trades"].as_array().unwrap();
        assert_eq!(result["trades_total"], trades.len());
        let closed: Vec<&Value> = trades.iter().filter(|t| t["status"] == "CLOSED").collect();
        assert!(!closed.is_empty(), "{result}");
        assert_eq!(result["summary"]["stats"]["total_trades"], closed.len());
        // The override was used: every stop loss 2 % from its entry.
        for t in trades.iter().filter(|t| t["take_profits_taken"] == 0) {
            let (entry, stop) = (
                t["entry_price"].as_f64().unwrap(),
                t["stop_loss"].as_f64().unwrap(),
            );
            let distance = (entry - stop).abs() / entry;
            assert!((distance - 0.02).abs() < 0.001, "{t}");
        }

        assert_eq!(done["kind"], "single");
        assert_eq!(result["history"]["data"], "simulated");
        assert_eq!(result["settings"]["initial_stop_loss_pct"], 2.0);

        // A closed trade's chart: the symbol's candles around it and its markers.
        let trade = closed[0];
        let chart_path = format!("/api/backtests/{id}/trades/{}/chart/", trade["id"]);
        let chart = app
            .call_ok(Method::GET, &chart_path, &token, None, StatusCode::OK)
            .await;
        assert_eq!(chart["symbol"], trade["symbol"]);
        let candles = chart["candles"].as_array().unwrap();
        assert!(!candles.is_empty() && candles.len() <= 400, "{chart}");
        let markers = chart["markers"].as_array().unwrap();
        assert_eq!(markers[0]["kind"], "entry");
        assert_eq!(markers[0]["price"], trade["entry_price"]);
        let exit = markers.last().unwrap();
        assert_eq!(exit["kind"], "exit");
        assert_eq!(exit["price"], trade["exit_price"]);
        let taken = trade["take_profits_taken"].as_u64().unwrap() as usize;
        assert_eq!(markers.len(), 2 + taken, "{chart}");
        // The candles hold the entry price: the chart is the run's own history.
        let symbol = trade["symbol"].as_str().unwrap();
        let tick = signaldesk_venue::market::sim::default_symbols()
            .into_iter()
            .find(|s| s.instrument.symbol == symbol)
            .map(|s| f64::try_from(s.instrument.tick_size).unwrap())
            .unwrap();
        assert_charted_at_entry(&chart, trade, tick);
        let res = app.call(Method::GET, &chart_path, &other, None).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
        let missing = format!("/api/backtests/{id}/trades/999999/chart/");
        let res = app.call(Method::GET, &missing, &token, None).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;

        let listed = app
            .call_ok(Method::GET, "/api/backtests/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(listed.as_array().unwrap().len(), 1);
        assert_eq!(listed[0]["id"], id);
        assert!(listed[0]["result"].is_null(), "the list leaves results out");

        // Someone else sees nothing of it and cannot touch it.
        let theirs = app
            .call_ok(Method::GET, "/api/backtests/", &other, None, StatusCode::OK)
            .await;
        assert_eq!(theirs, json!([]));
        let path = format!("/api/backtests/{id}/");
        for method in [Method::GET, Method::DELETE] {
            let res = app.call(method, &path, &other, None).await;
            assert_json_error(res, StatusCode::NOT_FOUND).await;
        }
        let res = app
            .call(Method::POST, &format!("{path}cancel/"), &other, None)
            .await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;

        app.call_ok(Method::DELETE, &path, &token, None, StatusCode::NO_CONTENT)
            .await;
        let res = app.call(Method::GET, &path, &token, None).await;
        assert_json_error(res, StatusCode::NOT_FOUND).await;
    }
}

#[tokio::test]
async fn a_bad_request_is_refused_by_field_and_starts_nothing() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;
        let cases = [
            (json!({"date_to": day(1)}), "date_from"),
            (
                json!({"date_from": "2026-13-01", "date_to": day(1)}),
                "date_from",
            ),
            (json!({"date_from": day(1), "date_to": day(5)}), "date_to"),
            (
                json!({"date_from": day(2), "date_to": day(0).replace('-', "/")}),
                "date_to",
            ),
            (
                json!({"date_from": day(3), "date_to": (Utc::now().date_naive() + Days::new(2)).to_string()}),
                "date_to",
            ),
            (
                json!({"date_from": "2020-01-01", "date_to": "2021-06-01"}),
                "date_to",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "symbols": ["NOPEUSDT"]}),
                "symbols",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "symbols": "BTCUSDT"}),
                "symbols",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "source": "dreams"}),
                "source",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "overrides": {"leverage": 900}}),
                "overrides.leverage",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "overrides": [1]}),
                "overrides",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "data": "moon"}),
                "data",
            ),
            // Bybit's candles were never fetched here.
            (
                json!({"date_from": day(3), "date_to": day(2), "data": "bybit"}),
                "data",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "data": "bybit", "symbols": ["WIFUSDT"]}),
                "data",
            ),
            (
                json!({"date_from": day(3), "date_to": day(2), "data": "bybit", "symbols": ["no such"]}),
                "symbols",
            ),
        ];
        for (body, field) in cases {
            let res = app
                .call(Method::POST, "/api/backtests/", &token, Some(body.clone()))
                .await;
            let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            assert!(error["fields"][field].is_array(), "{body} -> {error}");
        }
        let res = app
            .call(Method::POST, "/api/backtests/", &token, Some(json!([1, 2])))
            .await;
        assert_json_error(res, StatusCode::BAD_REQUEST).await;
        let listed = app
            .call_ok(Method::GET, "/api/backtests/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(listed, json!([]));
    }
}

/// WIF as `candles fetch` stores it, with tick size `tick_size` and 2 % maintenance margin
/// in its first risk tier.
fn stored_wif(tick_size: &str) -> StoredInstrument {
    StoredInstrument {
        instrument: Instrument {
            tick_size: Decimal::from_str(tick_size).unwrap(),
            ..wif()
        },
        risk_tiers: vec![RiskTier {
            risk_limit_value: Decimal::from(200_000),
            maintenance_margin_rate: Decimal::new(2, 2),
            mm_deduction: Decimal::ZERO,
            max_leverage: Decimal::from(25),
        }],
        fetched_at: 0,
    }
}

/// A run on stored Bybit candles of a symbol the simulated market does not have reads them
/// through the server's own store as it goes (multi-threaded, as `signaldesk serve` runs)
/// and trades on the stored instrument, which its result keeps; its trades' charts read the
/// candles too. Candles whose instrument was never fetched are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backtest_on_stored_bybit_candles_runs_and_charts_them() {
    const DAY_MS: i64 = 86_400_000;
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;
        let now_ms = Utc::now().timestamp_millis();
        let (from_ms, to_ms) = (now_ms - 6 * DAY_MS, now_ms - DAY_MS / 2);
        // A stretch Bybit had no trade in: flat minutes for the run, not a refusal.
        let stored: Vec<Candle> = wif_minutes(from_ms, to_ms)
            .into_iter()
            .filter(|c| {
                !(from_ms + 3 * DAY_MS..from_ms + 3 * DAY_MS + 3_600_000).contains(&c.open_time_ms)
            })
            .collect();
        app.store().save_candles("WIFUSDT", &stored).await.unwrap();
        let asked = json!({
            "date_from": day(4),
            "date_to": day(2),
            "symbols": ["WIFUSDT"],
            "data": "bybit",
            "overrides": {"initial_stop_loss_pct": 1, "take_profit_first_pct": 0.5}
        });
        let res = app
            .call(Method::POST, "/api/backtests/", &token, Some(asked.clone()))
            .await;
        let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        let said = error["fields"]["data"].to_string();
        assert!(
            said.contains("WIFUSDT") && said.contains("candles fetch"),
            "{error}"
        );

        app.store()
            .save_instrument(&stored_wif("0.0005"))
            .await
            .unwrap();
        let started = start_backtest(&app, &token, asked).await;
        let id = started["id"].as_i64().unwrap();
        let (done, _) = wait_for_end(&app, &token, id).await;
        assert_eq!(done["status"], "done", "{done}");
        let result = &done["result"];
        assert_eq!(result["history"]["data"], "bybit");
        assert_traded_on_wif(result, 0.02);
        let trades = result["trades"].as_array().unwrap();
        let closed = trades.iter().find(|t| t["status"] == "CLOSED");
        let trade = closed.unwrap_or_else(|| panic!("no closed trade: {result}"));

        // Bybit changes WIF's tick: the result keeps what the run traded with.
        app.store()
            .save_instrument(&stored_wif("0.0001"))
            .await
            .unwrap();
        let again = app
            .call_ok(
                Method::GET,
                &format!("/api/backtests/{id}/"),
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(again["result"]["instruments"], result["instruments"]);
        let chart_path = format!("/api/backtests/{id}/trades/{}/chart/", trade["id"]);
        let chart = app
            .call_ok(Method::GET, &chart_path, &token, None, StatusCode::OK)
            .await;
        // The chart shows the stored candles.
        assert_charted_at_entry(&chart, trade, 0.0005);
    }
}

#[tokio::test]
async fn one_run_at_a_time_per_user_and_a_cancelled_run_stops() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;
        let other = app.user_with_token("someone").await;
        let long = json!({"date_from": day(120), "date_to": day(1)});
        let first = start_backtest(&app, &token, long.clone()).await;
        let id = first["id"].as_i64().unwrap();
        let res = app
            .call(Method::POST, "/api/backtests/", &token, Some(long.clone()))
            .await;
        assert_json_error(res, StatusCode::CONFLICT).await;
        // Another user may start theirs (it waits its turn behind the first).
        let theirs = start_backtest(&app, &other, long.clone()).await;

        let path = format!("/api/backtests/{id}/cancel/");
        let cancelled = app
            .call_ok(Method::POST, &path, &token, None, StatusCode::OK)
            .await;
        assert_eq!(cancelled["status"], "cancelled");
        let res = app.call(Method::POST, &path, &token, None).await;
        assert_json_error(res, StatusCode::CONFLICT).await;
        let (ended, _) = wait_for_end(&app, &token, id).await;
        assert_eq!(
            ended["status"], "cancelled",
            "a cancelled run is not overwritten: {ended}"
        );
        assert!(ended["result"].is_null());

        // Free again; the other user's run ends when deleted.
        let again = start_backtest(
            &app,
            &token,
            json!({"date_from": day(2), "date_to": day(2)}),
        )
        .await;
        let theirs_path = format!("/api/backtests/{}/", theirs["id"]);
        app.call_ok(
            Method::DELETE,
            &theirs_path,
            &other,
            None,
            StatusCode::NO_CONTENT,
        )
        .await;
        let (done, _) = wait_for_end(&app, &token, again["id"].as_i64().unwrap()).await;
        assert_eq!(done["status"], "done", "{done}");
    }
}

#[tokio::test]
async fn a_sweep_runs_every_combination_and_each_cell_is_its_own_single_run() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("trader").await;
        let period = json!({
            "date_from": day(3),
            "date_to": day(3),
            "symbols": ["BTCUSDT", "SOLUSDT"],
        });
        // Refused by field, nothing started: an unknown setting, a refused value, too many runs.
        let bad_sweeps = [
            json!([{"field": "no_such_setting", "values": [1]}]),
            json!([{"field": "initial_stop_loss_pct", "values": [1, -5]}]),
            json!([{"field": "initial_stop_loss_pct", "values": (1..=30).collect::<Vec<_>>()},
                   {"field": "take_profit_first_pct", "values": (1..=30).collect::<Vec<_>>()}]),
            json!({"field": "initial_stop_loss_pct"}),
        ];
        for sweep in bad_sweeps {
            let mut body = period.clone();
            body["sweep"] = sweep.clone();
            let res = app
                .call(Method::POST, "/api/backtests/", &token, Some(body))
                .await;
            let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            assert!(error["fields"]["sweep"].is_array(), "{sweep}: {error}");
        }
        let listed = app
            .call_ok(Method::GET, "/api/backtests/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(listed, json!([]));

        let mut body = period.clone();
        body["sweep"] = json!([
            {"field": "initial_stop_loss_pct", "values": [1, 3]},
            {"field": "take_profit_first_pct", "values": [2, 4]}
        ]);
        let started = start_backtest(&app, &token, body).await;
        assert_eq!(started["kind"], "sweep");
        let id = started["id"].as_i64().unwrap();
        let (done, _) = wait_for_end(&app, &token, id).await;
        assert_eq!(done["status"], "done", "{done}");
        let sweep = &done["result"]["sweep"];
        assert_eq!(sweep["axes"][1]["field"], "take_profit_first_pct");
        let cells = sweep["cells"].as_array().unwrap();
        let values: Vec<&Value> = cells.iter().map(|c| &c["values"]).collect();
        assert_eq!(
            values,
            [
                &json!([1, 2]),
                &json!([1, 4]),
                &json!([3, 2]),
                &json!([3, 4])
            ]
        );

        // The cell (3 %, 4 %) is the single run of those settings.
        let mut single = period.clone();
        single["overrides"] = json!({"initial_stop_loss_pct": 3, "take_profit_first_pct": 4});
        let started = start_backtest(&app, &token, single).await;
        let (run, _) = wait_for_end(&app, &token, started["id"].as_i64().unwrap()).await;
        assert_eq!(run["status"], "done", "{run}");
        assert_eq!(cells[3]["error"], Value::Null);
        assert_eq!(cells[3]["summary"], run["result"]["summary"]);
        assert_ne!(
            cells[0]["summary"], cells[3]["summary"],
            "the settings change the runs"
        );
    }
}

#[tokio::test]
async fn a_walk_forward_picks_each_training_windows_best_cell_and_trades_it_after() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("walker").await;
        let sweep = json!([{"field": "initial_stop_loss_pct", "values": [1, 3]}]);
        let period = json!({
            "date_from": day(5),
            "date_to": day(3),
            "symbols": ["BTCUSDT", "SOLUSDT"],
            "sweep": sweep,
        });
        // Refused under walk_forward, nothing started.
        let bad = [
            (json!({"train_days": 0, "test_days": 1}), "train_days must be at least 1 day."),
            (json!({"train_days": 2, "test_days": 0}), "test_days must be at least 1 day."),
            (
                json!({"train_days": 2, "test_days": 2}),
                "The period (3 days) is shorter than one training window and one test window (2 + 2 days).",
            ),
            (
                json!({"train_days": 2, "test_days": 1, "metric": "sharpe"}),
                "Unknown metric \"sharpe\": expected total_pnl or pnl_over_drawdown.",
            ),
            (json!({"train_days": "2", "test_days": 1}), "Expected {\"train_days\""),
            (json!([2, 1]), "Expected {\"train_days\""),
        ];
        for (plan, message) in bad {
            let mut body = period.clone();
            body["walk_forward"] = plan.clone();
            let res = app
                .call(Method::POST, "/api/backtests/", &token, Some(body))
                .await;
            let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            let said = error["fields"]["walk_forward"][0]
                .as_str()
                .unwrap_or_default();
            assert!(said.starts_with(message), "{plan}: {error}");
        }
        let mut no_sweep = period.clone();
        no_sweep["sweep"] = Value::Null;
        no_sweep["walk_forward"] = json!({"train_days": 2, "test_days": 1});
        let res = app
            .call(Method::POST, "/api/backtests/", &token, Some(no_sweep))
            .await;
        let error = assert_json_error(res, StatusCode::BAD_REQUEST).await;
        assert_eq!(
            error["fields"]["walk_forward"],
            json!(["A walk-forward picks among a sweep's cells: give a sweep."])
        );
        let listed = app
            .call_ok(Method::GET, "/api/backtests/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(listed, json!([]));

        // 3 days, 2 + 1: one window, trained on the first two days, tested on the third.
        let mut body = period.clone();
        body["walk_forward"] = json!({"train_days": 2, "test_days": 1});
        let started = start_backtest(&app, &token, body).await;
        assert_eq!(started["kind"], "walk_forward");
        assert_eq!(started["request"]["walk_forward"]["metric"], "total_pnl");
        let (done, _) = wait_for_end(&app, &token, started["id"].as_i64().unwrap()).await;
        assert_eq!(done["status"], "done", "{done}");
        let walk = &done["result"]["walk_forward"];
        assert_eq!(walk["unused_from"], Value::Null);
        let windows = walk["windows"].as_array().unwrap();
        assert_eq!(windows.len(), 1, "{walk}");
        let window = &windows[0];
        assert_eq!(
            [
                &window["train_from"],
                &window["train_to"],
                &window["test_from"],
                &window["test_to"]
            ],
            [
                &json!(day(5)),
                &json!(day(4)),
                &json!(day(3)),
                &json!(day(3))
            ]
        );

        // The training window's sweep, run as a sweep of its own: the chosen cell is its
        // best total pnl (the first of equal ones), and its figures are that cell's.
        let mut training = period.clone();
        training["date_to"] = json!(day(4));
        let started = start_backtest(&app, &token, training).await;
        let (swept, _) = wait_for_end(&app, &token, started["id"].as_i64().unwrap()).await;
        let cells = swept["result"]["sweep"]["cells"]
            .as_array()
            .unwrap()
            .clone();
        let pnl = |cell: &Value| cell["summary"]["stats"]["total_pnl"].as_f64().unwrap();
        let best = if pnl(&cells[1]) > pnl(&cells[0]) {
            &cells[1]
        } else {
            &cells[0]
        };
        assert_eq!(window["chosen"], best["values"], "{cells:?}");
        let in_sample = &window["in_sample"];
        assert!((in_sample["total_pnl"].as_f64().unwrap() - pnl(best)).abs() < 1e-9);
        assert_eq!(
            in_sample["total_trades"],
            best["summary"]["stats"]["total_trades"]
        );
        assert!(
            (in_sample["pnl_per_day"].as_f64().unwrap() - pnl(best) / 2.0).abs() < 1e-9,
            "{in_sample}"
        );

        // The test window starts from the configured balance (the first window) and the
        // warning follows the rule.
        let out = &window["out_of_sample"];
        assert_eq!(out["starting_balance"], json!(10000.0));
        let (is_day, oos_day) = (
            in_sample["pnl_per_day"].as_f64().unwrap(),
            out["pnl_per_day"].as_f64().unwrap(),
        );
        assert_eq!(
            window["far_below"],
            json!(is_day > 0.0 && oos_day < is_day / 2.0)
        );
        assert_eq!(walk["out_of_sample_pnl"], out["total_pnl"]);
        let equity = walk["equity"].as_array().unwrap();
        assert_eq!(
            equity.len() as u64,
            out["total_trades"].as_u64().unwrap(),
            "{walk}"
        );
        if let Some(last) = equity.last() {
            assert!(
                (last["pnl"].as_f64().unwrap() - out["total_pnl"].as_f64().unwrap()).abs() < 1e-6
            );
        }
    }
}
