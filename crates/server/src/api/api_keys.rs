//! `/api/api-keys/`: exchange keys. Key and secret are accepted once, encrypted at rest and
//! never answered, logged or sent to the browser again.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use signaldesk_store::ApiKeyRecord;
use utoipa::ToSchema;

use crate::api::rfc3339;
use crate::app::{now_ms, AppState};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiJson, ApiPath, ApiResult, ErrorBody, FieldErrors};

/// What lists show instead of the key.
pub const MASKED_KEY: &str = "********";
const MAX_CREDENTIAL_CHARS: usize = 256;
const STOP_THE_BOT_FIRST: &str = "Stop the bot before deleting or switching the active API key.";

#[derive(Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: i64,
    /// Always fully masked.
    pub key: &'static str,
    pub is_demo: bool,
    pub is_active: bool,
    pub created_at: String,
}

impl From<ApiKeyRecord> for ApiKeyView {
    fn from(r: ApiKeyRecord) -> Self {
        ApiKeyView {
            id: r.id,
            key: MASKED_KEY,
            is_demo: r.is_demo,
            is_active: r.is_active,
            created_at: rfc3339(r.created_at),
        }
    }
}

/// The create payload. Debug is written by hand so the pair can never reach a log line.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewApiKey {
    #[serde(default)]
    #[schema(required = true, max_length = 256)]
    pub key: String,
    #[serde(default)]
    #[schema(required = true, max_length = 256)]
    pub secret: String,
    #[serde(default = "default_demo")]
    pub is_demo: bool,
}

impl std::fmt::Debug for NewApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewApiKey")
            .field("is_demo", &self.is_demo)
            .finish_non_exhaustive()
    }
}

fn default_demo() -> bool {
    true
}

#[utoipa::path(get, path = "/api/api-keys/", tag = "api-keys",
    responses((status = 200, body = [ApiKeyView]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<ApiKeyView>>> {
    let keys = state.store.api_keys_of_user(auth.id()).await?;
    Ok(Json(keys.into_iter().map(Into::into).collect()))
}

#[utoipa::path(post, path = "/api/api-keys/", tag = "api-keys", request_body = NewApiKey,
    responses((status = 201, body = ApiKeyView), (status = 400, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiJson(new): ApiJson<NewApiKey>,
) -> ApiResult<(StatusCode, Json<ApiKeyView>)> {
    let (key, secret) = (new.key.trim(), new.secret.trim());
    let mut fields = FieldErrors::new();
    for (name, value) in [("key", key), ("secret", secret)] {
        if value.is_empty() {
            fields.insert(name.into(), vec!["This field is required.".into()]);
        } else if value.chars().count() > MAX_CREDENTIAL_CHARS {
            fields.insert(
                name.into(),
                vec![format!("At most {MAX_CREDENTIAL_CHARS} characters.")],
            );
        }
    }
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    let record = state
        .store
        .create_api_key(&state.cipher, auth.id(), key, secret, new.is_demo, now_ms())
        .await?;
    tracing::info!(
        user_id = auth.id(),
        key_id = record.id,
        is_demo = record.is_demo,
        "API key added"
    );
    Ok((StatusCode::CREATED, Json(record.into())))
}

/// Whether the user's bot is meant to run (the persisted flag, so a bot resuming after a
/// restart counts too).
async fn bot_running(state: &AppState, auth: &AuthUser) -> ApiResult<bool> {
    Ok(state
        .store
        .settings_of_user(auth.id())
        .await?
        .is_some_and(|r| r.is_bot_running))
}

async fn own_key(state: &AppState, auth: &AuthUser, id: i64) -> ApiResult<ApiKeyRecord> {
    state
        .store
        .api_key(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

#[utoipa::path(delete, path = "/api/api-keys/{id}/", tag = "api-keys", params(("id" = i64, Path)),
    responses((status = 204), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<StatusCode> {
    let key = own_key(&state, &auth, id).await?;
    if key.is_active && bot_running(&state, &auth).await? {
        return Err(ApiError::conflict(STOP_THE_BOT_FIRST));
    }
    state.store.delete_api_key(auth.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Makes this key the user's only active key.
#[utoipa::path(post, path = "/api/api-keys/{id}/set_active/", tag = "api-keys",
    params(("id" = i64, Path)),
    responses((status = 200, body = ApiKeyView), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn set_active(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<ApiKeyView>> {
    let key = own_key(&state, &auth, id).await?;
    if !key.is_active && bot_running(&state, &auth).await? {
        return Err(ApiError::conflict(STOP_THE_BOT_FIRST));
    }
    state.engine.check_api_key(auth.id(), Some(id)).await?;
    let record = state.store.set_active_api_key(auth.id(), id).await?;
    Ok(Json(record.into()))
}
