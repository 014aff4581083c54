//! `/api/auth/…`: login (with the two-factor code when 2FA is on), register, logout, me,
//! check, token and the password change.

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::json;
use signaldesk_store::{AuditAction, SessionOrigin, StoreError, User};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::audit_log::Audit;
use crate::auth::{cookies, password, secrets, two_factor, AuthUser};
use crate::error::{ApiError, ApiJson, ApiResult, ErrorBody, FieldErrors};

#[derive(Deserialize, ToSchema)]
pub struct Credentials {
    #[serde(default)]
    #[schema(required = true)]
    pub username: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    pub password: String,
    /// With two-factor login on: the 6-digit code of the authenticator app, or one of the
    /// recovery codes.
    #[serde(default)]
    #[schema(max_length = 64)]
    pub otp: Option<String>,
}

/// The longest user agent kept with a session.
const MAX_USER_AGENT_CHARS: usize = 256;

/// Where a request comes from, as the sessions list shows it.
pub fn origin(client: std::net::IpAddr, headers: &axum::http::HeaderMap) -> SessionOrigin {
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| v.chars().take(MAX_USER_AGENT_CHARS).collect());
    SessionOrigin {
        client_address: Some(client.to_string()),
        user_agent,
    }
}

#[derive(Serialize, ToSchema)]
pub struct UserView {
    pub id: i64,
    pub username: String,
}

impl From<&User> for UserView {
    fn from(user: &User) -> Self {
        UserView {
            id: user.id,
            username: user.username.clone(),
        }
    }
}

/// The caller, and whether their two-factor login is on.
#[derive(Serialize, ToSchema)]
pub struct MeView {
    pub id: i64,
    pub username: String,
    pub two_factor_enabled: bool,
    /// Recovery codes not used yet (0 while 2FA is off).
    pub recovery_codes_left: i64,
}

#[derive(Serialize, ToSchema)]
pub struct LoginResponse {
    pub token: String,
    pub user: UserView,
}

#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    pub token: String,
}

#[derive(Serialize, ToSchema)]
pub struct CheckResponse {
    pub authenticated: bool,
    pub user: Option<UserView>,
}

#[derive(Serialize, ToSchema)]
pub struct StatusResponse {
    pub status: String,
}

const BAD_CREDENTIALS: &str = "Invalid username or password";

fn require_fields(credentials: &Credentials) -> ApiResult<()> {
    let mut fields = FieldErrors::new();
    if credentials.username.trim().is_empty() {
        fields.insert("username".into(), vec!["This field is required.".into()]);
    }
    if credentials.password.is_empty() {
        fields.insert("password".into(), vec!["This field is required.".into()]);
    }
    if fields.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(fields))
    }
}

/// Checks a username and password, and the second factor when the user's 2FA is on, under
/// the failed-login limits: a wrong code counts as a failed login; a missing one counts
/// nothing. Only a full success ends the pair's growing delays. Each failure that counts is
/// audited as `login_failed`.
async fn verify_credentials(
    state: &AppState,
    credentials: &Credentials,
    audit: &Audit,
) -> ApiResult<User> {
    require_fields(credentials)?;
    let username = credentials.username.trim();
    let client = audit.client();
    let failed = |user: Option<&User>, reason: &'static str| {
        audit.record(
            user.map(|u| u.id),
            AuditAction::LoginFailed,
            json!({ "reason": reason, "username": username }),
        )
    };
    // Per (username, address) and per address: failures elsewhere never lock this user out
    // here. Only failures count, and a success ends the pair's growing delays.
    let limits = &state.limits;
    // An attempt the lockout refuses writes no row: the failures that started it did, and a
    // row per refusal would let anyone grow the log at their request rate.
    limits.login_check(username, client).await?;
    let user = state.store.user_by_username(username).await?;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    if password::verify(credentials.password.clone(), stored).await {
        let user = user.ok_or_else(|| ApiError::unauthorized(BAD_CREDENTIALS))?;
        let otp = credentials
            .otp
            .as_deref()
            .map(str::trim)
            .filter(|o| !o.is_empty());
        match two_factor::check_login(state, &user, otp).await? {
            two_factor::LoginFactor::NotNeeded | two_factor::LoginFactor::Accepted => {}
            two_factor::LoginFactor::Missing => {
                return Err(ApiError::otp_required(two_factor::CODE_NEEDED));
            }
            two_factor::LoginFactor::Refused => {
                // The row first: the lockout a failure may start runs from its count.
                failed(Some(&user), "otp").await;
                limits.login_failed(username, client).await?;
                tracing::info!(%client, user_id = user.id, "failed login: wrong two-factor code");
                return Err(ApiError::otp_required(two_factor::WRONG_CODE));
            }
        }
        limits.login_succeeded(username, client).await?;
        Ok(user)
    } else {
        failed(user.as_ref(), "password").await;
        limits.login_failed(username, client).await?;
        tracing::info!(%client, "failed login");
        Err(ApiError::unauthorized(BAD_CREDENTIALS))
    }
}

