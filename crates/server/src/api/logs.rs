//! `/api/logs/`: the bot log for the Logs page's first paint, newest first.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use signaldesk_core::stats::blank;
use signaldesk_store::{LogEntry, LogLevel};
use utoipa::{IntoParams, ToSchema};

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiQuery, ApiResult, ErrorBody};
use crate::wire::rfc3339;

const DEFAULT_LIMIT: i64 = 100;
/// The web app keeps at most this many entries (spec section 9), so more is never useful.
const MAX_LIMIT: i64 = 1000;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// `info`, `warning` or `error`; empty or `all` for every level.
    #[param(pattern = r"^[ \t\r\n]*(info|warning|error|all)?[ \t\r\n]*$")]
    pub level: Option<String>,
    /// How many entries, 1 to 1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct LogView {
    pub id: i64,
    pub timestamp: String,
    pub level: String,
    pub message: String,
}

impl From<LogEntry> for LogView {
    fn from(e: LogEntry) -> Self {
        LogView {
            id: e.id,
            timestamp: rfc3339(e.ts),
            level: e.level.as_str().to_string(),
            message: e.message,
        }
    }
}

#[utoipa::path(get, path = "/api/logs/", tag = "logs", params(LogQuery),
    responses((status = 200, body = [LogView]), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(query): ApiQuery<LogQuery>,
) -> ApiResult<Json<Vec<LogView>>> {
    let level =
        match blank(query.level.as_deref()) {
            None | Some("all") => None,
            Some(name) => Some(LogLevel::parse(name).ok_or_else(|| {
                ApiError::bad_request("level must be info, warning, error or all.")
            })?),
        };
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {MAX_LIMIT}."
        )));
    }
    let entries = state.store.recent_logs(auth.id(), level, limit).await?;
    Ok(Json(entries.into_iter().map(Into::into).collect()))
}
