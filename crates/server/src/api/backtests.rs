//! `/api/backtests/`: start a backtest in the background, follow its progress, read its
//! result, cancel or delete it (docs/backtesting.md). Each user sees only their own.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use chrono::{NaiveDate, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use signaldesk_backtest::sweep::{Axis, MAX_CELLS};
use signaldesk_backtest::walk_forward::{Metric, WalkForward};
use signaldesk_backtest::{BacktestError, Data, Request, Source};
use signaldesk_store::repo::backtests::MAX_LABEL_CHARS;
use signaldesk_store::{BacktestRecord, StoreError};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::auth::AuthUser;
use crate::backtest::view::BacktestOutcomeView;
use crate::error::{ApiError, ApiJson, ApiPath, ApiResult, ErrorBody, FieldErrors};
use crate::openapi::SettingsInput;
use crate::wire::rfc3339;

/// The most symbols one backtest names.
const MAX_SYMBOLS: usize = 100;

/// The body of `POST /api/backtests/`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct BacktestInput {
    /// First day, in the user's zone.
    #[schema(format = Date)]
    date_from: String,
    /// Last day, included; not after today.
    #[schema(format = Date)]
    date_to: String,
    /// Symbols of the simulated market (default: all of them); with `data: bybit`, any
    /// symbol whose candles and instrument `signaldesk candles fetch` stored.
    #[schema(max_items = 100)]
    symbols: Option<Vec<String>>,
    /// `ratings` (default): the rating engine; `alerts`: the user's recorded TradingView
    /// alerts of the period.
    #[schema(pattern = "^(ratings|alerts)$")]
    source: Option<String>,
    /// `simulated` (default): the simulated market's history; `bybit`: Bybit's 1-minute
    /// candles and instruments stored by `signaldesk candles fetch` (400 when the candles do
    /// not cover the period or a symbol's instrument is not stored).
    #[schema(pattern = "^(simulated|bybit)$")]
    data: Option<String>,
    /// Settings fields to use instead of the saved ones (as in a settings update).
    #[schema(value_type = Option<SettingsInput>)]
    overrides: Option<Map<String, Value>>,
    /// A sweep: one or two settings fields, each with its values; one run per combination
    /// (at most 400), shown as a table of total pnl and max drawdown.
    #[schema(max_items = 2)]
    sweep: Option<Vec<SweepAxisInput>>,
    /// With a sweep: on each training window pick the cell with the best metric, trade it
    /// on the test window after it, and report both (docs/backtesting.md "Walk-forward").
    walk_forward: Option<WalkForwardInput>,
}

/// A walk-forward's windows and metric.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WalkForwardInput {
    /// Days of each training window (at least 1).
    train_days: i64,
    /// Days of each test window (at least 1); the test windows follow one another, the last
    /// ending on `date_to`.
    test_days: i64,
    /// `total_pnl` (default) or `pnl_over_drawdown` (total pnl / max(max drawdown in
    /// USDT, 1)).
    #[schema(pattern = "^(total_pnl|pnl_over_drawdown)$")]
    metric: Option<String>,
}

/// One swept setting.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct SweepAxisInput {
    /// A settings field, e.g. `initial_stop_loss_pct`.
    field: String,
    /// Its values, each checked as a settings update is.
    #[schema(min_items = 1, max_items = 400)]
    values: Vec<Value>,
}

#[derive(Serialize, ToSchema)]
pub struct BacktestView {
    pub id: i64,
    /// `single` (one run), `sweep` (one run per combination of the swept settings) or
    /// `walk_forward` (a sweep picked on training windows, traded on test windows).
    pub kind: &'static str,
    /// `running`, `done`, `failed` or `cancelled`.
    pub status: String,
    /// The trader's label (`PATCH /api/backtests/{id}/`); null when none.
    pub label: Option<String>,
    /// 0 to 1.
    pub progress: f64,
    /// What was asked for (dates, symbols, source, overrides).
    #[schema(value_type = BacktestInput)]
    pub request: Value,
    /// Why it failed.
    pub error: Option<String>,
    pub created_at: String,
    pub finished_at: Option<String>,
    /// When done (only in `GET /api/backtests/{id}/`): a run's result, or a sweep's cells.
    #[schema(value_type = Option<BacktestOutcomeView>)]
    pub result: Option<Value>,
}

