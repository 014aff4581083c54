//! `/api/stats/` and `/api/martingale_chains/`: statistics over closed trades in the user's
//! time zone (DESIGN.md section 5, Statistics). The figures come from `signaldesk_core::stats`.

use axum::extract::State;
use axum::Json;
use chrono::{NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Deserialize;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::stats::{
    blank, grouped_stats, local_dates_range, local_day_start, parse_date, Granularity, Period,
    PeriodError,
};
use utoipa::IntoParams;

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiQuery, ApiResult, ErrorBody};
use crate::wire::stats::{ChainsAnswer, PeriodRowView, StatsView};

impl From<PeriodError> for ApiError {
    fn from(e: PeriodError) -> Self {
        ApiError::bad_request(e.to_string())
    }
}

pub(crate) async fn user_zone(state: &AppState, user_id: i64) -> ApiResult<Tz> {
    Ok(state
        .store
        .settings_of_user(user_id)
        .await?
        .map(|r| r.settings.timezone())
        .unwrap_or_else(|| BotSettings::default().timezone()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// `all`, `24h`, `3d`, `7d`, `month` (default) or `custom`.
    #[param(pattern = r"^[ \t\r\n]*(all|24h|3d|7d|month|custom)?[ \t\r\n]*$")]
    pub period: Option<String>,
    /// First day (`YYYY-MM-DD`, the user's zone) of a custom period. `custom` without
    /// dates is the whole history; one date alone bounds that side only.
    #[param(format = Date)]
    pub date_from: Option<String>,
    /// Last day, inclusive, of a custom period.
    #[param(format = Date)]
    pub date_to: Option<String>,
}

/// Statistics of the trades closed in a period, in the user's time zone.
#[utoipa::path(get, path = "/api/stats/", tag = "stats", params(StatsQuery),
    responses((status = 200, body = StatsView), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn summary(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<StatsQuery>,
) -> ApiResult<Json<StatsView>> {
    let period = Period::parse(
        q.period.as_deref(),
        q.date_from.as_deref(),
        q.date_to.as_deref(),
    )?;
    let tz = user_zone(&state, auth.id()).await?;
    let venue = state.store.account_venue(auth.id()).await?;
    let rollup = state.store.closed_rollup(auth.id(), venue).await?;
    let stats = rollup.period_stats(period, Utc::now(), tz);
    Ok(Json(stats.into()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RangeQuery {
    /// First day (`YYYY-MM-DD`, the user's zone); default: 30 days, 12 weeks or 12 months back.
    #[param(format = Date)]
    pub date_from: Option<String>,
    /// Last day, inclusive; default today.
    #[param(format = Date)]
    pub date_to: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CustomQuery {
    /// First day (`YYYY-MM-DD`, the user's zone).
    #[param(required = true, format = Date)]
    pub start: Option<String>,
    /// Last day, inclusive.
    #[param(required = true, format = Date)]
    pub end: Option<String>,
}

fn optional_date(field: &'static str, value: Option<&str>) -> ApiResult<Option<NaiveDate>> {
    Ok(blank(value).map(|v| parse_date(field, v)).transpose()?)
}

async fn grouped(
    state: &AppState,
    user_id: i64,
    by: Granularity,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> ApiResult<Json<Vec<PeriodRowView>>> {
    let tz = user_zone(state, user_id).await?;
    let today = Utc::now().with_timezone(&tz).date_naive();
    let to = to.unwrap_or(today);
    let from = from.unwrap_or_else(|| by.default_start(to));
    if from > to {
        return Err(PeriodError::Reversed.into());
    }
    let (from_ms, to_ms) = local_dates_range(from, to, tz);
    let venue = state.store.account_venue(user_id).await?;
    let rollup = state.store.closed_rollup(user_id, venue).await?;
    Ok(Json(
        grouped_stats(rollup.quarters_between(from_ms, to_ms), tz, by)
            .into_iter()
            .map(Into::into)
            .collect(),
    ))
}

async fn grouped_range(
    state: &AppState,
    auth: &AuthUser,
    by: Granularity,
    q: &RangeQuery,
) -> ApiResult<Json<Vec<PeriodRowView>>> {
    let from = optional_date("date_from", q.date_from.as_deref())?;
    let to = optional_date("date_to", q.date_to.as_deref())?;
    grouped(state, auth.id(), by, from, to).await
}

/// Pnl, trades and win rate per day (default the last 30 days), days with trades only.
#[utoipa::path(get, path = "/api/stats/daily/", tag = "stats", params(RangeQuery),
    responses((status = 200, body = [PeriodRowView]), (status = 400, body = ErrorBody)))]
pub async fn daily(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<RangeQuery>,
) -> ApiResult<Json<Vec<PeriodRowView>>> {
    grouped_range(&state, &auth, Granularity::Day, &q).await
}

/// Per ISO week (default the last 12 weeks, from a Monday), weeks with trades only.
#[utoipa::path(get, path = "/api/stats/weekly/", tag = "stats", params(RangeQuery),
    responses((status = 200, body = [PeriodRowView]), (status = 400, body = ErrorBody)))]
pub async fn weekly(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<RangeQuery>,
) -> ApiResult<Json<Vec<PeriodRowView>>> {
    grouped_range(&state, &auth, Granularity::IsoWeek, &q).await
}

/// Per calendar month (default the last 12 months, from the 1st), months with trades only.
#[utoipa::path(get, path = "/api/stats/monthly/", tag = "stats", params(RangeQuery),
    responses((status = 200, body = [PeriodRowView]), (status = 400, body = ErrorBody)))]
pub async fn monthly(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<RangeQuery>,
) -> ApiResult<Json<Vec<PeriodRowView>>> {
    grouped_range(&state, &auth, Granularity::Month, &q).await
}

/// Per day from `start` to `end` inclusive; both are required.
#[utoipa::path(get, path = "/api/stats/custom/", tag = "stats", params(CustomQuery),
    responses((status = 200, body = [PeriodRowView]), (status = 400, body = ErrorBody)))]
