//! `/api/balance/`: the user's wallet on the venue, with the names the live `balance`
//! message uses (spec section 3).

use axum::extract::State;
use axum::Json;
use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_venue::Wallet;
use utoipa::ToSchema;

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiResult, ErrorBody};

/// Bybit's definitions: equity = wallet balance + unrealised pnl; available = wallet
/// balance - margin held by positions; margin balance = equity.
#[derive(Debug, Serialize, ToSchema)]
pub struct BalanceView {
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub equity: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub available_balance: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub margin_balance: Decimal,
}

impl From<&Wallet> for BalanceView {
    fn from(w: &Wallet) -> Self {
        BalanceView {
            equity: w.equity,
            available_balance: w.available_balance,
            margin_balance: w.margin_balance,
        }
    }
}

#[utoipa::path(get, path = "/api/balance/", tag = "balance",
    responses((status = 200, body = BalanceView), (status = 401, body = ErrorBody)))]
pub async fn read(State(state): State<AppState>, auth: AuthUser) -> ApiResult<Json<BalanceView>> {
    let wallet = state.engine.wallet(auth.id()).await?;
    Ok(Json(BalanceView::from(&wallet)))
}
