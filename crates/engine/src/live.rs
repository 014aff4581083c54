//! Figures the live view shows that are computed from the store and the venue together.

use rust_decimal::Decimal;
use signaldesk_core::stats::{live_statistics, LiveStatistics};
use signaldesk_store::Store;
use signaldesk_venue::Venue;

use crate::EngineError;

/// The live statistics of the trades closed since `from_ms` (`i64::MIN` for all): win/loss
/// and profit, and the drawdown of the equity curve they draw, which ends at today's equity.
pub async fn statistics(
    store: &Store,
    venue: &dyn Venue,
    user_id: i64,
    from_ms: i64,
) -> Result<LiveStatistics, EngineError> {
    let pnls = store
        .closed_pnls_between(user_id, from_ms, i64::MAX)
        .await?;
    let equity = venue.wallet().await?.wallet_balance;
    let total: Decimal = pnls.iter().sum();
    let mut curve = Vec::with_capacity(pnls.len() + 1);
    let mut level = equity - total;
    curve.push(level);
    for pnl in &pnls {
        level += pnl;
        curve.push(level);
    }
    Ok(live_statistics(&pnls, &curve))
}
