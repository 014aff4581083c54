//! `/healthz`, `/metrics` and `/api/openapi.json`.

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use crate::app::AppState;
use crate::error::STORE_UNAVAILABLE;
use crate::http::metrics::Readings;

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
        "pending_log_lines": state.engine.journal().pending(),
    });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body))
}

/// The Prometheus text: what was recorded as it happened, and the readings taken now.
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let up = state.store.check_health(PROBE_TIMEOUT).await;
    let journal = state.engine.journal();
    let (signal_workers, trading_workers) = state.engine.supervisor().running_workers().await;
    let readings = Readings {
        store_up: up,
        store_outages: state.store.health().episodes(),
        log_pending: journal.pending(),
        log_dropped: journal.dropped(),
        dropped_slow: state.engine.bus().dropped_slow(),
        signal_workers,
        trading_workers,
        // Counting users needs the database.
        users: if up {
            state.store.user_count().await.ok()
        } else {
            None
        },
    };
    let text = state.metrics.render(&readings);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
