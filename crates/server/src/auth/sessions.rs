//! `/api/auth/sessions/…`: the caller's sessions (each login, browser or token), and ending
//! them. Every request reads its session from the database, so an ended session's token and
//! cookie answer 401 at once, on every instance.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use serde_json::json;
use signaldesk_store::{AuditAction, SessionInfo};
use utoipa::ToSchema;

use crate::app::AppState;
use crate::audit_log::Audit;
use crate::auth::handlers::RevokedResponse;
use crate::auth::AuthUser;
use crate::error::{ApiPath, ApiResult, ErrorBody};
use crate::wire::rfc3339;

#[derive(Serialize, ToSchema)]
pub struct SessionView {
    pub id: i64,
    pub created_at: String,
    /// When the session was last used (recorded at most once a minute).
    pub last_seen_at: String,
    /// The client address of the login (null for sessions from before addresses were kept).
    pub address: Option<String>,
    pub user_agent: Option<String>,
    /// A browser login (with a session cookie) rather than a script's token.
    pub browser: bool,
    /// The session of this request.
    pub current: bool,
}

fn view(session: SessionInfo, current: i64) -> SessionView {
    SessionView {
        id: session.id,
        created_at: rfc3339(session.created_at),
        last_seen_at: rfc3339(session.last_used_at),
        address: session.origin.client_address,
        user_agent: session.origin.user_agent,
        browser: session.browser,
        current: session.id == current,
    }
}

/// The caller's sessions, the most recently used first.
#[utoipa::path(get, path = "/api/auth/sessions/", tag = "auth", operation_id = "sessions_list",
    responses((status = 200, body = [SessionView])))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<SessionView>>> {
    let sessions = state.store.sessions_of_user(auth.id()).await?;
    Ok(Json(
        sessions
            .into_iter()
            .map(|s| view(s, auth.session_id))
            .collect(),
    ))
}

/// Ends one of the caller's sessions (this one included: that is a logout).
#[utoipa::path(delete, path = "/api/auth/sessions/{id}/", tag = "auth", operation_id = "sessions_revoke",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 404, body = ErrorBody)))]
pub async fn revoke(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<StatusCode> {
    state.store.delete_session_of_user(auth.id(), id).await?;
    tracing::info!(user_id = auth.id(), session_id = id, "session revoked");
    audit
        .record(
            Some(auth.id()),
            AuditAction::SessionRevoked,
            json!({ "session_id": id }),
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}

/// Ends every session of the caller but this one.
#[utoipa::path(post, path = "/api/auth/sessions/revoke-others/", tag = "auth",
    operation_id = "sessions_revoke_others",
    responses((status = 200, body = RevokedResponse)))]
pub async fn revoke_others(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
) -> ApiResult<Json<RevokedResponse>> {
    let revoked = state
        .store
        .delete_other_sessions(auth.id(), auth.session_id)
        .await?;
    tracing::info!(user_id = auth.id(), revoked, "other sessions revoked");
    audit
        .record(
            Some(auth.id()),
            AuditAction::SessionsRevokedOthers,
            json!({ "count": revoked }),
        )
        .await;
    Ok(Json(RevokedResponse { revoked }))
}
