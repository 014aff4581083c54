//! What unknown paths answer: JSON errors under /api/ and /ws/, the web app elsewhere.

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::error::ApiError;

fn is_api_path(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/") || path == "/ws" || path.starts_with("/ws/")
}

pub async fn not_found(State(state): State<AppState>, request: Request) -> Response {
    let path = request.uri().path();
    if is_api_path(path) {
        return ApiError::not_found().into_response();
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.")
            .into_response();
    }
    state.web.respond(path)
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.")
}