/// Starts a browser session: a token for the `Authorization` header, and the session and
/// CSRF cookies.
async fn start_session(
    state: &AppState,
    user: &User,
    origin: &SessionOrigin,
) -> ApiResult<Response> {
    let token = secrets::new_secret();
    let cookie = secrets::new_secret();
    state
        .store
        .create_session_from(
            user.id,
            &secrets::digest(&token),
            Some(&secrets::digest(&cookie)),
            now_ms(),
            origin,
        )
        .await?;
    let max_age = state.config.session_idle_secs;
    let secure = state.config.secure_cookies;
    let mut response = Json(LoginResponse {
        token,
        user: user.into(),
    })
    .into_response();
    for set_cookie in [
        cookies::set(cookies::SESSION_COOKIE, &cookie, true, secure, max_age),
        cookies::set(
            cookies::CSRF_COOKIE,
            &secrets::csrf_for_session(&cookie),
            false,
            secure,
            max_age,
        ),
    ] {
        if let Ok(value) = HeaderValue::from_str(&set_cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

#[utoipa::path(post, path = "/api/auth/login/", tag = "auth", request_body = Credentials,
    responses((status = 200, body = LoginResponse), (status = 400, body = ErrorBody),
              (status = 401, description = "Wrong credentials; with `otp_required: true`, the \
               password was right and the two-factor code is missing or wrong", body = ErrorBody),
              (status = 429, body = ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    audit: Audit,
    ApiJson(credentials): ApiJson<Credentials>,
) -> ApiResult<Response> {
    let user = verify_credentials(&state, &credentials, &audit).await?;
    tracing::info!(user_id = user.id, "login");
    let response = start_session(&state, &user, audit.origin()).await?;
    audit
        .record(
            Some(user.id),
            AuditAction::Login,
            json!({ "via": "browser" }),
        )
        .await;
    Ok(response)
}

#[utoipa::path(post, path = "/api/auth/register/", tag = "auth", request_body = Credentials,
    responses((status = 200, body = LoginResponse), (status = 400, body = ErrorBody),
              (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn register(
    State(state): State<AppState>,
    audit: Audit,
    ApiJson(credentials): ApiJson<Credentials>,
) -> ApiResult<Response> {
    if !state.config.allow_registration {
        return Err(ApiError::forbidden(
            "Registration is disabled on this server.",
        ));
    }
    require_fields(&credentials)?;
    let username = credentials.username.trim();
    let mut fields = FieldErrors::new();
    if let Err(msg) = password::check_username(username) {
        fields.insert("username".into(), vec![msg]);
    }
    if let Err(msg) = password::check_new_password(&credentials.password) {
        fields.insert("password".into(), vec![msg]);
    }
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    let hash = password::hash(credentials.password.clone())
        .await
        .map_err(ApiError::internal)?;
    let user = match state.store.create_user(username, &hash, now_ms()).await {
        Err(StoreError::Conflict(_)) => {
            return Err(ApiError::conflict(
                "A user with that username already exists.",
            ))
        }
        other => other?,
    };
    tracing::info!(user_id = user.id, "registered");
    start_session(&state, &user, audit.origin()).await
}

#[utoipa::path(post, path = "/api/auth/logout/", tag = "auth",
    responses((status = 200, body = StatusResponse), (status = 401, body = ErrorBody)))]
pub async fn logout(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
) -> ApiResult<Response> {
    state.store.delete_session(auth.session_id).await?;
    audit
        .record(
            Some(auth.id()),
            AuditAction::Logout,
            json!({ "session_id": auth.session_id }),
        )
        .await;
    let secure = state.config.secure_cookies;
    let mut response = Json(StatusResponse {
        status: "ok".into(),
    })
    .into_response();
    for name in [cookies::SESSION_COOKIE, cookies::CSRF_COOKIE] {
        if let Ok(value) = HeaderValue::from_str(&cookies::set(
            name,
            "",
            name == cookies::SESSION_COOKIE,
            secure,
            0,
        )) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

#[utoipa::path(get, path = "/api/auth/me/", tag = "auth",
    responses((status = 200, body = MeView), (status = 401, body = ErrorBody)))]
pub async fn me(State(state): State<AppState>, auth: AuthUser) -> ApiResult<Json<MeView>> {
    let two_factor_enabled = state.store.totp_enabled(auth.id()).await?;
    let recovery_codes_left = if two_factor_enabled {
        state.store.recovery_codes_left(auth.id()).await?
    } else {
        0
    };
    Ok(Json(MeView {
        id: auth.user.id,
        username: auth.user.username.clone(),
        two_factor_enabled,
        recovery_codes_left,
    }))
}

#[utoipa::path(get, path = "/api/auth/check/", tag = "auth",
    responses((status = 200, body = CheckResponse)))]
pub async fn check(auth: Option<AuthUser>) -> Json<CheckResponse> {
    Json(CheckResponse {
        authenticated: auth.is_some(),
        user: auth.as_ref().map(|a| (&a.user).into()),
    })
}

/// Issues an API token for scripts (no cookies).
#[utoipa::path(post, path = "/api/auth/token/", tag = "auth", request_body = Credentials,
    responses((status = 200, body = TokenResponse), (status = 401, body = ErrorBody),
              (status = 429, body = ErrorBody)))]
