//! `/api/bot-settings/`: the user's one trading settings record (spec section 7).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use serde_json::{json, Value};
use signaldesk_core::settings::BotSettings;
use signaldesk_store::{AuditAction, SettingsRecord, StoreError};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::audit_log::Audit;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiJson, ApiPath, ApiResult, ErrorBody};
use crate::openapi::SettingsInput;

/// The record as the web app reads it: id, the run flags and every setting.
#[derive(Serialize, ToSchema)]
pub struct SettingsView {
    pub id: i64,
    pub is_bot_running: bool,
    pub is_signals_fetching_active: bool,
    #[serde(flatten)]
    pub settings: BotSettings,
}

impl From<SettingsRecord> for SettingsView {
    fn from(r: SettingsRecord) -> Self {
        SettingsView {
            id: r.id,
            is_bot_running: r.is_bot_running,
            is_signals_fetching_active: r.is_signals_fetching_active,
            settings: r.settings,
        }
    }
}

fn as_object(payload: &Value) -> ApiResult<&serde_json::Map<String, Value>> {
    payload
        .as_object()
        .ok_or_else(|| ApiError::bad_request("Expected a JSON object of settings."))
}

/// The fields that differ between two versions of the settings, as the audit log records
/// them: `[{field, old, new}]`, in field order.
fn changes(before: &BotSettings, after: &BotSettings) -> Vec<Value> {
    let as_map = |settings: &BotSettings| match serde_json::to_value(settings) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (old, new) = (as_map(before), as_map(after));
    new.iter()
        .filter(|(field, value)| old.get(*field) != Some(*value))
        .map(|(field, value)| {
            json!({ "field": field, "old": old.get(field).unwrap_or(&Value::Null), "new": value })
        })
        .collect()
}

/// Records a `settings_changed` row when something changed.
async fn audit_changes(audit: &Audit, user_id: i64, before: &BotSettings, after: &BotSettings) {
    let changes = changes(before, after);
    if !changes.is_empty() {
        audit
            .record(
                Some(user_id),
                AuditAction::SettingsChanged,
                json!({ "changes": changes }),
            )
            .await;
    }
}

/// Lists the user's records: exactly one, created with the spec's defaults the first time.
#[utoipa::path(get, path = "/api/bot-settings/", tag = "settings",
    responses((status = 200, body = [SettingsView]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<SettingsView>>> {
    let record = state.store.settings_or_default(auth.id(), now_ms()).await?;
    Ok(Json(vec![record.into()]))
}

/// Creates the user's record from a payload (defaults for what it leaves out).
#[utoipa::path(post, path = "/api/bot-settings/", tag = "settings", request_body = SettingsInput,
    responses((status = 201, body = SettingsView), (status = 400, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiJson(payload): ApiJson<Value>,
) -> ApiResult<(StatusCode, Json<SettingsView>)> {
    let settings = BotSettings::default()
        .apply(as_object(&payload)?)
        .map_err(ApiError::validation)?;
    check_symbols_listed(&state, auth.id(), &payload, &settings).await?;
    match state
        .store
        .create_settings(auth.id(), &settings, now_ms())
        .await
    {
        Ok(record) => {
            audit_changes(&audit, auth.id(), &BotSettings::default(), &record.settings).await;
            Ok((StatusCode::CREATED, Json(record.into())))
        }
        Err(StoreError::Conflict(_)) => Err(ApiError::conflict(
            "Settings already exist; update them with PUT /api/bot-settings/{id}/.",
        )),
        Err(e) => Err(e.into()),
    }
}

#[utoipa::path(get, path = "/api/bot-settings/{id}/", tag = "settings",
    params(("id" = i64, Path)),
    responses((status = 200, body = SettingsView), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<SettingsView>> {
    let record = state
        .store
        .settings_by_id(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(record.into()))
}

/// Updates with the whole form or with some fields (e.g. `bot_mode` alone). A running bot
/// picks the change up at its next decision.
#[utoipa::path(put, path = "/api/bot-settings/{id}/", tag = "settings", request_body = SettingsInput,
    params(("id" = i64, Path)),
    responses((status = 200, body = SettingsView), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(payload): ApiJson<Value>,
) -> ApiResult<Json<SettingsView>> {
    let current = state
        .store
        .settings_by_id(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let settings = current
        .settings
        .apply(as_object(&payload)?)
        .map_err(ApiError::validation)?;
    check_symbols_listed(&state, auth.id(), &payload, &settings).await?;
    let record = state
        .engine
        .update_settings(auth.id(), id, &settings, now_ms())
        .await?;
    audit_changes(&audit, auth.id(), &current.settings, &record.settings).await;
    Ok(Json(record.into()))
}

/// When the payload sets `symbols`, each must be listed by the user's market (Bybit's for a
/// Bybit account), else 400 naming them.
async fn check_symbols_listed(
    state: &AppState,
    user_id: i64,
    payload: &Value,
    settings: &BotSettings,
) -> ApiResult<()> {
    if payload.get("symbols").is_none() || settings.symbols.is_empty() {
        return Ok(());
    }
    let market = state.engine.market_of(user_id).await?;
    let mut unknown = Vec::new();
    for symbol in &settings.symbols {
        if !market.lists(symbol).await? {
            unknown.push(symbol.as_str());
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    let mut fields = crate::error::FieldErrors::new();
    fields.insert(
        "symbols".into(),
        vec![format!(
            "Not traded on this account's market: {}.",
            unknown.join(", ")
        )],
    );
    Err(ApiError::validation(fields))
}

#[derive(Serialize, ToSchema)]
pub struct RiskPreviewView {
    #[serde(flatten)]
    pub preview: signaldesk_core::martingale::RiskPreview,
    /// The wallet the warnings were checked against, when the venue answered.
    pub wallet_balance: Option<f64>,
}

/// The martingale risk of the settings sent (applied on top of the saved ones, checked by the
/// same rules, saved nowhere): each step's margin, notional, cumulative margin and the price
/// distance to liquidation, with warnings.
#[utoipa::path(post, path = "/api/bot-settings/risk-preview/", tag = "settings",
    request_body = SettingsInput,
    responses((status = 200, body = RiskPreviewView), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn risk_preview(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiJson(payload): ApiJson<Value>,
) -> ApiResult<Json<RiskPreviewView>> {
    let current = state.store.settings_or_default(auth.id(), now_ms()).await?;
    let settings = current
        .settings
        .apply(as_object(&payload)?)
        .map_err(ApiError::validation)?;
    let wallet = state
        .engine
        .wallet(auth.id())
        .await
        .ok()
        .map(|w| w.wallet_balance);
    let maintenance = state
        .engine
        .maintenance_margin_rate(auth.id(), &settings.symbols)
        .await?;
    let preview = signaldesk_core::martingale::risk_preview(&settings, wallet, maintenance);
    Ok(Json(RiskPreviewView {
        preview,
        wallet_balance: wallet.and_then(|w| rust_decimal::prelude::ToPrimitive::to_f64(&w)),
    }))
}
