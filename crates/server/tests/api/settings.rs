//! `/api/bot-settings/`: defaults, validation, ownership — on SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_json_error, TestApp};

fn spec_defaults() -> Value {
    json!({
        "is_bot_running": false, "is_signals_fetching_active": false, "bot_mode": "classic",
        "max_trades": 3, "max_total_usdt": 1000.0, "max_trade_usdt": 100.0,
        "initial_stop_loss_pct": 5.0, "take_profit_first_pct": 10.0, "take_profit_next_pct": 10.0,
        "use_trailing_stop": true, "trail_activation_pct": 1.0, "trail_step_pct": 0.5,
        "leverage": 10, "reverse_mode": false, "telegram_id": "", "telegram_notify_deals": true,
        "telegram_notify_stats": true, "user_timezone": "Europe/Moscow", "martingale_max_depth": 4,
        "martingale_max_active_chains": 1, "martingale_step": 2.0, "martingale_initial_margin": 2.0,
        "forbidden_hours_enabled": false, "forbidden_hours": [], "forbidden_days_enabled": false,
        "forbidden_days": [], "symbols": [], "unprotected_action": "close",
        "daily_loss_limit_pct": 0.0, "max_losses_in_row": 0, "losses_pause_minutes": 60
    })
}

#[tokio::test]
async fn first_list_creates_the_record_with_the_spec_defaults() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let list = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        let records = list.as_array().unwrap();
        assert_eq!(records.len(), 1);
        let mut record = records[0].clone();
        let id = record.as_object_mut().unwrap().remove("id").unwrap();
        assert!(id.as_i64().is_some());
        assert_eq!(record, spec_defaults(), "field by field");
        let again = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(
            again[0]["id"], id,
            "listing again does not create a second record"
        );
        let one = app
            .call_ok(
                Method::GET,
                &format!("/api/bot-settings/{id}/"),
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(one["id"], id);
    }
}

#[tokio::test]
async fn put_whole_payload_or_bot_mode_alone() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let id = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await[0]["id"]
            .clone();
        let path = format!("/api/bot-settings/{id}/");
        let mut whole = spec_defaults();
        whole["max_trades"] = json!(7);
        whole["initial_stop_loss_pct"] = json!(0.35);
        whole["forbidden_hours_enabled"] = json!(true);
        whole["forbidden_hours"] = json!([[23, 1], [6, 8]]);
        whole["forbidden_days"] = json!([5, 6]);
        whole["user_timezone"] = json!("Asia/Tokyo");
        whole["trail_activation_pct"] = Value::Null;
        let saved = app
            .call_ok(Method::PUT, &path, &token, Some(whole), StatusCode::OK)
            .await;
        assert_eq!(saved["max_trades"], 7);
        assert_eq!(saved["initial_stop_loss_pct"], 0.35);
        assert_eq!(saved["forbidden_hours"], json!([[23, 1], [6, 8]]));
        assert_eq!(
            saved["trail_activation_pct"], 1.0,
            "empty activation becomes 1.0"
        );
        let mode = app
            .call_ok(
                Method::PUT,
                &path,
                &token,
                Some(json!({"bot_mode": "martingale"})),
                StatusCode::OK,
            )
            .await;
        assert_eq!(mode["bot_mode"], "martingale");
        assert_eq!(mode["max_trades"], 7, "other fields kept");
        assert_eq!(mode["user_timezone"], "Asia/Tokyo");
    }
}

