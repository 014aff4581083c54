//! `GET /api/backtests/{id}/trades/{trade_id}/chart/`: one trade of a finished backtest
//! drawn on its symbol's candles (the run's own history: the simulated market regenerated
//! from the run's seed and start, or the stored Bybit candles), with its entry, take-profit
//! and exit markers.

use std::str::FromStr;

use axum::extract::State;
use axum::Json;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use signaldesk_backtest::chart::{ChartTrade, TradeChart};
use signaldesk_backtest::data::{fill_gaps, instruments_of};
use signaldesk_backtest::Candles;
use signaldesk_core::market::{Candle, Instrument, PositionSide};
use signaldesk_core::settings::BotSettings;
use utoipa::ToSchema;

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::backtest::view::{HistoryView, InstrumentView};
use crate::error::{ApiError, ApiPath, ApiResult, ErrorBody};

#[derive(Serialize, ToSchema)]
pub struct TradeChartView {
    pub symbol: String,
    /// The candles' length: the shortest that shows the trade in at most 400 candles.
    pub interval_minutes: u32,
    /// Oldest first.
    pub candles: Vec<ChartCandleView>,
    /// Entry, each take profit taken (where the price first reached it), exit.
    pub markers: Vec<ChartMarkerView>,
}

#[derive(Serialize, ToSchema)]
pub struct ChartCandleView {
    /// Unix ms of the candle's open.
    pub time: i64,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
}

#[derive(Serialize, ToSchema)]
pub struct ChartMarkerView {
    /// Unix ms.
    pub time: i64,
    /// `entry`, `take_profit` or `exit`.
    pub kind: &'static str,
    pub price: f64,
    pub label: String,
}

/// A backtest trade's price chart.
#[utoipa::path(get, path = "/api/backtests/{id}/trades/{trade_id}/chart/", tag = "backtests",
    params(("id" = i64, Path), ("trade_id" = i64, Path)),
    responses((status = 200, body = TradeChartView), (status = 401, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
pub async fn chart(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath((id, trade_id)): ApiPath<(i64, i64)>,
) -> ApiResult<Json<TradeChartView>> {
    let record = state
        .store
        .backtest(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let result: Value = record
        .result
        .and_then(|json| serde_json::from_str(&json).ok())
        .ok_or_else(ApiError::not_found)?;
    let (trade, history) = trade_of(&result, trade_id).ok_or_else(ApiError::not_found)?;
    let (from, to) = trade.window(history.to_ms);
    let (from, to) = (from.max(history.from_ms), to.min(history.to_ms));
    let minutes: Vec<Candle> = if history.data == "bybit" {
        // Filled as the run filled them: a gap at the window's start goes on from the last
        // candle stored before it, which the run traded on.
        let mut stored = state.store.candles_between(&trade.symbol, from, to).await?;
        if stored.first().is_none_or(|c| c.open_time_ms > from) {
            if let Some(before) = state.store.candle_before(&trade.symbol, from).await? {
                stored.insert(0, before);
            }
        }
        fill_gaps(stored)
            .into_iter()
            .filter(|c| c.open_time_ms >= from)
            .collect()
    } else {
        let candles = Candles::Simulated {
            seed: history.seed.unwrap_or_default(),
            symbols: vec![trade.symbol.clone()],
            from_ms: history.from_ms,
            to_ms: to,
        };
        // Regenerating the run's history up to the trade is computation: off the runtime.
        let loaded = tokio::task::spawn_blocking(move || candles.load())
            .await
            .map_err(ApiError::internal)?
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        loaded
            .values()
            .flatten()
            .filter(|c| c.open_time_ms >= from)
            .cloned()
            .collect()
    };
    Ok(Json(view(trade.chart(&minutes))))
}

/// The trade `trade_id` of a run's `result` (its take profits on the run's instrument) and
/// where the run's prices came from; `None` when the result has no such trade (or predates
/// charts).
fn trade_of(result: &Value, trade_id: i64) -> Option<(ChartTrade, HistoryView)> {
    let history: HistoryView = serde_json::from_value(result.get("history")?.clone()).ok()?;
    let settings: BotSettings = serde_json::from_value(result.get("settings")?.clone()).ok()?;
    let trade = result
        .get("trades")?
        .as_array()?
        .iter()
        .find(|t| t.get("id").and_then(Value::as_i64) == Some(trade_id))?;
    let symbol = trade.get("symbol")?.as_str()?.to_string();
    let side = match trade.get("side")?.as_str()? {
        "long" => PositionSide::Long,
        "short" => PositionSide::Short,
        _ => return None,
    };
    let decimal = |field: &str| {
        trade
            .get(field)
            .and_then(Value::as_f64)
            .and_then(|f| Decimal::from_str(&f.to_string()).ok())
    };
    let time = |field: &str| {
        trade
            .get(field)
            .and_then(Value::as_str)
            .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.timestamp_millis())
    };
    let entry_price = decimal("entry_price")?;
    let taken = trade
        .get("take_profits_taken")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let instrument = instrument_of(result, &symbol)?;
    let take_profit_levels =
        ChartTrade::take_profit_levels(&instrument, side, entry_price, &settings, taken);
    Some((
        ChartTrade {
            symbol,
            side,
            entry_price,
            opened_ms: time("opened_at")?,
            exit_price: decimal("exit_price"),
            closed_ms: time("closed_at"),
            take_profit_levels,
        },
        history,
    ))
}

/// What `symbol` traded by in the run of `result`: as the result keeps it, or for a result
/// from before results kept their instruments, the simulated market's specification.
fn instrument_of(result: &Value, symbol: &str) -> Option<Instrument> {
    let kept: Option<Vec<InstrumentView>> = result
        .get("instruments")
        .and_then(|list| serde_json::from_value(list.clone()).ok());
    match kept {
        Some(list) => list
            .into_iter()
            .find(|i| i.symbol == symbol)
            .map(|i| i.instrument()),
        None => instruments_of(&[symbol.to_string()]).ok()?.pop(),
    }
}

pub(crate) fn view(chart: TradeChart) -> TradeChartView {
    let num = |d: Decimal| d.to_f64().unwrap_or(0.0);
    TradeChartView {
        symbol: chart.symbol,
        interval_minutes: chart.interval_minutes,
        candles: chart
            .candles
            .into_iter()
            .map(|c| ChartCandleView {
                time: c.open_time_ms,
                open: num(c.open),
                high: num(c.high),
                low: num(c.low),
                close: num(c.close),
            })
            .collect(),
        markers: chart
            .markers
            .into_iter()
            .map(|m| ChartMarkerView {
                time: m.time_ms,
                kind: m.kind.as_str(),
                price: num(m.price),
                label: m.label,
            })
            .collect(),
    }
}
