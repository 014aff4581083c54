//! Bot control (spec section 4, DESIGN.md section 5): start and stop the trading worker and
//! signal fetching, by settings record id or through the `/api/command/…` aliases.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use signaldesk_engine::control::BotControl;
use signaldesk_engine::BotStatus;
use utoipa::ToSchema;

use crate::app::AppState;
use crate::audit_log::Audit;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiPath, ApiResult, ErrorBody};

#[derive(Serialize, ToSchema)]
pub struct ControlResponse {
    pub message: &'static str,
    pub status: BotStatus,
}

async fn control(
    state: &AppState,
    audit: &Audit,
    user_id: i64,
    action: BotControl,
) -> ApiResult<Json<ControlResponse>> {
    let status = state
        .engine
        .control(user_id, action, audit.origin())
        .await?;
    Ok(Json(ControlResponse {
        message: action.done(),
        status,
    }))
}

/// The record must be the caller's: another user's id is a 404.
async fn own_record(state: &AppState, auth: &AuthUser, id: i64) -> ApiResult<()> {
    state
        .store
        .settings_by_id(auth.id(), id)
        .await?
        .map(|_| ())
        .ok_or_else(ApiError::not_found)
}

macro_rules! control_routes {
    ($($by_id:ident, $alias:ident, $action:expr, $path:literal, $alias_path:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[utoipa::path(post, path = $path, tag = "bot", params(("id" = i64, Path)),
            responses((status = 200, body = ControlResponse), (status = 400, body = ErrorBody),
                      (status = 404, body = ErrorBody)))]
        pub async fn $by_id(
            State(state): State<AppState>,
            audit: Audit,
            auth: AuthUser,
            ApiPath(id): ApiPath<i64>,
        ) -> ApiResult<Json<ControlResponse>> {
            own_record(&state, &auth, id).await?;
            control(&state, &audit, auth.id(), $action).await
        }

        #[doc = $doc]
        #[utoipa::path(post, path = $alias_path, tag = "bot",
            responses((status = 200, body = ControlResponse), (status = 400, body = ErrorBody)))]
        pub async fn $alias(State(state): State<AppState>, audit: Audit, auth: AuthUser) -> ApiResult<Json<ControlResponse>> {
            control(&state, &audit, auth.id(), $action).await
        }
    )*};
}

control_routes! {
    start_trading_worker, command_bot_start, BotControl::StartBot,
        "/api/bot-settings/{id}/start_trading_worker/", "/api/command/bot/start/",
        "Starts signal fetching if it is off, then the trading worker (needs an active API key).";
    stop_bot, command_bot_stop, BotControl::StopBot,
        "/api/bot-settings/{id}/stop_bot/", "/api/command/bot/stop/",
        "Stops the trading worker; open positions stay on the venue with their stops.";
    start_signals, command_signals_start, BotControl::StartSignals,
        "/api/bot-settings/{id}/start_signals/", "/api/command/signals/start/",
        "Starts signal fetching.";
    stop_signals, command_signals_stop, BotControl::StopSignals,
        "/api/bot-settings/{id}/stop_signals/", "/api/command/signals/stop/",
        "Stops signal fetching.";
}

#[utoipa::path(get, path = "/api/bot/status/", tag = "bot",
    responses((status = 200, body = BotStatus), (status = 401, body = ErrorBody)))]
pub async fn status(State(state): State<AppState>, auth: AuthUser) -> ApiResult<Json<BotStatus>> {
    Ok(Json(state.engine.supervisor().status(auth.id()).await?))
}
