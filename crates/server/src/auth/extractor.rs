//! [`AuthUser`]: the authenticated caller, from `Authorization: Token <t>` or the session
//! cookie. Cookie-authenticated unsafe requests must echo the `csrftoken` cookie in
//! `X-CSRFToken`, whose value is bound to the session (an HMAC of the session cookie);
//! token-authenticated ones need no CSRF header.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;
use axum::http::{header, Method};
use signaldesk_store::repo::sessions::Credential;
use signaldesk_store::User;

use crate::app::{now_ms, AppState};
use crate::auth::{cookies, secrets};
use crate::error::ApiError;

/// Session activity is written at most this often, so reads do not become writes.
const TOUCH_EVERY_MS: i64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthVia {
    Token,
    Cookie,
}

#[derive(Debug, Clone)]
pub struct AuthUser {
    pub user: User,
    pub session_id: i64,
    pub via: AuthVia,
}

impl AuthUser {
    pub fn id(&self) -> i64 {
        self.user.id
    }
}

/// The token in an `Authorization: Token <t>` header, if the header is present.
fn bearer_token(parts: &Parts) -> Option<Result<&str, ApiError>> {
    let value = parts.headers.get(header::AUTHORIZATION)?;
    let parsed = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Token "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::unauthorized("Invalid Authorization header; expected 'Token <token>'.")
        });
    Some(parsed)
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// `X-CSRFToken` must be this session's CSRF value (derived from the session cookie, see
/// [`secrets::csrf_for_session`]); the `csrftoken` cookie itself proves nothing, since a
/// sibling site can plant it.
fn check_csrf(parts: &Parts, session_cookie: &str) -> Result<(), ApiError> {
    let expected = secrets::csrf_for_session(session_cookie);
    let header = parts
        .headers
        .get(cookies::CSRF_HEADER)
        .and_then(|v| v.to_str().ok());
    match header {
        Some(h) if secrets::constant_time_eq(expected.as_bytes(), h.trim().as_bytes()) => Ok(()),
        _ => Err(ApiError::forbidden("CSRF token missing or incorrect")),
    }
}

/// The session and user a credential digest belongs to, enforcing the idle expiry and
/// recording the use. Shared by the HTTP extractor and the websocket's `authenticate`.
pub async fn resolve_credential(
    state: &AppState,
    credential: Credential<'_>,
) -> Result<(i64, User), ApiError> {
    let invalid = || ApiError::unauthorized("Invalid or expired credentials.");
    let (session, user) = state
        .store
        .session_by_credential(credential)
        .await?
        .ok_or_else(invalid)?;
    let now = now_ms();
    let idle_limit_ms = i64::try_from(state.config.session_idle_secs)
        .unwrap_or(i64::MAX / 1000)
        .saturating_mul(1000);
    if now.saturating_sub(session.last_used_at) > idle_limit_ms {
        state.store.delete_session(session.id).await?;
        return Err(invalid());
    }
    if now - session.last_used_at > TOUCH_EVERY_MS {
        // Recording the use can wait for a database that takes no writes (disk full): reading
        // the last known data still works then.
        match state.store.touch_session(session.id, now).await {
            Err(e) if e.is_unavailable() => {
                tracing::warn!(error = %e, "session use not recorded: database unreachable");
            }
            other => other?,
        }
    }
    Ok((session.id, user))
}

/// Resolves the caller, or `None` when the request carries no credential at all.
async fn authenticate(parts: &Parts, state: &AppState) -> Result<Option<AuthUser>, ApiError> {
    let (credential_hash, via) = match bearer_token(parts) {
        Some(token) => (secrets::digest(token?), AuthVia::Token),
        None => match cookies::get(&parts.headers, cookies::SESSION_COOKIE) {
            Some(cookie) => (secrets::digest(cookie), AuthVia::Cookie),
            None => return Ok(None),
        },
    };
    let credential = match via {
        AuthVia::Token => Credential::TokenHash(&credential_hash),
        AuthVia::Cookie => Credential::CookieHash(&credential_hash),
    };
    let (session_id, user) = resolve_credential(state, credential).await?;
    if via == AuthVia::Cookie && !is_safe(&parts.method) {
        let session_cookie = cookies::get(&parts.headers, cookies::SESSION_COOKIE).unwrap_or("");
        check_csrf(parts, session_cookie)?;
    }
    Ok(Some(AuthUser {
        user,
        session_id,
        via,
    }))
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate(parts, state)
            .await?
            .ok_or_else(|| ApiError::unauthorized("Authentication credentials were not provided."))
    }
}

impl OptionalFromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    /// For endpoints open to everyone that still want to know who is asking: a bad or expired
    /// credential counts as anonymous.
    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Option<Self>, ApiError> {
        match authenticate(parts, state).await {
            Ok(user) => Ok(user),
            Err(e) if e.status == axum::http::StatusCode::UNAUTHORIZED => Ok(None),
            Err(e) => Err(e),
        }
    }
}
