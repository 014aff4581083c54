//! `/api/dashboard/`: the dashboard's four cards and its Balance card (spec section 3,
//! Dashboard response), each figure now and 24 hours ago.

use axum::extract::State;
use axum::Json;
use chrono::Utc;
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiResult, ErrorBody};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// A snapshot counts as "24 hours ago" when taken in the hour before that instant; an older
/// one (the server was down) would compare against a stale balance, so the answer is null.
const SNAPSHOT_TOLERANCE_MS: i64 = 60 * 60 * 1000;

/// The wallet with the dashboard response's (Bybit's) names.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardBalance {
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub total_equity: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub available_balance: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub margin_balance: Decimal,
}

#[derive(Serialize, ToSchema)]
pub struct DashboardSummary {
    /// Trades open now.
    pub open_trades: i64,
    /// Trades ever opened (open or closed).
    pub total_trades: i64,
    pub open_trades_24h_ago: i64,
    pub total_trades_24h_ago: i64,
}

#[derive(Serialize, ToSchema)]
pub struct DashboardView {
    pub balance: DashboardBalance,
    /// Equity 24 hours ago, from the 5-minute balance snapshots; null when none was taken in
    /// the hour before that instant (a new account, or the server was down).
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub balance_24h_ago: Option<Decimal>,
    /// Notional (qty x price, USDT) of every fill in the last 24 hours.
    #[serde(rename = "volume24h", with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub volume_24h: Decimal,
    /// The same over the 24 hours before that.
    #[serde(rename = "volume24h_ago", with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub volume_24h_ago: Decimal,
    pub summary: DashboardSummary,
}

/// Balance, 24 h volume and trade counts, now and 24 hours ago.
#[utoipa::path(get, path = "/api/dashboard/", tag = "dashboard",
    responses((status = 200, body = DashboardView), (status = 401, body = ErrorBody)))]
pub async fn read(State(state): State<AppState>, auth: AuthUser) -> ApiResult<Json<DashboardView>> {
    let user = auth.id();
    let now = Utc::now().timestamp_millis();
    let day_ago = now - DAY_MS;
    let store = &state.store;
    let wallet = state.engine.wallet(user).await?;
    let venue = store.account_venue(user).await?;
    let then = store
        .balance_snapshot_at(user, venue, day_ago)
        .await?
        .filter(|s| s.taken_at > day_ago - SNAPSHOT_TOLERANCE_MS);
    let counts_now = store.trade_counts_at(user, venue, now).await?;
    let counts_then = store.trade_counts_at(user, venue, day_ago).await?;
    Ok(Json(DashboardView {
        balance: DashboardBalance {
            total_equity: wallet.equity,
            available_balance: wallet.available_balance,
            margin_balance: wallet.margin_balance,
        },
        balance_24h_ago: then.map(|s| s.equity),
        volume_24h: store
            .fill_volume_between(user, venue, day_ago, now + 1)
            .await?,
        volume_24h_ago: store
            .fill_volume_between(user, venue, day_ago - DAY_MS, day_ago)
            .await?,
        summary: DashboardSummary {
            open_trades: counts_now.open,
            total_trades: counts_now.total,
            open_trades_24h_ago: counts_then.open,
            total_trades_24h_ago: counts_then.total,
        },
    }))
}