impl From<BacktestRecord> for BacktestView {
    fn from(r: BacktestRecord) -> Self {
        let request: Value = serde_json::from_str(&r.request).unwrap_or(Value::Null);
        let swept = request
            .get("sweep")
            .and_then(Value::as_array)
            .is_some_and(|axes| !axes.is_empty());
        let walked = request
            .get("walk_forward")
            .is_some_and(|plan| !plan.is_null());
        BacktestView {
            id: r.id,
            kind: match (walked, swept) {
                (true, _) => "walk_forward",
                (false, true) => "sweep",
                (false, false) => "single",
            },
            status: r.status,
            label: r.label,
            progress: r.progress,
            request,
            error: r.error,
            created_at: rfc3339(r.created_at),
            finished_at: r.finished_at.map(rfc3339),
            result: r
                .result
                .and_then(|json| serde_json::from_str(&json).ok())
                .map(with_funding),
        }
    }
}

/// A result stored before runs charged funding has no `funding` in its summaries and trades:
/// those runs charged none, so it is zero, and every result has the shape the document says.
fn with_funding(mut result: Value) -> Value {
    fn zero_if_missing(object: Option<&mut Value>) {
        if let Some(Value::Object(map)) = object {
            map.entry("funding").or_insert(Value::from(0.0));
        }
    }
    zero_if_missing(result.get_mut("summary"));
    if let Some(Value::Array(trades)) = result.get_mut("trades") {
        trades.iter_mut().for_each(|t| zero_if_missing(Some(t)));
    }
    if let Some(Value::Array(cells)) = result.pointer_mut("/sweep/cells") {
        for cell in cells {
            zero_if_missing(cell.get_mut("summary"));
        }
    }
    result
}

/// Starts a backtest of the user's bot in the background: 202 with its id, then follow it
/// with `GET /api/backtests/{id}/`. One runs per user at a time (409).
#[utoipa::path(post, path = "/api/backtests/", tag = "backtests", request_body = BacktestInput,
    responses((status = 202, body = BacktestView), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiJson(payload): ApiJson<Value>,
) -> ApiResult<(StatusCode, Json<BacktestView>)> {
    let payload = payload
        .as_object()
        .ok_or_else(|| ApiError::bad_request("Expected a JSON object."))?;
    let request = read_request(payload)?;
    let saved = state
        .store
        .settings_or_default(auth.id(), now_ms())
        .await?
        .settings;
    let today = Utc::now().with_timezone(&saved.timezone()).date_naive();
    let checked = match request.check(&saved, today) {
        Ok(checked) => checked,
        Err(e) => return Err(refused(e)),
    };
    checked.check_stored(&state.store).await.map_err(refused)?;
    let mut asked = serde_json::json!({
        "date_from": request.date_from.to_string(),
        "date_to": request.date_to.to_string(),
        "symbols": request.symbols,
        "source": request.source,
        "data": request.data,
        "overrides": request.overrides,
        "sweep": request.sweep,
    });
    if let Some(plan) = request.walk_forward {
        asked["walk_forward"] = serde_json::json!(plan);
    }
    match state
        .backtests
        .start(auth.id(), checked, &asked.to_string())
        .await
    {
        Ok(record) => Ok((StatusCode::ACCEPTED, Json(record.into()))),
        Err(StoreError::Conflict(_)) => Err(ApiError::conflict(
            "A backtest of yours is already running: wait for it to finish or cancel it.",
        )),
        Err(e) => Err(e.into()),
    }
}

