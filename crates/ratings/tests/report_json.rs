//! The JSON shape of `RatingReport`: exactly the documented keys, in order,
//! `null` values while an indicator warms up.

mod common;

use common::reference_candles;
use serde_json::Value;
use signaldesk_ratings::{report_for, Rating, RatingEngine, Recommendation};

const INDICATOR_KEYS: [&str; 31] = [
    "SMA10",
    "SMA20",
    "SMA30",
    "SMA50",
    "SMA100",
    "SMA200",
    "EMA10",
    "EMA20",
    "EMA30",
    "EMA50",
    "EMA100",
    "EMA200",
    "VWMA20",
    "HMA9",
    "IchimokuBase",
    "RSI14",
    "StochK",
    "StochD",
    "CCI20",
    "ADX14",
    "PlusDI",
    "MinusDI",
    "AO",
    "Mom10",
    "MACD",
    "MACDSignal",
    "StochRSIK",
    "StochRSID",
    "WR14",
    "BBP",
    "UO",
];

/// Keys of a JSON object in the order they appear in the text (serde_json's
/// `Value` would sort them, so the order is read from the text itself).
fn keys_in_text_order(json: &str, object_start: usize) -> Vec<String> {
    let mut keys = Vec::new();
    let mut depth = 0i32;
    let mut chars = json[object_start..].char_indices().peekable();
    let mut expect_key = false;
    while let Some((_, ch)) = chars.next() {
        match ch {
            '{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => expect_key = true,
            '"' => {
                let mut s = String::new();
                for (_, c) in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    s.push(c);
                }
                if depth == 1 && expect_key {
                    keys.push(s);
                    expect_key = false;
                }
            }
            _ => {}
        }
    }
    keys
}

#[test]
fn report_has_exactly_the_documented_keys_in_order() {
    let candles = reference_candles();
    let report = report_for(&candles).expect("valid candles");
    let json = serde_json::to_string(&report).expect("serializes");

    assert_eq!(
        keys_in_text_order(&json, 0),
        ["total", "ma", "osc", "recommendation", "indicators"]
    );
    let start = json.find("\"indicators\":").expect("indicators key") + "\"indicators\":".len();
    assert_eq!(keys_in_text_order(&json, start), INDICATOR_KEYS);

    let value: Value = serde_json::from_str(&json).expect("valid JSON");
    let object = value.as_object().expect("one object");
    assert_eq!(object.len(), 5);
    for key in ["total", "ma", "osc"] {
        let x = object[key].as_f64().expect("number");
        assert!((-1.0..=1.0).contains(&x), "{key} = {x}");
    }
    let recommendation = object["recommendation"].as_str().expect("string");
    assert!(["STRONG_BUY", "BUY", "NEUTRAL", "SELL", "STRONG_SELL"].contains(&recommendation));
    assert_eq!(recommendation, report.recommendation.as_str());

    let indicators = object["indicators"].as_object().expect("object");
    assert_eq!(indicators.len(), 31);
    for key in INDICATOR_KEYS {
        let entry = indicators[key].as_object().expect("entry object");
        let mut fields: Vec<&str> = entry.keys().map(String::as_str).collect();
        fields.sort_unstable();
        assert_eq!(fields, ["value", "vote"], "{key}");
        // After 500 candles every indicator has a value.
        assert!(entry["value"].is_f64(), "{key} value");
        let vote = entry["vote"].as_i64().expect("integer vote");
        assert!((-1..=1).contains(&vote), "{key} vote");
    }
}

#[test]
fn warming_up_indicators_are_null_with_vote_zero() {
    let candles = reference_candles();
    // After 15 candles: SMA10/EMA10/HMA9/RSI14/Mom10/WR14/PlusDI/MinusDI/BBP
    // exist; the 20-bar and longer ones do not.
    let report = report_for(&candles[..15]).expect("valid");
    let value: Value = serde_json::to_value(report).expect("serializes");
    let indicators = value["indicators"].as_object().expect("object");
    assert_eq!(indicators.len(), 31);
    let present = [
        "SMA10", "EMA10", "HMA9", "RSI14", "PlusDI", "MinusDI", "Mom10", "WR14", "BBP",
    ];
    for key in INDICATOR_KEYS {
        let entry = &indicators[key];
        if present.contains(&key) {
            assert!(entry["value"].is_f64(), "{key} should have a value");
        } else {
            assert!(
                entry["value"].is_null(),
                "{key} should be null, is {}",
                entry["value"]
            );
            assert_eq!(entry["vote"], 0, "{key} votes while warming up");
        }
    }

    // A brand-new engine: every value null, every vote 0, neutral zeros.
    let empty = serde_json::to_value(RatingEngine::new().report()).expect("serializes");
    assert_eq!(empty["total"], 0.0);
    assert_eq!(empty["ma"], 0.0);
    assert_eq!(empty["osc"], 0.0);
    assert_eq!(empty["recommendation"], "NEUTRAL");
    for key in INDICATOR_KEYS {
        assert!(empty["indicators"][key]["value"].is_null());
        assert_eq!(empty["indicators"][key]["vote"], 0);
    }
}

#[test]
fn rating_and_recommendation_serialize_as_documented() {
    let rating = Rating {
        total: 0.6,
        ma: 0.7333333333333333,
        osc: 0.45454545454545453,
        recommendation: Recommendation::StrongBuy,
    };
    let json = serde_json::to_string(&rating).expect("serializes");
    assert_eq!(
        json,
        r#"{"total":0.6,"ma":0.7333333333333333,"osc":0.45454545454545453,"recommendation":"STRONG_BUY"}"#
    );
    // (serde_json's default float parser may be an ulp off, hence the tolerance.)
    let back: Rating = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back.recommendation, rating.recommendation);
    assert!((back.osc - rating.osc).abs() < 1e-15);
    for (r, s) in [
        (Recommendation::StrongBuy, "\"STRONG_BUY\""),
        (Recommendation::Buy, "\"BUY\""),
        (Recommendation::Neutral, "\"NEUTRAL\""),
        (Recommendation::Sell, "\"SELL\""),
        (Recommendation::StrongSell, "\"STRONG_SELL\""),
    ] {
        assert_eq!(serde_json::to_string(&r).expect("serializes"), s);
        assert_eq!(r.to_string(), s.trim_matches('"'));
    }
}

#[test]
fn the_vote_sum_of_each_group_gives_its_rating() {
    // With every indicator warm, ma and osc are the means of the report's votes.
    let report = report_for(&reference_candles()).expect("valid");
    let mean = |keys: &[&str]| {
        let value = serde_json::to_value(report).expect("serializes");
        keys.iter()
            .map(|k| value["indicators"][k]["vote"].as_f64().expect("vote"))
            .sum::<f64>()
            / keys.len() as f64
    };
    let ma = mean(&INDICATOR_KEYS[..15]);
    let osc = mean(&[
        "RSI14",
        "StochK",
        "CCI20",
        "ADX14",
        "AO",
        "Mom10",
        "MACD",
        "StochRSIK",
        "WR14",
        "BBP",
        "UO",
    ]);
    assert!((report.ma - ma).abs() < 1e-15);
    assert!((report.osc - osc).abs() < 1e-15);
    assert!((report.total - (ma + osc) / 2.0).abs() < 1e-15);
    assert_eq!(
        report.recommendation,
        Recommendation::from_score(report.total)
    );
}