pub async fn custom(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<CustomQuery>,
) -> ApiResult<Json<Vec<PeriodRowView>>> {
    let start = optional_date("start", q.start.as_deref())?;
    let end = optional_date("end", q.end.as_deref())?;
    let (Some(start), Some(end)) = (start, end) else {
        return Err(ApiError::bad_request(
            "start and end are both required (YYYY-MM-DD).",
        ));
    };
    grouped(&state, auth.id(), Granularity::Day, Some(start), Some(end)).await
}

/// Martingale chains created between the dates (inclusive, the user's zone; each optional),
/// by their first trade's creation, oldest first.
#[utoipa::path(get, path = "/api/martingale_chains/", tag = "stats", params(RangeQuery),
    responses((status = 200, body = ChainsAnswer), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn chains(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<RangeQuery>,
) -> ApiResult<Json<ChainsAnswer>> {
    let from = optional_date("date_from", q.date_from.as_deref())?;
    let to = optional_date("date_to", q.date_to.as_deref())?;
    if let (Some(f), Some(t)) = (from, to) {
        if f > t {
            return Err(PeriodError::Reversed.into());
        }
    }
    let tz = user_zone(&state, auth.id()).await?;
    let from_ms = from.map_or(i64::MIN, |d| local_day_start(d, tz));
    let to_ms = to.map_or(i64::MAX, |d| local_dates_range(d, d, tz).1);
    let venue = state.store.account_venue(auth.id()).await?;
    let chains = state
        .store
        .chains_with_trades(auth.id(), venue, from_ms, to_ms)
        .await?;
    Ok(Json(ChainsAnswer {
        chains: chains.into_iter().map(Into::into).collect(),
    }))
}
