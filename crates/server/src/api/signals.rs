//! `/api/signals/`: the user's latest signal per symbol, and their newest signals in time order.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use signaldesk_core::signal::TradeSignal;
use signaldesk_engine::signal_worker::sort_for_display;
use signaldesk_store::StoredSignal;
use utoipa::{IntoParams, ToSchema};

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiQuery, ApiResult, ErrorBody};
use crate::wire::rfc3339;

/// The list cap of spec section 9.
const DEFAULT_LIMIT: i64 = 50;
const MAX_LIMIT: i64 = 500;

#[derive(Serialize, ToSchema)]
pub struct SignalView {
    pub id: i64,
    pub symbol: String,
    /// What the bot trades on: STRONG_BUY, STRONG_SELL or NEUTRAL (BUY and SELL count as
    /// NEUTRAL, DESIGN.md section 5).
    pub recommendation: &'static str,
    /// The same value under the spec's other name.
    pub signal: &'static str,
    /// The full five-level rating: STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL.
    pub rating: String,
    pub total: Option<f64>,
    pub ma: Option<f64>,
    pub osc: Option<f64>,
    /// Open time of the rated candle.
    pub candle_time: String,
    pub created_at: String,
    /// `ratings` or `webhook`.
    pub source: String,
}

impl From<StoredSignal> for SignalView {
    fn from(s: StoredSignal) -> Self {
        let recommendation = TradeSignal::from_rating(&s.rating).as_str();
        SignalView {
            id: s.id,
            symbol: s.symbol,
            recommendation,
            signal: recommendation,
            rating: s.rating,
            total: s.total,
            ma: s.ma,
            osc: s.osc,
            candle_time: rfc3339(s.candle_time),
            created_at: rfc3339(s.created_at),
            source: s.source,
        }
    }
}

/// The latest signal of each symbol, by weight (STRONG_BUY, STRONG_SELL, NEUTRAL), then symbol.
#[utoipa::path(get, path = "/api/signals/", tag = "signals",
    responses((status = 200, body = [SignalView]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<SignalView>>> {
    let mut signals = state.store.latest_signal_per_symbol(auth.id()).await?;
    sort_for_display(&mut signals);
    Ok(Json(signals.into_iter().map(Into::into).collect()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LatestQuery {
    /// How many, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// The newest signals, newest first (every symbol, every candle).
#[utoipa::path(get, path = "/api/signals/latest/", tag = "signals", params(LatestQuery),
    responses((status = 200, body = [SignalView]), (status = 400, body = ErrorBody)))]
pub async fn latest(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(query): ApiQuery<LatestQuery>,
) -> ApiResult<Json<Vec<SignalView>>> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {MAX_LIMIT}."
        )));
    }
    let signals = state.store.recent_signals(auth.id(), limit).await?;
    Ok(Json(signals.into_iter().map(Into::into).collect()))
}
