//! `/api/api-keys/`: exchange keys. Key and secret are accepted once, encrypted at rest and
//! never answered, logged or sent to the browser again.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use signaldesk_core::account::{AccountVenue, Exchange};
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_store::{ApiKeyRecord, AuditAction};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::audit_log::Audit;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiJson, ApiPath, ApiResult, ErrorBody, FieldErrors};
use crate::wire::rfc3339;

/// What lists show instead of the key.
pub const MASKED_KEY: &str = "********";
const MAX_CREDENTIAL_CHARS: usize = 256;
/// The warning of a key that works from any address (docs/security.md, "Keys that cannot
/// withdraw").
pub const NO_IP_ALLOW_LIST: &str = "This key has no IP allow-list: anyone who steals it can trade from anywhere. Bind it to this server's IP on Bybit.";
const STOP_THE_BOT_FIRST: &str = "Stop the bot before deleting or switching the active API key.";
/// Open trades stay on the account they were opened on: the books follow one account at a
/// time (docs/accounts.md).
const CLOSE_POSITIONS_FIRST: &str =
    "Close the open positions before switching accounts: they stay on the account they were opened on.";

#[derive(Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: i64,
    /// Always fully masked.
    pub key: &'static str,
    /// Where the key trades: `bybit` (demo or mainnet by `is_demo`) or the `paper` exchange.
    pub exchange: Exchange,
    pub is_demo: bool,
    pub is_active: bool,
    pub created_at: String,
    /// Each permission group with the permissions granted in it, as the exchange reported
    /// them at the key's last check (Set Active, Start Bot); null for a key never checked
    /// and for paper keys.
    pub permissions: Option<BTreeMap<String, Vec<String>>>,
    /// The addresses the key is bound to, as reported (Bybit's `["*"]`: none); null when
    /// never checked.
    pub ips: Option<Vec<String>>,
    /// Whether the key works only from the addresses in `ips`; null when never checked.
    pub ip_restricted: Option<bool>,
    /// When the permissions were read (RFC 3339); null when never checked.
    pub permissions_checked_at: Option<String>,
}

impl From<ApiKeyRecord> for ApiKeyView {
    fn from(r: ApiKeyRecord) -> Self {
        let ip_restricted = r.permissions.as_ref().map(KeyPermissions::ip_restricted);
        let (permissions, ips) = match r.permissions {
            Some(p) => (Some(p.groups), Some(p.ips)),
            None => (None, None),
        };
        ApiKeyView {
            id: r.id,
            key: MASKED_KEY,
            exchange: r.exchange,
            is_demo: r.is_demo,
            is_active: r.is_active,
            created_at: rfc3339(r.created_at),
            permissions,
            ips,
            ip_restricted,
            permissions_checked_at: r.permissions_checked_at.map(rfc3339),
        }
    }
}

/// Set Active's answer: the key, and a warning the app shows when the key is active but
/// weaker than it should be.
#[derive(Serialize, ToSchema)]
pub struct ActivatedKeyView {
    #[serde(flatten)]
    pub key: ApiKeyView,
    /// For a key the exchange reported bound to no IP address: "This key has no IP
    /// allow-list: …", which the app shows; null otherwise.
    pub warning: Option<String>,
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
    /// `bybit` (default) or `paper` (any non-empty key and secret).
    #[serde(default = "default_exchange")]
    pub exchange: Exchange,
}

impl std::fmt::Debug for NewApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewApiKey")
            .field("is_demo", &self.is_demo)
            .field("exchange", &self.exchange)
            .finish_non_exhaustive()
    }
}

/// What the audit log records of a key: which one, never its key or secret.
fn audited(key: &ApiKeyRecord) -> Value {
    json!({ "id": key.id, "exchange": key.exchange.as_str(), "is_demo": key.is_demo })
}

fn default_demo() -> bool {
    true
}

