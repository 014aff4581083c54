//! What a client of the live feed `/ws/dashboard/` may send (docs/websocket.md): the
//! actions, their size limit, and the one function the server reads a text frame with.
//! Pure, so the fuzz target `ws_client_message` calls exactly what the server calls.

use serde::{Deserialize, Serialize};

/// The documented largest message a client may send (its actions are a few dozen bytes): a
/// larger one is answered with close code 1009 (docs/websocket.md).
pub const MAX_CLIENT_MESSAGE: usize = 16 * 1024;

/// A message from the client, told apart by `action`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ClientMessage {
    Authenticate { token: String },
    GetSignals,
    GetTrades,
    Ping,
}

/// Why a text frame is not a client action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadFrame {
    /// Longer than [`MAX_CLIENT_MESSAGE`] bytes: the socket is closed with 1009.
    TooBig,
    /// Not JSON, or not one of the actions: answered with an error (ignored before login).
    Unknown,
}

/// Reads one text frame from a client.
pub fn read_client_message(text: &str) -> Result<ClientMessage, UnreadFrame> {
    if text.len() > MAX_CLIENT_MESSAGE {
        return Err(UnreadFrame::TooBig);
    }
    serde_json::from_str(text).map_err(|_| UnreadFrame::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_actions_parse_and_junk_does_not() {
        let parse = |s: &str| read_client_message(s).ok();
        assert_eq!(
            parse(r#"{"action":"authenticate","token":"t"}"#),
            Some(ClientMessage::Authenticate { token: "t".into() })
        );
        assert_eq!(
            parse(r#"{"action":"get_signals"}"#),
            Some(ClientMessage::GetSignals)
        );
        assert_eq!(
            parse(r#"{"action":"get_trades"}"#),
            Some(ClientMessage::GetTrades)
        );
        assert_eq!(parse(r#"{"action":"ping"}"#), Some(ClientMessage::Ping));
        assert_eq!(parse(r#"{"action":"authenticate"}"#), None);
        assert_eq!(parse(r#"{"action":"launch"}"#), None);
        assert_eq!(parse("not json"), None);
    }

    #[test]
    fn a_frame_over_the_limit_is_too_big_before_it_is_read() {
        let padded = format!(
            r#"{{"action":"ping","pad":"{}"}}"#,
            "x".repeat(MAX_CLIENT_MESSAGE)
        );
        assert_eq!(read_client_message(&padded), Err(UnreadFrame::TooBig));
        let exact = format!(
            r#"{{"action":"ping","p":"{}"}}"#,
            "x".repeat(MAX_CLIENT_MESSAGE - 24)
        );
        assert_eq!(exact.len(), MAX_CLIENT_MESSAGE);
        assert_eq!(read_client_message(&exact), Ok(ClientMessage::Ping));
    }
}