#[tokio::test]
async fn every_rule_is_rejected_with_its_field_and_nothing_saved() {
    let bad: Vec<(&str, Value)> = vec![
        ("max_trades", json!(0)),
        ("max_total_usdt", json!(0)),
        ("max_trade_usdt", json!(0.5)),
        ("initial_stop_loss_pct", json!(0)),
        ("initial_stop_loss_pct", json!(1.234)),
        ("take_profit_first_pct", json!(0)),
        ("take_profit_next_pct", json!(0.001)),
        ("trail_activation_pct", json!(0)),
        ("trail_step_pct", json!(0)),
        ("leverage", json!(0)),
        ("leverage", json!(101)),
        ("martingale_max_depth", json!(0)),
        ("martingale_max_active_chains", json!(0)),
        ("martingale_step", json!(0)),
        ("martingale_initial_margin", json!(0)),
        ("forbidden_hours", json!([[22, 24]])),
        ("forbidden_days", json!([7])),
        ("forbidden_days", json!([2, 2])),
        ("user_timezone", json!("Not/AZone")),
        ("max_trades", json!("three")),
        ("leverage", json!(true)),
        ("use_trailing_stop", json!(1)),
        ("forbidden_hours", json!({"a": 1})),
        ("bot_mode", json!("turbo")),
        ("unprotected_action", json!("ignore")),
        ("unprotected_action", json!(1)),
        ("daily_loss_limit_pct", json!(-1)),
        ("daily_loss_limit_pct", json!(100.5)),
        ("max_losses_in_row", json!(-1)),
        ("max_losses_in_row", json!(1001)),
        ("losses_pause_minutes", json!(0)),
        ("losses_pause_minutes", json!(10081)),
    ];
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let before = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        let path = format!("/api/bot-settings/{}/", before[0]["id"]);
        for (field, value) in &bad {
            // A valid change next to the bad one proves nothing at all is saved.
            let mut payload = if *field == "max_trades" {
                json!({"leverage": 20})
            } else {
                json!({"max_trades": 9})
            };
            payload[*field] = value.clone();
            let res = app.call(Method::PUT, &path, &token, Some(payload)).await;
            let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            let fields = body["fields"].as_object().unwrap();
            assert!(fields.contains_key(*field), "{field}={value}: {body}");
            assert_eq!(fields.len(), 1, "{field}: only the bad field is named");
        }
        let after = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(before, after, "nothing saved");
        let not_object = app.call(Method::PUT, &path, &token, Some(json!([1]))).await;
        assert_json_error(not_object, StatusCode::BAD_REQUEST).await;
    }
}

#[tokio::test]
async fn post_creates_once_then_conflicts() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let created = app
        .call_ok(
            Method::POST,
            "/api/bot-settings/",
            &token,
            Some(json!({"leverage": 20})),
            StatusCode::CREATED,
        )
        .await;
    assert_eq!(created["leverage"], 20);
    assert_eq!(created["max_trades"], 3);
    let again = app
        .call(Method::POST, "/api/bot-settings/", &token, Some(json!({})))
        .await;
    assert_json_error(again, StatusCode::CONFLICT).await;
    let invalid = app.user_with_token("bob").await;
    let res = app
        .call(
            Method::POST,
            "/api/bot-settings/",
            &invalid,
            Some(json!({"leverage": 0})),
        )
        .await;
    assert_json_error(res, StatusCode::BAD_REQUEST).await;
    let list = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &invalid,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(list[0]["leverage"], 10, "the refused create saved nothing");
}

#[tokio::test]
async fn another_users_record_is_404_for_every_method() {
    for app in TestApp::on_every_backend().await {
        let alice = app.user_with_token("alice").await;
        let bob = app.user_with_token("bob").await;
        let id = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &alice,
                None,
                StatusCode::OK,
            )
            .await[0]["id"]
            .clone();
        let before = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &alice,
                None,
                StatusCode::OK,
            )
            .await;
        let base = format!("/api/bot-settings/{id}/");
        let attempts: Vec<(Method, String, Option<Value>)> = vec![
            (Method::GET, base.clone(), None),
            (Method::PUT, base.clone(), Some(json!({"leverage": 50}))),
            (Method::POST, format!("{base}start_trading_worker/"), None),
            (Method::POST, format!("{base}stop_bot/"), None),
            (Method::POST, format!("{base}start_signals/"), None),
            (Method::POST, format!("{base}stop_signals/"), None),
        ];
        for (method, path, body) in attempts {
            let res = app.call(method.clone(), &path, &bob, body).await;
            assert_json_error(res, StatusCode::NOT_FOUND).await;
        }
        let after = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &alice,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(before, after);
        let garbage = app
            .call(Method::GET, "/api/bot-settings/abc/", &alice, None)
            .await;
        assert_json_error(garbage, StatusCode::NOT_FOUND).await;
    }
}

