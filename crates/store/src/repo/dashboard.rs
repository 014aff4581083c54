//! Reads and writes behind the dashboard's 24-hours-ago figures: every fill's notional (the
//! 24 h volume), 5-minute balance snapshots, and open and total trade counts at an instant.
//! Each figure is of one account of the user (statistics follow the account,
//! docs/accounts.md): a fill is its trade's, a snapshot the account it was taken on.

use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use sqlx::Row;

use crate::{Store, StoreError};

/// The account's balance at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceSnapshot {
    pub taken_at: i64,
    pub equity: Decimal,
    pub available_balance: Decimal,
    pub margin_balance: Decimal,
}

/// Open and total trades at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TradeCounts {
    /// Trades opened at or before the instant and not yet closed then.
    pub open: i64,
    /// Trades opened at or before the instant.
    pub total: i64,
}

fn parse(column: &str, text: &str) -> Result<Decimal, StoreError> {
    Decimal::from_str(text)
        .or_else(|_| Decimal::from_scientific(text))
        .map_err(|e| StoreError::Corrupt(format!("{column} {text}: {e}")))
}

/// How a snapshot replaces the one taken at the same instant.
pub(crate) const SNAPSHOT_UPSERT: &str = " ON CONFLICT (user_id, taken_at) DO UPDATE SET
    equity = excluded.equity, available_balance = excluded.available_balance,
    margin_balance = excluded.margin_balance, venue = excluded.venue";

impl Store {
    /// Records one execution of a trade: `notional` = quantity x price, in USDT.
    pub async fn insert_fill(
        &self,
        user_id: i64,
        trade_id: i64,
        notional: Decimal,
        filled_at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO fills (user_id, trade_id, notional, filled_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(user_id)
        .bind(trade_id)
        .bind(notional.to_string())
        .bind(filled_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The notional of the user's fills in `[from_ms, to_ms)` of trades on account `venue`.
    pub async fn fill_volume_between(
        &self,
        user_id: i64,
        venue: AccountVenue,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Decimal, StoreError> {
        let rows = sqlx::query(
            "SELECT f.notional FROM fills f JOIN trades t ON t.id = f.trade_id
             WHERE f.user_id = $1 AND f.filled_at >= $2 AND f.filled_at < $3 AND t.venue = $4",
        )
        .bind(user_id)
        .bind(from_ms)
        .bind(to_ms)
        .bind(venue.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().try_fold(Decimal::ZERO, |sum, r| {
            let text: String = r.try_get("notional")?;
            Ok(sum + parse("notional", &text)?)
        })
    }

    /// Stores a snapshot of the user's account `venue` and deletes the user's snapshots taken
    /// before `keep_after_ms`.
    pub async fn record_balance_snapshot(
        &self,
        user_id: i64,
        venue: AccountVenue,
        snapshot: &BalanceSnapshot,
        keep_after_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(&format!(
            "INSERT INTO balance_snapshots (user_id, taken_at, equity, available_balance,
                 margin_balance, venue) VALUES ($1, $2, $3, $4, $5, $6){SNAPSHOT_UPSERT}"
        ))
        .bind(user_id)
        .bind(snapshot.taken_at)
        .bind(snapshot.equity.to_string())
        .bind(snapshot.available_balance.to_string())
        .bind(snapshot.margin_balance.to_string())
        .bind(venue.as_str())
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM balance_snapshots WHERE user_id = $1 AND taken_at < $2")
            .bind(user_id)
            .bind(keep_after_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The newest snapshot of the user's account `venue` taken at or before `at_ms`.
    pub async fn balance_snapshot_at(
        &self,
        user_id: i64,
        venue: AccountVenue,
        at_ms: i64,
    ) -> Result<Option<BalanceSnapshot>, StoreError> {
        let row = sqlx::query(
            "SELECT taken_at, equity, available_balance, margin_balance FROM balance_snapshots
             WHERE user_id = $1 AND venue = $3 AND taken_at <= $2
             ORDER BY taken_at DESC LIMIT 1",
        )
        .bind(user_id)
        .bind(at_ms)
        .bind(venue.as_str())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            let field = |c: &str| -> Result<Decimal, StoreError> {
                let text: String = r.try_get(c)?;
                parse(c, &text)
            };
            Ok(BalanceSnapshot {
                taken_at: r.try_get("taken_at")?,
                equity: field("equity")?,
                available_balance: field("available_balance")?,
                margin_balance: field("margin_balance")?,
            })
        })
        .transpose()
    }

    /// How many of the user's trades on account `venue` were open, and how many had been
    /// opened, at `at_ms`. The total starts from the running count of trades ever opened
    /// (migration 0009, per account since 0025) less those opened after `at_ms`; the open
    /// ones are the OPEN trades plus the CLOSED ones closed after it (or without a close
    /// time): index ranges near `at_ms`, never the whole history.
    pub async fn trade_counts_at(
        &self,
        user_id: i64,
        venue: AccountVenue,
        at_ms: i64,
    ) -> Result<TradeCounts, StoreError> {
        let row = sqlx::query(
            // `+opened_at`: no index on opened_at for these three, whose ranges are by status
            // and close time (SQLite would otherwise walk the whole history by opened_at).
            "SELECT
                 (SELECT COUNT(*) FROM trades WHERE user_id = $1 AND status = 'OPEN'
                      AND venue = $3 AND +opened_at <= $2
                      AND (closed_at IS NULL OR closed_at > $2))
                 + (SELECT COUNT(*) FROM trades WHERE user_id = $1 AND status = 'CLOSED'
                      AND venue = $3 AND closed_at IS NULL AND +opened_at <= $2)
                 + (SELECT COUNT(*) FROM trades WHERE user_id = $1 AND status = 'CLOSED'
                      AND venue = $3 AND closed_at > $2 AND +opened_at <= $2) AS open,
                 COALESCE((SELECT opened FROM trade_running WHERE user_id = $1 AND venue = $3), 0)
                 - (SELECT COUNT(*) FROM trades WHERE user_id = $1 AND opened_at > $2
                      AND venue = $3 AND status IN ('OPEN', 'CLOSED')) AS total",
        )
        .bind(user_id)
        .bind(at_ms)
        .bind(venue.as_str())
        .fetch_one(&self.pool)
        .await?;
        Ok(TradeCounts {
            open: row.try_get("open")?,
            total: row.try_get("total")?,
        })
    }
}