pub async fn token(
    State(state): State<AppState>,
    audit: Audit,
    ApiJson(credentials): ApiJson<Credentials>,
) -> ApiResult<Json<TokenResponse>> {
    let user = verify_credentials(&state, &credentials, &audit).await?;
    let token = secrets::new_secret();
    state
        .store
        .create_session_from(
            user.id,
            &secrets::digest(&token),
            None,
            now_ms(),
            audit.origin(),
        )
        .await?;
    audit
        .record(Some(user.id), AuditAction::Login, json!({ "via": "token" }))
        .await;
    Ok(Json(TokenResponse { token }))
}

/// The password change: the current password, and the new one.
#[derive(Deserialize, ToSchema)]
pub struct PasswordChange {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    pub current_password: String,
    #[serde(default)]
    #[schema(required = true, min_length = 8, max_length = 256)]
    pub new_password: String,
}

#[derive(Serialize, ToSchema)]
pub struct RevokedResponse {
    /// How many sessions were ended.
    pub revoked: u64,
}

/// Changes the caller's password, given the current one (a wrong one counts as a failed
/// login), and ends every other session of the user; this one stays.
#[utoipa::path(post, path = "/api/auth/password/", tag = "auth", request_body = PasswordChange,
    responses((status = 200, body = RevokedResponse), (status = 400, body = ErrorBody),
              (status = 429, body = ErrorBody)))]
pub async fn change_password(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiJson(change): ApiJson<PasswordChange>,
) -> ApiResult<Json<RevokedResponse>> {
    let mut fields = FieldErrors::new();
    if change.current_password.is_empty() {
        fields.insert(
            "current_password".into(),
            vec!["This field is required.".into()],
        );
    }
    if let Err(msg) = password::check_new_password(&change.new_password) {
        fields.insert("new_password".into(), vec![msg]);
    }
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    let client = audit.client();
    let username = auth.user.username.as_str();
    state.limits.login_check(username, client).await?;
    let stored = Some(auth.user.password_hash.clone());
    if !password::verify(change.current_password.clone(), stored).await {
        state.limits.login_failed(username, client).await?;
        let mut fields = FieldErrors::new();
        fields.insert(
            "current_password".into(),
            vec!["The current password is wrong.".into()],
        );
        return Err(ApiError::validation(fields));
    }
    let hash = password::hash(change.new_password.clone())
        .await
        .map_err(ApiError::internal)?;
    let revoked = state
        .store
        .change_password(auth.id(), &hash, auth.session_id)
        .await?;
    tracing::info!(user_id = auth.id(), revoked, "password changed");
    audit
        .record(
            Some(auth.id()),
            AuditAction::PasswordChanged,
            json!({ "sessions_revoked": revoked }),
        )
        .await;
    Ok(Json(RevokedResponse { revoked }))
}
