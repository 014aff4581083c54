//! `/ws/dashboard/`, the live feed (spec section 7, DESIGN.md section 5, docs/websocket.md).

pub mod connection;
pub mod protocol;

use axum::extract::{State, WebSocketUpgrade};
use axum::http::{header, HeaderMap};
use axum::response::Response;

use crate::app::AppState;
use crate::auth::extractor::AuthVia;
use crate::auth::AuthUser;

pub use signaldesk_core::client_message::MAX_CLIENT_MESSAGE;
/// What the websocket library buffers at most before the size check above can see a message;
/// beyond it the library refuses to read the frame and the socket is closed with 1009 too.
const LIBRARY_MESSAGE_LIMIT: usize = 1024 * 1024;
/// What the websocket library reads into at a time. Its default, 128 KiB, is zero-filled on a
/// socket's first read and kept while the socket lives: 1.3 GB of RSS for 10,000 idle sockets,
/// and 128 KiB for 10 s from anyone who opens a socket and sends a byte (docs/benchmarks.md,
/// "Many users"). Client messages are small (at most 16 KiB); a larger frame still arrives
/// whole, the buffer growing to its length (`a_message_above_16_kib_is_closed_with_1009`).
const READ_BUFFER: usize = 4 * 1024;

/// Upgrades to a websocket. A token header, or a session cookie sent from this server's own
/// pages, authenticates at once; otherwise the first message must be `authenticate`.
pub async fn dashboard(
    State(state): State<AppState>,
    headers: HeaderMap,
    caller: Option<AuthUser>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let upgrade_user = caller
        .filter(|c| c.via == AuthVia::Token || same_origin(&headers))
        .map(|c| c.user);
    upgrade
        .read_buffer_size(READ_BUFFER)
        .max_message_size(LIBRARY_MESSAGE_LIMIT)
        .max_frame_size(LIBRARY_MESSAGE_LIMIT)
        .on_upgrade(move |socket| connection::serve(socket, state, upgrade_user))
}

/// Whether the upgrade comes from a page of this host: browsers send the cookie with a
/// cross-site websocket too, so a cookie counts only when `Origin` (if any) names our `Host`.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, rest)| rest.trim_end_matches('/'));
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    matches!((origin_host, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn cookies_count_only_from_our_own_pages() {
        assert!(same_origin(&headers(None, "127.0.0.1:8000")));
        assert!(same_origin(&headers(
            Some("http://127.0.0.1:8000"),
            "127.0.0.1:8000"
        )));
        assert!(same_origin(&headers(
            Some("https://Desk.example"),
            "desk.example"
        )));
        assert!(!same_origin(&headers(
            Some("https://evil.example"),
            "desk.example"
        )));
        assert!(!same_origin(&headers(Some("null"), "desk.example")));
    }
}
