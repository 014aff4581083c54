//! `/api/signals/`: after Start Signals the user's signals come from the simulated market's
//! ratings, ordered by the spec's weight then symbol.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{assert_json_error, TestApp};

fn weight(rec: &str) -> u8 {
    match rec {
        "STRONG_BUY" => 3,
        "STRONG_SELL" => 2,
        _ => 1,
    }
}

#[tokio::test]
async fn start_signals_fills_the_list_for_that_user_only() {
    let app = TestApp::spawn().await;
    let alice = app.user_with_token("alice").await;
    let bob = app.user_with_token("bob").await;
    let empty = app
        .call_ok(Method::GET, "/api/signals/", &alice, None, StatusCode::OK)
        .await;
    assert!(empty.as_array().unwrap().is_empty());

    app.call_ok(
        Method::POST,
        "/api/command/signals/start/",
        &alice,
        None,
        StatusCode::OK,
    )
    .await;
    let mut list = Value::Null;
    for _ in 0..100 {
        list = app
            .call_ok(Method::GET, "/api/signals/", &alice, None, StatusCode::OK)
            .await;
        if list.as_array().unwrap().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let items = list.as_array().unwrap();
    let symbols: Vec<&str> = items
        .iter()
        .map(|s| s["symbol"].as_str().unwrap())
        .collect();
    let mut sorted = symbols.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["BTCUSDT", "ETHUSDT"],
        "one latest signal per symbol of the universe"
    );
    for pair in items.windows(2) {
        let (a, b) = (
            pair[0]["recommendation"].as_str().unwrap(),
            pair[1]["recommendation"].as_str().unwrap(),
        );
        assert!(
            weight(a) > weight(b)
                || (weight(a) == weight(b)
                    && pair[0]["symbol"].as_str() < pair[1]["symbol"].as_str()),
            "ordered by weight then symbol"
        );
    }
    for s in items {
        assert_eq!(s["recommendation"], s["signal"]);
        assert!(["STRONG_BUY", "STRONG_SELL", "NEUTRAL"]
            .contains(&s["recommendation"].as_str().unwrap()));
        assert!(s["total"].as_f64().unwrap().abs() <= 1.0);
        assert!(s["candle_time"].as_str().unwrap().ends_with('Z'));
        assert_eq!(s["source"], "ratings");
    }
    let latest = app
        .call_ok(
            Method::GET,
            "/api/signals/latest/?limit=1",
            &alice,
            None,
            StatusCode::OK,
        )
        .await;
    assert_eq!(latest.as_array().unwrap().len(), 1);
    let bobs = app
        .call_ok(Method::GET, "/api/signals/", &bob, None, StatusCode::OK)
        .await;
    assert!(
        bobs.as_array().unwrap().is_empty(),
        "bob never started signals"
    );
    let bad = app
        .call(Method::GET, "/api/signals/latest/?limit=0", &alice, None)
        .await;
    assert_json_error(bad, StatusCode::BAD_REQUEST).await;
}