/// Issue 16 point 3: the risk preview panicked ("Multiplication overflowed") from depth 93
/// and a PUT saved depths up to 1,000,000. Now the bounds a trader can mean are enforced
/// by both (a 400 naming the field, nothing saved) and extreme values in range never panic.
#[tokio::test]
async fn trader_bounds_are_enforced_and_extreme_values_never_panic() {
    let app = TestApp::spawn().await;
    let token = app.user_with_token("alice").await;
    let before = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    let path = format!("/api/bot-settings/{}/", before[0]["id"]);
    let mut distinct_25: Vec<Value> = (0..24).map(|h| json!([h, (h + 1) % 24])).collect();
    distinct_25.push(json!([0, 2]));
    for (field, value) in [
        ("martingale_max_depth", json!(21)),
        ("martingale_max_depth", json!(93)),
        ("martingale_max_depth", json!(1_000_000)),
        ("initial_stop_loss_pct", json!(100)),
        ("initial_stop_loss_pct", json!(250.5)),
        ("forbidden_hours", json!(distinct_25)),
    ] {
        for (method, p) in [
            (Method::PUT, path.as_str()),
            (Method::POST, "/api/bot-settings/risk-preview/"),
        ] {
            let res = app
                .call(method.clone(), p, &token, Some(json!({ field: value })))
                .await;
            let body = assert_json_error(res, StatusCode::BAD_REQUEST).await;
            assert!(
                body["fields"][field].is_array() || body["fields"][field].is_string(),
                "{method} {field}: {body}"
            );
        }
    }
    let after = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(before, after, "nothing saved");

    // The extremes a trader may still choose: previewed, not a 500.
    let extreme = json!({
        "martingale_max_depth": 20, "martingale_step": 1_000_000_000,
        "martingale_initial_margin": 1_000_000_000, "leverage": 100,
        "martingale_max_active_chains": 1_000_000, "max_total_usdt": 1_000_000_000,
        "initial_stop_loss_pct": 99.99,
    });
    let preview = app
        .call_ok(
            Method::POST,
            "/api/bot-settings/risk-preview/",
            &token,
            Some(extreme.clone()),
            StatusCode::OK,
        )
        .await;
    assert_eq!(preview["steps"].as_array().unwrap().len(), 20);
    assert!(!preview["warnings"].as_array().unwrap().is_empty());
    app.call_ok(Method::PUT, &path, &token, Some(extreme), StatusCode::OK)
        .await;

    // Duplicate intervals are removed on save; a list longer than 24 is refused as sent
    // (docs/rules.md), so 1,000 copies of one interval are not accepted either.
    let many: Vec<Value> = (0..1_000).map(|_| json!([22, 6])).collect();
    let res = app
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({ "forbidden_hours": many })),
        )
        .await;
    assert_json_error(res, StatusCode::BAD_REQUEST).await;
    let dupes: Vec<Value> = (0..5)
        .map(|_| json!([22, 6]))
        .chain([json!([1, 2])])
        .collect();
    let saved = app
        .call_ok(
            Method::PUT,
            &path,
            &token,
            Some(json!({"forbidden_hours": dupes})),
            StatusCode::OK,
        )
        .await;
    assert_eq!(saved["forbidden_hours"], json!([[22, 6], [1, 2]]));
}

#[tokio::test]
async fn the_protection_and_circuit_breaker_settings_are_saved_and_read_back() {
    for app in TestApp::on_every_backend().await {
        let token = app.user_with_token("alice").await;
        let list = app
            .call_ok(
                Method::GET,
                "/api/bot-settings/",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        let path = format!("/api/bot-settings/{}/", list[0]["id"]);
        let payload = json!({
            "unprotected_action": "alert", "daily_loss_limit_pct": 3.5,
            "max_losses_in_row": 4, "losses_pause_minutes": 120
        });
        app.call_ok(Method::PUT, &path, &token, Some(payload), StatusCode::OK)
            .await;
        let read = app
            .call_ok(Method::GET, &path, &token, None, StatusCode::OK)
            .await;
        assert_eq!(read["unprotected_action"], "alert");
        assert_eq!(read["daily_loss_limit_pct"], 3.5);
        assert_eq!(read["max_losses_in_row"], 4);
        assert_eq!(read["losses_pause_minutes"], 120);
        // 0 turns each breaker off again.
        let off = json!({"daily_loss_limit_pct": 0, "max_losses_in_row": 0});
        app.call_ok(Method::PUT, &path, &token, Some(off), StatusCode::OK)
            .await;
        let read = app
            .call_ok(Method::GET, &path, &token, None, StatusCode::OK)
            .await;
        assert_eq!(read["daily_loss_limit_pct"], 0.0);
        assert_eq!(read["max_losses_in_row"], 0);
    }
}
