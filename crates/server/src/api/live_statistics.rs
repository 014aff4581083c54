//! `/api/statistics/`: the live statistics card's figures for the first paint, over a
//! period; afterwards the `statistics` websocket message carries the all-time figures after
//! every close.

use axum::extract::State;
use axum::Json;
use chrono::Utc;
use serde::Deserialize;
use signaldesk_core::stats::{LiveStatistics, Period};
use utoipa::IntoParams;

use crate::api::stats::user_zone;
use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiQuery, ApiResult, ErrorBody};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LiveStatisticsQuery {
    /// `24h`, `7d`, `30d` (whole days back to local midnight in the user's zone, as on
    /// /stats) or `all` (the default).
    #[param(pattern = r"^[ \t\r\n]*(24h|7d|30d|all)?[ \t\r\n]*$")]
    pub period: Option<String>,
}

/// total_trades, winning_trades, losing_trades, win_rate, total_profit, average_profit and
/// max_drawdown (percent) over the user's trades closed in the period.
#[utoipa::path(get, path = "/api/statistics/", tag = "stats", params(LiveStatisticsQuery),
    responses((status = 200, body = LiveStatistics), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<LiveStatisticsQuery>,
) -> ApiResult<Json<LiveStatistics>> {
    let period = Period::parse_live(q.period.as_deref())?;
    let from_ms = match period {
        Period::All => i64::MIN,
        _ => {
            period
                .range(Utc::now(), user_zone(&state, auth.id()).await?)
                .0
        }
    };
    Ok(Json(
        state.engine.statistics_since(auth.id(), from_ms).await?,
    ))
}
