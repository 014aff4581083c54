//! Requests from an instance that does not run a user's bot to the one that does (several
//! instances on PostgreSQL): what they are, and how they and their answers are written in
//! the `bot_commands` table. The supervisor sends and executes them.

use serde_json::{json, Value};
use signaldesk_core::signal::RATING_LEVELS;

use crate::signal_worker::Alert;
use crate::EngineError;

/// What the owner is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remote {
    Close { trade_id: i64 },
    CloseAll,
    Alert(Alert),
    SettingsChanged,
}

impl Remote {
    /// `(kind, body)` as stored.
    pub fn encode(&self) -> (&'static str, String) {
        match self {
            Remote::Close { trade_id } => ("close", json!({ "trade_id": trade_id }).to_string()),
            Remote::CloseAll => ("close_all", "{}".to_string()),
            Remote::Alert(alert) => (
                "alert",
                json!({
                    "symbol": alert.symbol,
                    "rating": alert.rating,
                    "received_at": alert.received_at,
                    "body_hash": alert.body_hash,
                })
                .to_string(),
            ),
            Remote::SettingsChanged => ("settings", "{}".to_string()),
        }
    }

    /// A stored command; `None` when it is not one this version knows.
    pub fn decode(kind: &str, body: &str) -> Option<Remote> {
        let body: Value = serde_json::from_str(body).ok()?;
        Some(match kind {
            "close" => Remote::Close {
                trade_id: body["trade_id"].as_i64()?,
            },
            "close_all" => Remote::CloseAll,
            "alert" => Remote::Alert(Alert {
                symbol: body["symbol"].as_str()?.to_string(),
                rating: RATING_LEVELS
                    .into_iter()
                    .find(|level| Some(*level) == body["rating"].as_str())?,
                received_at: body["received_at"].as_i64()?,
                body_hash: body["body_hash"].as_str()?.to_string(),
            }),
            "settings" => Remote::SettingsChanged,
            _ => return None,
        })
    }
}

/// An answer as stored: `{"ok": value}` or `{"error": code, "message": text}`.
pub fn encode_answer(outcome: Result<Value, EngineError>) -> String {
    match outcome {
        Ok(value) => json!({ "ok": value }),
        Err(e) => json!({ "error": e.code(), "message": e.to_string() }),
    }
    .to_string()
}

pub fn decode_answer(answer: &str) -> Result<Value, EngineError> {
    let answer: Value = serde_json::from_str(answer).unwrap_or(Value::Null);
    if let Some(ok) = answer.get("ok") {
        return Ok(ok.clone());
    }
    Err(EngineError::from_code(
        answer["error"].as_str().unwrap_or("unknown"),
        answer["message"]
            .as_str()
            .unwrap_or("The instance running the bot gave an unreadable answer"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_back_as_written() {
        for remote in [
            Remote::Close { trade_id: 42 },
            Remote::CloseAll,
            Remote::Alert(Alert {
                symbol: "BTCUSDT".into(),
                rating: "STRONG_SELL",
                received_at: 1_700_000_000_000,
                body_hash: "ab".repeat(32),
            }),
            Remote::SettingsChanged,
        ] {
            let (kind, body) = remote.encode();
            assert_eq!(Remote::decode(kind, &body), Some(remote));
        }
        assert_eq!(
            Remote::decode(
                "alert",
                r#"{"symbol":"X","rating":"MAYBE","received_at":1}"#
            ),
            None
        );
        assert_eq!(Remote::decode("reboot", "{}"), None);
    }

    #[test]
    fn answers_keep_the_outcome_and_the_error_kind() {
        assert_eq!(
            decode_answer(&encode_answer(Ok(json!(3)))).unwrap(),
            json!(3)
        );
        let err = decode_answer(&encode_answer(Err(EngineError::TradeNotOpen))).unwrap_err();
        assert!(matches!(err, EngineError::TradeNotOpen), "{err:?}");
        let err = decode_answer(&encode_answer(Err(EngineError::Config("x".into())))).unwrap_err();
        assert_eq!(err.code(), "config");
        assert_eq!(err.to_string(), "x");
        assert!(decode_answer("not json").is_err());
    }
}
