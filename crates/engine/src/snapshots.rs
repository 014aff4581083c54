//! Every user's balance, recorded every 5 minutes so the dashboard's "24 hours ago" figures
//! are real readings. Rows older than [`RETENTION_MS`] are deleted as new ones are written.
//! With several instances, each user's balance is recorded by one: the instance running the
//! user's bot (whose paper account is the latest), and for users whose bot nobody runs, the
//! instance holding the snapshot duty.

use std::time::Duration;

use chrono::{DateTime, Utc};
use signaldesk_store::repo::dashboard::BalanceSnapshot;
use signaldesk_store::Store;
use tokio_util::sync::CancellationToken;

use crate::accounts::Accounts;
use crate::ownership::{HeldLeases, Ownership};
use crate::EngineError;

/// How often balances are recorded; snapshot times are whole multiples of it.
pub const EVERY_MS: i64 = 5 * 60 * 1000;
/// How long snapshots are kept: the dashboard needs 24 hours; a week more for history.
pub const RETENTION_MS: i64 = 8 * 24 * 60 * 60 * 1000;
/// The duty of recording the users whose bot nobody runs, and how long a round holds it:
/// past the next round, so its holder keeps it; when the holder is gone, another instance
/// takes it at the round after the duty ran out (one 5-minute reading of those users missed).
pub const DUTY: &str = "balance_snapshots";
const DUTY_TTL_MS: i64 = EVERY_MS + 30_000;

/// Whose balances this process records.
#[derive(Clone)]
pub(crate) struct Recorder {
    pub ownership: Ownership,
    pub held: std::sync::Arc<HeldLeases>,
}

impl Recorder {
    /// Every user when this process is its database's only one; else the users whose bot
    /// it runs, and those whose bot nobody runs while it holds the duty.
    async fn users(&self, store: &Store) -> Result<Vec<i64>, EngineError> {
        let all = store.user_ids().await?;
        let Ownership::Leased { holder, .. } = &self.ownership else {
            return Ok(all);
        };
        let elsewhere = store.leases_held_elsewhere(holder).await?;
        let duty = store.take_duty(DUTY, holder, DUTY_TTL_MS).await?;
        Ok(all
            .into_iter()
            .filter(|&u| self.held.token(u).is_some() || (duty && !elsewhere.contains(&u)))
            .collect())
    }
}

/// Records the balance of every user of `recorder`'s whose venue account answers, at `now`
/// rounded down to the snapshot step; answers how many were recorded. An account that cannot be read (no
/// key on Bybit, the exchange down) is skipped until the next round.
pub(crate) async fn record(
    store: &Store,
    accounts: &Accounts,
    recorder: &Recorder,
    now: DateTime<Utc>,
) -> Result<usize, EngineError> {
    let taken_at = now.timestamp_millis().div_euclid(EVERY_MS) * EVERY_MS;
    let mut recorded = 0;
    for user_id in recorder.users(store).await? {
        let (venue, account) = match accounts.account_of(user_id).await {
            Ok(on) => on,
            Err(e) => {
                tracing::debug!(user_id, "no balance snapshot: {e}");
                continue;
            }
        };
        let wallet = match account.wallet().await {
            Ok(wallet) => wallet,
            Err(e) => {
                tracing::debug!(user_id, "no balance snapshot: {e}");
                continue;
            }
        };
        let snapshot = BalanceSnapshot {
            taken_at,
            equity: wallet.equity,
            available_balance: wallet.available_balance,
            margin_balance: wallet.margin_balance,
        };
        store
            .record_balance_snapshot(user_id, venue, &snapshot, taken_at - RETENTION_MS)
            .await?;
        recorded += 1;
    }
    Ok(recorded)
}

/// Records now, then at every 5-minute boundary, until `stop` is cancelled.
pub(crate) async fn run(
    store: Store,
    accounts: Accounts,
    recorder: Recorder,
    stop: CancellationToken,
) {
    loop {
        if let Err(e) = record(&store, &accounts, &recorder, Utc::now()).await {
            tracing::warn!("balance snapshots not recorded: {e}");
        }
        let now_ms = Utc::now().timestamp_millis();
        let wait = EVERY_MS - now_ms.rem_euclid(EVERY_MS);
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(Duration::from_millis(wait as u64)) => {}
        }
    }
}
