//! `GET /api/trades/{id}/chart/`: a live trade drawn as the backtest draws its trades
//! ([`signaldesk_backtest::chart`]), on the candles of the market the user's account trades
//! on: the market's own one-minute history (the simulated market's path, or Bybit's klines)
//! when the window is recent enough for it, else the candles stored by `candles import`.
//! Markers: entry and exit. Take-profit markers are left out: the ladder depends on the
//! settings the trade was opened with, which the trade does not keep.

use axum::extract::State;
use axum::Json;
use signaldesk_backtest::chart::ChartTrade;
use signaldesk_backtest::data::fill_gaps;
use signaldesk_core::market::Candle;

use crate::api::backtest_chart::{view, TradeChartView};
use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiPath, ApiResult, ErrorBody};

const MINUTE_MS: i64 = 60_000;
/// The most one-minute candles asked of the market (ten of Bybit's 1,000-row kline pages,
/// about a week); an older window is read from the stored candles only.
const MAX_MARKET_MINUTES: i64 = 10_000;

/// A trade's price chart.
#[utoipa::path(get, path = "/api/trades/{id}/chart/", tag = "trades",
    params(("id" = i64, Path)),
    responses((status = 200, body = TradeChartView), (status = 401, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn chart(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<TradeChartView>> {
    let trade = state
        .store
        .trade(auth.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (Some(entry_price), Some(opened_ms)) = (trade.entry_price, trade.opened_at) else {
        return Err(ApiError::conflict(
            "This trade never opened, so it has no chart.",
        ));
    };
    let chart_trade = ChartTrade {
        symbol: trade.symbol.clone(),
        side: trade.side,
        entry_price,
        opened_ms,
        exit_price: trade.exit_price,
        closed_ms: trade.closed_at,
        take_profit_levels: Vec::new(),
    };
    let market = state.engine.market_of(auth.id()).await?;
    let now = market.data.now_ms();
    let (from, to) = chart_trade.window(now);
    let to = to.min(now);
    let mut minutes: Vec<Candle> = Vec::new();
    let need = (now - from) / MINUTE_MS + 1;
    if (1..=MAX_MARKET_MINUTES).contains(&need) {
        // A market that cannot answer (an outage, a symbol it no longer lists) leaves the
        // stored candles to try.
        if let Ok(history) = market.data.history(&trade.symbol, 1, need as usize).await {
            minutes = history
                .into_iter()
                .filter(|c| c.open_time_ms >= from && c.open_time_ms < to)
                .collect();
        }
    }
    if minutes.is_empty() {
        minutes = fill_gaps(state.store.candles_between(&trade.symbol, from, to).await?);
    }
    Ok(Json(view(chart_trade.chart(&minutes))))
}