fn default_exchange() -> Exchange {
    Exchange::Bybit
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
    audit: Audit,
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
        .create_api_key(
            &state.cipher,
            auth.id(),
            (key, secret),
            new.exchange,
            new.is_demo,
            now_ms(),
        )
        .await?;
    tracing::info!(
        user_id = auth.id(),
        key_id = record.id,
        exchange = record.exchange.as_str(),
        is_demo = record.is_demo,
        "API key added"
    );
    audit
        .record(Some(auth.id()), AuditAction::ApiKeyAdded, audited(&record))
        .await;
    Ok((StatusCode::CREATED, Json(record.into())))
}

/// Refuses a change of the user's account while their bot is meant to run (the persisted
/// flag, so a bot resuming after a restart counts too) or while trades are open on it.
async fn account_may_change(state: &AppState, auth: &AuthUser) -> ApiResult<()> {
    let running = state
        .store
        .settings_of_user(auth.id())
        .await?
        .is_some_and(|r| r.is_bot_running);
    if running {
        return Err(ApiError::conflict(STOP_THE_BOT_FIRST));
    }
    if state.store.count_open_trades(auth.id()).await? > 0 {
        return Err(ApiError::conflict(CLOSE_POSITIONS_FIRST));
    }
    Ok(())
}

/// The user's account changed from one on `before`: the engine moves what runs (signals)
/// to the new one.
async fn account_changed(state: &AppState, auth: &AuthUser, before: AccountVenue) -> ApiResult<()> {
    state
        .engine
        .supervisor()
        .account_changed(auth.id(), before)
        .await?;
    Ok(())
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
    audit: Audit,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<StatusCode> {
    let key = own_key(&state, &auth, id).await?;
    if key.is_active {
        account_may_change(&state, &auth).await?;
    }
    let before = state.store.account_venue(auth.id()).await?;
    state.store.delete_api_key(auth.id(), id).await?;
    audit
        .record(Some(auth.id()), AuditAction::ApiKeyDeleted, audited(&key))
        .await;
    if key.is_active {
        account_changed(&state, &auth, before).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Makes this key the user's only active key. An exchange key is checked first: refused
/// (400) when the exchange refuses it or it can withdraw or transfer funds; accepted with a
/// warning when it is bound to no IP address.
#[utoipa::path(post, path = "/api/api-keys/{id}/set_active/", tag = "api-keys",
    params(("id" = i64, Path)),
    responses((status = 200, body = ActivatedKeyView),
              (status = 400, body = ErrorBody,
               description = "The key is refused: the exchange's reason, or the permissions that let it withdraw or transfer funds"),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn set_active(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<ActivatedKeyView>> {
    let key = own_key(&state, &auth, id).await?;
    if !key.is_active {
        account_may_change(&state, &auth).await?;
    }
    let reported = state.engine.check_api_key(auth.id(), Some(id)).await?;
    let before = state.store.account_venue(auth.id()).await?;
    let record = state.store.set_active_api_key(auth.id(), id).await?;
    if !key.is_active {
        audit
            .record(
                Some(auth.id()),
                AuditAction::ApiKeyActivated,
                audited(&record),
            )
            .await;
        account_changed(&state, &auth, before).await?;
    }
    let warning = reported
        .filter(|p| !p.ip_restricted())
        .map(|_| NO_IP_ALLOW_LIST.to_string());
    Ok(Json(ActivatedKeyView {
        key: record.into(),
        warning,
    }))
}

/// Makes this key inactive: the user trades on their paper account until a key is active.
#[utoipa::path(post, path = "/api/api-keys/{id}/deactivate/", tag = "api-keys",
    params(("id" = i64, Path)),
    responses((status = 200, body = ApiKeyView), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn deactivate(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<ApiKeyView>> {
    let key = own_key(&state, &auth, id).await?;
    if !key.is_active {
        return Ok(Json(key.into()));
    }
    account_may_change(&state, &auth).await?;
    let before = state.store.account_venue(auth.id()).await?;
    let record = state.store.deactivate_api_key(auth.id(), id).await?;
    audit
        .record(
            Some(auth.id()),
            AuditAction::ApiKeyDeactivated,
            audited(&record),
        )
        .await;
    account_changed(&state, &auth, before).await?;
    tracing::info!(user_id = auth.id(), key_id = id, "API key deactivated");
    Ok(Json(record.into()))
}
