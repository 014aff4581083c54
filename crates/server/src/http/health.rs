//! `/healthz`, `/metrics` and `/api/openapi.json`.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::{json, Value};

use crate::app::AppState;

pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let users = state.store.user_count().await.unwrap_or(0) as f64;
    let dropped = state.supervisor.bus().dropped_slow() as f64;
    let text = state.metrics.render(&[
        ("signaldesk_users", "Registered users.", users),
        (
            "signaldesk_websocket_dropped_slow_total",
            "Live clients disconnected for falling behind.",
            dropped,
        ),
    ]);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
