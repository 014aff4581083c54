//! Figures the live view shows that are computed from the store and the venue together.

use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::stats::{live_statistics, LiveStatistics};
use signaldesk_store::Store;
use signaldesk_venue::Venue;

use crate::EngineError;

/// The live statistics of the trades closed since `from_ms` (`i64::MIN` for all) on the
/// user's account `account`, whose venue is `venue`: win/loss and profit, and the drawdown of
/// the equity curve they draw, which ends at today's equity. All of them come from the
/// store's running figures (one row, whatever the history); a period walks its own trades.
pub async fn statistics(
    store: &Store,
    account: AccountVenue,
    venue: &dyn Venue,
    user_id: i64,
    from_ms: i64,
) -> Result<LiveStatistics, EngineError> {
    if from_ms == i64::MIN {
        let (running, wallet) = tokio::try_join!(
            async { Ok::<_, EngineError>(store.running_statistics(user_id, account).await?) },
            async { Ok::<_, EngineError>(venue.wallet().await?) },
        )?;
        if let Some(stats) = running.live(wallet.wallet_balance) {
            return Ok(stats);
        }
        // A curve that starts at or below zero: the running figures cannot tell, walk it.
        return statistics_walked(store, wallet.wallet_balance, user_id, account, from_ms).await;
    }
    let equity = venue.wallet().await?.wallet_balance;
    statistics_walked(store, equity, user_id, account, from_ms).await
}

/// The live statistics from every trade closed since `from_ms` on `account`, on a curve
/// ending at `equity`: the reference the running figures equal.
pub async fn statistics_walked(
    store: &Store,
    equity: Decimal,
    user_id: i64,
    account: AccountVenue,
    from_ms: i64,
) -> Result<LiveStatistics, EngineError> {
    let pnls = store
        .closed_pnls_between(user_id, Some(account), from_ms, i64::MAX)
        .await?;
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
