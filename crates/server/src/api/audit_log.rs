//! `/api/audit-log/`: the caller's own audit rows, newest first, paged by an id cursor
//! (issue 31 point 2, docs/security.md "Audit log"). Read only: no route updates or deletes
//! a row.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use signaldesk_store::AuditEntry;
use utoipa::{IntoParams, ToSchema};

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiQuery, ApiResult, ErrorBody};
use crate::wire::rfc3339;

const DEFAULT_LIMIT: i64 = 50;
const MAX_LIMIT: i64 = 200;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditLogQuery {
    /// How many rows, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Only rows older than this one: the `next_before` of the previous page.
    #[param(minimum = 1)]
    pub before: Option<i64>,
}

/// One audit row.
#[derive(Serialize, ToSchema)]
pub struct AuditEntryView {
    pub id: i64,
    /// When it happened (RFC 3339, UTC).
    pub at: String,
    /// The action's stable name (docs/security.md lists them), e.g. `settings_changed`.
    pub action: String,
    /// What changed: for `settings_changed`, `{"changes": [{"field", "old", "new"}]}`; `{}`
    /// when the action has no detail.
    #[schema(value_type = std::collections::HashMap<String, serde_json::Value>)]
    pub detail: serde_json::Value,
    /// The client address, or `telegram` for a Telegram command.
    pub address: Option<String>,
    pub user_agent: Option<String>,
}

impl From<AuditEntry> for AuditEntryView {
    fn from(e: AuditEntry) -> Self {
        AuditEntryView {
            id: e.id,
            at: rfc3339(e.at),
            action: e.action,
            detail: e.detail,
            address: e.origin.client_address,
            user_agent: e.origin.user_agent,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AuditLogPage {
    /// Newest first.
    pub entries: Vec<AuditEntryView>,
    /// The `before` of the next page; null on the last page.
    pub next_before: Option<i64>,
}

/// The caller's audit rows, newest first.
#[utoipa::path(get, path = "/api/audit-log/", tag = "audit-log", params(AuditLogQuery),
    responses((status = 200, body = AuditLogPage), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(query): ApiQuery<AuditLogQuery>,
) -> ApiResult<Json<AuditLogPage>> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {MAX_LIMIT}."
        )));
    }
    if query.before.is_some_and(|b| b < 1) {
        return Err(ApiError::bad_request(
            "before must be a row id (1 or more).",
        ));
    }
    // One more than asked tells whether another page follows.
    let mut entries = state
        .store
        .audit_page(auth.id(), query.before, limit + 1)
        .await?;
    let more = entries.len() as i64 > limit;
    entries.truncate(limit as usize);
    let next_before = if more {
        entries.last().map(|e| e.id)
    } else {
        None
    };
    Ok(Json(AuditLogPage {
        entries: entries.into_iter().map(Into::into).collect(),
        next_before,
    }))
}
