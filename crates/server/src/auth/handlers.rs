//! `/api/auth/…`: login, register, logout, me, check and token.

use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use signaldesk_store::{StoreError, User};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::auth::{cookies, password, secrets, AuthUser};
use crate::error::{ApiError, ApiJson, ApiResult, ErrorBody, FieldErrors};
use crate::rate_limit::client_ip;

#[derive(Deserialize, ToSchema)]
pub struct Credentials {
    #[serde(default)]
    #[schema(required = true)]
    pub username: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    pub password: String,
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

/// Checks a username and password under the failed-login limits.
async fn verify_credentials(
    state: &AppState,
    credentials: &Credentials,
    client: std::net::IpAddr,
) -> ApiResult<User> {
    require_fields(credentials)?;
    let username = credentials.username.trim();
    // Per (username, address) and per address: failures elsewhere never lock this user out
    // here. Only failures count, and a success ends the pair's growing delays.
    let limits = &state.limits;
    limits.login_check(username, client).await?;
    let user = state.store.user_by_username(username).await?;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    if password::verify(credentials.password.clone(), stored).await {
        limits.login_succeeded(username, client).await?;
        user.ok_or_else(|| ApiError::unauthorized(BAD_CREDENTIALS))
    } else {
        limits.login_failed(username, client).await?;
        tracing::info!(%client, "failed login");
        Err(ApiError::unauthorized(BAD_CREDENTIALS))
    }
}

/// Starts a browser session: a token for the `Authorization` header, and the session and
/// CSRF cookies.
async fn start_session(state: &AppState, user: &User) -> ApiResult<Response> {
    let token = secrets::new_secret();
    let cookie = secrets::new_secret();
    state
        .store
        .create_session(
            user.id,
            &secrets::digest(&token),
            Some(&secrets::digest(&cookie)),
            now_ms(),
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
              (status = 401, body = ErrorBody), (status = 429, body = ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: axum::http::HeaderMap,
    ApiJson(credentials): ApiJson<Credentials>,
) -> ApiResult<Response> {
    let client = client_ip(peer.ip(), &headers, &state.config.trusted_proxies);
    let user = verify_credentials(&state, &credentials, client).await?;
    tracing::info!(user_id = user.id, "login");
    start_session(&state, &user).await
}

#[utoipa::path(post, path = "/api/auth/register/", tag = "auth", request_body = Credentials,
    responses((status = 200, body = LoginResponse), (status = 400, body = ErrorBody),
              (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn register(
    State(state): State<AppState>,
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
    start_session(&state, &user).await
}

#[utoipa::path(post, path = "/api/auth/logout/", tag = "auth",
    responses((status = 200, body = StatusResponse), (status = 401, body = ErrorBody)))]
pub async fn logout(State(state): State<AppState>, auth: AuthUser) -> ApiResult<Response> {
    state.store.delete_session(auth.session_id).await?;
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
    responses((status = 200, body = UserView), (status = 401, body = ErrorBody)))]
pub async fn me(auth: AuthUser) -> Json<UserView> {
    Json((&auth.user).into())
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
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: axum::http::HeaderMap,
    ApiJson(credentials): ApiJson<Credentials>,
) -> ApiResult<Json<TokenResponse>> {
    let client = client_ip(peer.ip(), &headers, &state.config.trusted_proxies);
    let user = verify_credentials(&state, &credentials, client).await?;
    let token = secrets::new_secret();
    state
        .store
        .create_session(user.id, &secrets::digest(&token), None, now_ms())
        .await?;
    Ok(Json(TokenResponse { token }))
}
