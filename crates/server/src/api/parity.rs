//! `/api/parity/`: backtest against reality (docs/parity.md). The signals the user's bot
//! acted on in a period replayed through a backtest of the current settings on the
//! account's market, and the two sets of trades side by side.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use signaldesk_backtest::parity::{self, Report};
use signaldesk_backtest::BacktestError;
use utoipa::IntoParams;

use crate::app::{now_ms, AppState};
use crate::auth::AuthUser;
use crate::backtest::account_market;
use crate::error::{ApiError, ApiQuery, ApiResult, ErrorBody, FieldErrors};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ParityQuery {
    /// Start: a day in the user's zone (`2026-11-20`, from its first instant) or an RFC 3339
    /// time (`2026-11-20T12:00:00Z`).
    #[param(required = true, max_length = 64)]
    pub from: Option<String>,
    /// End: a day in the user's zone (included, to its end) or an RFC 3339 time
    /// (excluded); at most 366 days after `from`.
    #[param(required = true, max_length = 64)]
    pub to: Option<String>,
}

/// Live vs backtest over a period: each trade's entry and exit times and prices, fees,
/// funding and pnl on both sides and their differences, trades on one side only with the
/// reason, and the totals. Runs the backtest while the request waits (a period of days
/// takes seconds).
#[utoipa::path(get, path = "/api/parity/", tag = "backtests", operation_id = "parity_read", params(ParityQuery),
    responses((status = 200, body = Report), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<ParityQuery>,
) -> ApiResult<Json<Report>> {
    let mut missing = FieldErrors::new();
    for (field, value) in [("from", &q.from), ("to", &q.to)] {
        if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
            missing.insert(
                field.into(),
                vec!["Expected a date (YYYY-MM-DD) or an RFC 3339 time.".into()],
            );
        }
    }
    if !missing.is_empty() {
        return Err(ApiError::validation(missing));
    }
    let (from, to) = (q.from.unwrap_or_default(), q.to.unwrap_or_default());
    let settings = state
        .store
        .settings_or_default(auth.id(), now_ms())
        .await?
        .settings;
    let venue = state.store.account_venue(auth.id()).await?;
    let (market, market_now) = account_market(&state.config, venue, now_ms())
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let (from_ms, to_ms) = parity::period(&from, &to, settings.timezone(), market_now)
        .map_err(ApiError::validation)?;
    match parity::run(
        &state.store,
        auth.id(),
        venue,
        &settings,
        &market,
        from_ms,
        to_ms,
    )
    .await
    {
        Ok(report) => Ok(Json(report)),
        Err(BacktestError::Invalid(fields)) => Err(ApiError::validation(fields)),
        Err(BacktestError::Store(e)) => Err(e.into()),
        Err(other) => Err(ApiError::bad_request(other.to_string())),
    }
}
