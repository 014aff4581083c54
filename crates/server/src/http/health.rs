//! `/healthz`, `/metrics` and `/api/openapi.json`.

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use crate::app::AppState;
use crate::error::STORE_UNAVAILABLE;

/// How long `/healthz` and `/metrics` wait for the database's `SELECT 1`.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

/// 200 `{"status":"ok"}`, or 503 `{"status":"degraded","down":["database"],…}` while the
/// database is unreachable (docs/reliability.md).
pub async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    if state.store.check_health(PROBE_TIMEOUT).await {
        return (StatusCode::OK, Json(json!({"status": "ok"})));
    }
    let body = json!({
        "status": "degraded",
        "down": ["database"],
        "message": STORE_UNAVAILABLE,
        "pending_log_lines": state.supervisor.journal().pending(),
    });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body))
}

pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let up = state.store.check_health(PROBE_TIMEOUT).await;
    let health = state.store.health();
    let journal = state.supervisor.journal();
    let mut gauges = vec![
        (
            "signaldesk_store_up",
            "1 while the database is reachable, 0 in degraded mode.",
            f64::from(u8::from(up)),
        ),
        (
            "signaldesk_store_outages",
            "Times the database became unreachable since the server started.",
            health.episodes() as f64,
        ),
        (
            "signaldesk_bot_log_pending",
            "Bot log lines kept in memory until the database is back.",
            journal.pending() as f64,
        ),
        (
            "signaldesk_bot_log_dropped",
            "Bot log lines lost since start because too many were waiting for the database.",
            journal.dropped() as f64,
        ),
        (
            "signaldesk_websocket_dropped_slow_total",
            "Live clients disconnected for falling behind.",
            state.supervisor.bus().dropped_slow() as f64,
        ),
    ];
    // Counting users needs the database: left out while it is unreachable.
    if up {
        if let Ok(users) = state.store.user_count().await {
            gauges.push(("signaldesk_users", "Registered users.", users as f64));
        }
    }
    let text = state.metrics.render(&gauges);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