/// The user's backtests, newest first, without their results.
#[utoipa::path(get, path = "/api/backtests/", tag = "backtests",
    responses((status = 200, body = [BacktestView]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<BacktestView>>> {
    let all = state.store.backtests(auth.id()).await?;
    Ok(Json(all.into_iter().map(Into::into).collect()))
}

/// One backtest: its status and progress, and its result once done.
#[utoipa::path(get, path = "/api/backtests/{id}/", tag = "backtests",
    params(("id" = i64, Path)),
    responses((status = 200, body = BacktestView), (status = 401, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<BacktestView>> {
    let record = state
        .store
        .backtest(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(record.into()))
}

/// The body of `PATCH /api/backtests/{id}/`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct BacktestLabelInput {
    /// The new label, trimmed, at most 80 characters; empty or null clears it.
    #[schema(required = true, max_length = 80)]
    label: Option<String>,
}

/// Renames a backtest: sets or clears its label.
#[utoipa::path(patch, path = "/api/backtests/{id}/", tag = "backtests",
    params(("id" = i64, Path)), request_body = BacktestLabelInput,
    responses((status = 200, body = BacktestView), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn label(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(payload): ApiJson<Value>,
) -> ApiResult<Json<BacktestView>> {
    let label = read_label(&payload)?;
    if !state
        .store
        .label_backtest(auth.id(), id, label.as_deref())
        .await?
    {
        return Err(ApiError::not_found());
    }
    let record = state
        .store
        .backtest(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Json(record.into()))
}

/// The label of a `PATCH` body: trimmed, `None` when empty or null.
fn read_label(payload: &Value) -> ApiResult<Option<String>> {
    let field_error = |message: String| {
        ApiError::validation(FieldErrors::from([("label".to_string(), vec![message])]))
    };
    let Some(payload) = payload.as_object() else {
        return Err(ApiError::bad_request("Expected a JSON object."));
    };
    let text = match payload.get("label") {
        None => return Err(field_error("This field is required.".into())),
        Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => text.trim(),
        Some(_) => return Err(field_error("Expected a string or null.".into())),
    };
    if text.chars().count() > MAX_LABEL_CHARS {
        return Err(field_error(format!(
            "At most {MAX_LABEL_CHARS} characters."
        )));
    }
    Ok((!text.is_empty()).then(|| text.to_string()))
}

/// Deletes a backtest (a running one stops).
#[utoipa::path(delete, path = "/api/backtests/{id}/", tag = "backtests",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<StatusCode> {
    if state.store.delete_backtest(auth.id(), id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// Cancels a running backtest: it stops within about a second.
#[utoipa::path(post, path = "/api/backtests/{id}/cancel/", tag = "backtests",
    params(("id" = i64, Path)),
    responses((status = 200, body = BacktestView), (status = 401, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn cancel(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<BacktestView>> {
    let cancelled = state.store.cancel_backtest(auth.id(), id).await?;
    let record = state
        .store
        .backtest(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if !cancelled {
        return Err(ApiError::conflict(format!(
            "This backtest is not running (it is {}).",
            record.status
        )));
    }
    Ok(Json(record.into()))
}

/// A request the backtest refused: 400, by field where it says which.
fn refused(error: BacktestError) -> ApiError {
    match error {
        BacktestError::Invalid(fields) => ApiError::validation(fields),
        BacktestError::Store(e) => e.into(),
        other => ApiError::bad_request(other.to_string()),
    }
}

/// The request's fields, each wrong one named.
fn read_request(payload: &Map<String, Value>) -> ApiResult<Request> {
    let mut errors = FieldErrors::new();
    let mut date = |field: &str| -> Option<NaiveDate> {
        let parsed = payload
            .get(field)
            .and_then(Value::as_str)
            .and_then(|s| NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok());
        if parsed.is_none() {
            errors.insert(field.into(), vec!["Expected a date as YYYY-MM-DD.".into()]);
        }
        parsed
    };
    let date_from = date("date_from");
    let date_to = date("date_to");
    let symbols = match payload.get("symbols") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.len() <= MAX_SYMBOLS => {
            let names: Option<Vec<String>> = items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect();
            names.unwrap_or_else(|| {
                errors.insert("symbols".into(), vec!["Expected a list of symbols.".into()]);
                Vec::new()
            })
        }
        Some(Value::Array(_)) => {
            errors.insert(
                "symbols".into(),
                vec![format!("At most {MAX_SYMBOLS} symbols.")],
            );
            Vec::new()
        }
        Some(_) => {
            errors.insert("symbols".into(), vec!["Expected a list of symbols.".into()]);
            Vec::new()
        }
    };
    let source = match payload.get("source") {
        None | Some(Value::Null) => Source::Ratings,
        Some(v) if v == "ratings" => Source::Ratings,
        Some(v) if v == "alerts" => Source::Alerts,
        Some(_) => {
            errors.insert(
                "source".into(),
                vec!["Expected \"ratings\" or \"alerts\".".into()],
            );
            Source::Ratings
        }
    };
    let data = match payload.get("data") {
        None | Some(Value::Null) => Data::Simulated,
        Some(v) if v == "simulated" => Data::Simulated,
        Some(v) if v == "bybit" => Data::Bybit,
        Some(_) => {
            errors.insert(
                "data".into(),
                vec!["Expected \"simulated\" or \"bybit\".".into()],
            );
            Data::Simulated
        }
    };
    let overrides = match payload.get("overrides") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            errors.insert(
                "overrides".into(),
                vec!["Expected an object of settings.".into()],
            );
            Map::new()
        }
    };
    let sweep = read_sweep(payload.get("sweep")).unwrap_or_else(|problem| {
        errors.insert("sweep".into(), vec![problem]);
        Vec::new()
    });
    let walk_forward = read_walk_forward(payload.get("walk_forward")).unwrap_or_else(|problem| {
        errors.insert("walk_forward".into(), vec![problem]);
        None
    });
    match (date_from, date_to) {
        (Some(date_from), Some(date_to)) if errors.is_empty() => Ok(Request {
            date_from,
            date_to,
            symbols,
            source,
            data,
            overrides,
            sweep,
            walk_forward,
        }),
        _ => Err(ApiError::validation(errors)),
    }
}

/// The sweep's axes as sent: a list of `{"field": …, "values": […]}` (what they may hold is
/// checked with the rest of the request).
fn read_sweep(value: Option<&Value>) -> Result<Vec<Axis>, String> {
    const SHAPE: &str =
        "Expected a list of {\"field\": a setting, \"values\": a list of its values}.";
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(SHAPE.into()),
    };
    items
        .iter()
        .map(|item| {
            let field = item.get("field").and_then(Value::as_str);
            let values = item.get("values").and_then(Value::as_array);
            match (field, values) {
                (Some(field), Some(values)) if values.len() <= MAX_CELLS => Ok(Axis {
                    field: field.to_string(),
                    values: values.clone(),
                }),
                (Some(_), Some(_)) => Err(format!("At most {MAX_CELLS} runs in one sweep.")),
                _ => Err(SHAPE.into()),
            }
        })
        .collect()
}

/// The walk-forward as sent: `{"train_days": n, "test_days": m, "metric": …}` (the days'
/// bounds are checked with the rest of the request).
fn read_walk_forward(value: Option<&Value>) -> Result<Option<WalkForward>, String> {
    const SHAPE: &str = "Expected {\"train_days\": days, \"test_days\": days, \"metric\": \"total_pnl\" or \"pnl_over_drawdown\"}.";
    let plan = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(plan)) => plan,
        Some(_) => return Err(SHAPE.into()),
    };
    let days = |field: &str| plan.get(field).and_then(Value::as_i64);
    let (Some(train_days), Some(test_days)) = (days("train_days"), days("test_days")) else {
        return Err(SHAPE.into());
    };
    let metric = match plan.get("metric") {
        None | Some(Value::Null) => Metric::TotalPnl,
        Some(Value::String(name)) => Metric::parse(name)?,
        Some(_) => return Err(SHAPE.into()),
    };
    Ok(Some(WalkForward {
        train_days,
        test_days,
        metric,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::with_funding;

    #[test]
    fn a_result_stored_before_funding_charged_none() {
        let old = json!({
            "summary": {"fees": 1.5},
            "trades": [{"id": 1, "fees": 0.1}, {"id": 2, "funding": -0.25}],
        });
        assert_eq!(
            with_funding(old),
            json!({
                "summary": {"fees": 1.5, "funding": 0.0},
                "trades": [{"id": 1, "fees": 0.1, "funding": 0.0}, {"id": 2, "funding": -0.25}],
            })
        );
        let sweep = json!({"sweep": {"cells": [{"summary": {"fees": 2}}, {"summary": null}]}});
        assert_eq!(
            with_funding(sweep),
            json!({"sweep": {"cells": [{"summary": {"fees": 2, "funding": 0.0}}, {"summary": null}]}})
        );
    }
}
