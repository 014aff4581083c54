//! `/api/statistics/`: the live statistics card's figures for the first paint; afterwards the
//! `statistics` websocket message carries the same fields after every close.

use axum::extract::State;
use axum::Json;
use signaldesk_core::stats::LiveStatistics;

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiResult, ErrorBody};

/// total_trades, winning_trades, losing_trades, win_rate, total_profit, average_profit and
/// max_drawdown (percent) over every closed trade of the user.
#[utoipa::path(get, path = "/api/statistics/", tag = "stats",
    responses((status = 200, body = Object), (status = 401, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<LiveStatistics>> {
    Ok(Json(state.supervisor.statistics(auth.id()).await?))
}
