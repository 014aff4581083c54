//! `/api/trades/`: the bot's trades with filters and pages, and closing them by hand.

use axum::extract::State;
use axum::Json;
use chrono::{DateTime, NaiveDate};
use serde::{Deserialize, Serialize};
use serde_json::json;
use signaldesk_core::stats::blank;
use signaldesk_store::{AuditAction, TradeQuery, TradeStatus};
use utoipa::{IntoParams, ToSchema};

use crate::app::AppState;
use crate::audit_log::Audit;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiPath, ApiQuery, ApiResult, ErrorBody};
use crate::wire::trades::TradeView;

const DEFAULT_PAGE_SIZE: i64 = 50;
const MAX_PAGE_SIZE: i64 = 500;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TradeFilter {
    /// `pending`, `open`, `closed` or `cancelled`.
    #[param(
        pattern = r"^[ \t\r\n]*([Pp][Ee][Nn][Dd][Ii][Nn][Gg]|[Oo][Pp][Ee][Nn]|[Cc][Ll][Oo][Ss][Ee][Dd]|[Cc][Aa][Nn][Cc][Ee][Ll][Ll][Ee][Dd]|all)?[ \t\r\n]*$"
    )]
    pub status: Option<String>,
    pub symbol: Option<String>,
    /// Created at or after: RFC 3339, or a date (`YYYY-MM-DD`, from its start in UTC).
    #[param(format = Date)]
    pub from: Option<String>,
    /// Created before: RFC 3339, or a date (`YYYY-MM-DD`, up to its end in UTC).
    #[param(format = Date)]
    pub to: Option<String>,
    /// From 1 (default 1).
    #[param(minimum = 1)]
    pub page: Option<i64>,
    /// 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub page_size: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct TradePage {
    /// Trades matching the filters, over all pages.
    pub count: i64,
    pub page: i64,
    pub page_size: i64,
    pub results: Vec<TradeView>,
}

/// A time bound: RFC 3339, or a whole UTC date (its start, or with `end_of_day` the next
/// day's start).
fn parse_bound(field: &str, value: &str, end_of_day: bool) -> Result<i64, ApiError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(value) {
        return Ok(t.timestamp_millis());
    }
    let date = NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| {
        ApiError::bad_request(format!(
            "{field} must be a date (YYYY-MM-DD) or an RFC 3339 time."
        ))
    })?;
    let date = if end_of_day {
        date.succ_opt().unwrap_or(date)
    } else {
        date
    };
    Ok(date
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or_default())
}

#[utoipa::path(get, path = "/api/trades/", tag = "trades", params(TradeFilter),
    responses((status = 200, body = TradePage), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(filter): ApiQuery<TradeFilter>,
) -> ApiResult<Json<TradePage>> {
    let status = match blank(filter.status.as_deref()) {
        None | Some("all") => None,
        Some(s) => Some(TradeStatus::parse(&s.to_ascii_uppercase()).ok_or_else(|| {
            ApiError::bad_request("status must be pending, open, closed or cancelled.")
        })?),
    };
    let page = filter.page.unwrap_or(1);
    let page_size = filter.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if page < 1 || !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(ApiError::bad_request(format!(
            "page must be 1 or more and page_size 1 to {MAX_PAGE_SIZE}."
        )));
    }
    // An empty bound is no bound, as for every optional date of the API.
    let from = blank(filter.from.as_deref())
        .map(|v| parse_bound("from", v, false))
        .transpose()?;
    let to = blank(filter.to.as_deref())
        .map(|v| parse_bound("to", v, true))
        .transpose()?;
    let query = TradeQuery {
        status,
        symbol: filter
            .symbol
            .map(|s| s.trim().to_ascii_uppercase())
            .filter(|s| !s.is_empty()),
        from,
        to,
        offset: (page - 1).saturating_mul(page_size),
        limit: page_size,
    };
    let (trades, count) = state.store.trades_page(auth.id(), &query).await?;
    Ok(Json(TradePage {
        count,
        page,
        page_size,
        results: trades.into_iter().map(Into::into).collect(),
    }))
}

/// Closes an open trade at market.
#[utoipa::path(post, path = "/api/trades/{id}/close/", tag = "trades",
    params(("id" = i64, Path)),
    responses((status = 200, body = TradeView), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn close(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<TradeView>> {
    let trade = state
        .store
        .trade(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if trade.status != TradeStatus::Open {
        return Err(ApiError::conflict("This trade is not open"));
    }
    let closed = state.engine.supervisor().close_trade(auth.id(), id).await?;
    audit
        .record(
            Some(auth.id()),
            AuditAction::PositionClosed,
            json!({ "trade_id": id, "symbol": closed.symbol }),
        )
        .await;
    Ok(Json(closed.into()))
}

#[derive(Serialize, ToSchema)]
pub struct CloseAllAnswer {
    pub closed: usize,
}

/// Closes every open trade at market.
#[utoipa::path(post, path = "/api/trades/close-all/", tag = "trades",
    responses((status = 200, body = CloseAllAnswer), (status = 401, body = ErrorBody)))]
pub async fn close_all(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
) -> ApiResult<Json<CloseAllAnswer>> {
    let closed = state.engine.supervisor().close_all(auth.id()).await?;
    audit
        .record(
            Some(auth.id()),
            AuditAction::PositionsClosedAll,
            json!({ "count": closed }),
        )
        .await;
    Ok(Json(CloseAllAnswer { closed }))
}
