//! Reads for the statistics pages: the per-quarter-hour rollup of closed trades that the
//! triggers of migration 0007 keep, and martingale chains with their trades.

use std::collections::HashMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::stats::ClosedTally;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::repo::trades::{ChainStatus, TradeStatus};
use crate::{Store, StoreError};

/// One trade of a chain, as the chains table shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainTrade {
    pub id: i64,
    pub status: TradeStatus,
    pub pnl: Decimal,
    pub created_at: i64,
}

/// A martingale chain with its trades, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainWithTrades {
    pub id: i64,
    pub status: ChainStatus,
    pub created_at: i64,
    pub trades: Vec<ChainTrade>,
}

/// A UTC quarter hour in milliseconds: the rollup's bucket.
pub const QUARTER_MS: i64 = 15 * 60 * 1000;

/// A rollup row: `at_column` (a quarter number), trades, wins and pnl_e8.
fn tally(row: &AnyRow, at_column: &str) -> Result<ClosedTally, StoreError> {
    let count = |c: &str| -> Result<u64, StoreError> {
        let n: i64 = row.try_get(c)?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("rollup {c} {n}")))
    };
    Ok(ClosedTally {
        at_ms: row.try_get::<i64, _>(at_column)? * QUARTER_MS,
        trades: count("trades")?,
        wins: count("wins")?,
        pnl: Decimal::new(row.try_get("pnl_e8")?, 8),
    })
}

fn decimal(row: &AnyRow, column: &str) -> Result<Decimal, StoreError> {
    let text: String = row.try_get(column)?;
    Decimal::from_str(&text).map_err(|e| StoreError::Corrupt(format!("{column} {text}: {e}")))
}

impl Store {
    /// The rollup of the user's trades closed in `[from_ms, to_ms)`, oldest first. Both
    /// bounds are taken to whole quarter hours (a period starting at a local midnight always
    /// is one; an end at "now" takes the current quarter, which holds no later close).
    pub async fn closed_quarters_between(
        &self,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<ClosedTally>, StoreError> {
        let rows = sqlx::query(
            "SELECT quarter, trades, wins, pnl_e8 FROM trade_rollup
             WHERE user_id = $1 AND quarter >= $2 AND quarter < $3 ORDER BY quarter",
        )
        .bind(user_id)
        .bind(from_ms.div_euclid(QUARTER_MS))
        .bind(to_ms.saturating_add(QUARTER_MS - 1).div_euclid(QUARTER_MS))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| tally(r, "quarter")).collect()
    }

    /// The first and last quarter hour (as UTC ms) with closes of the user in
    /// `[from_ms, to_ms)`, taken to whole quarter hours; None without any.
    pub async fn closed_quarter_bounds(
        &self,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Option<(i64, i64)>, StoreError> {
        let row = sqlx::query(
            "SELECT MIN(quarter) AS first, MAX(quarter) AS last FROM trade_rollup
             WHERE user_id = $1 AND quarter >= $2 AND quarter < $3",
        )
        .bind(user_id)
        .bind(from_ms.div_euclid(QUARTER_MS))
        .bind(to_ms.saturating_add(QUARTER_MS - 1).div_euclid(QUARTER_MS))
        .fetch_one(&self.pool)
        .await?;
        let first: Option<i64> = row.try_get("first")?;
        let last: Option<i64> = row.try_get("last")?;
        Ok(first
            .zip(last)
            .map(|(f, l)| (f * QUARTER_MS, l * QUARTER_MS)))
    }

    /// The user's closes in `[from_ms, to_ms)` summed per slot of the week (`quarter % 672`),
    /// each sum timed at its earliest quarter hour. Only meaningful over a span where the
    /// user's zone keeps one UTC offset: there a slot is one local weekday and hour.
    pub async fn closed_week_slots_between(
        &self,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<ClosedTally>, StoreError> {
        self.grouped_rollup("MIN(quarter)", "quarter % 672", user_id, from_ms, to_ms)
            .await
    }

    /// The user's closes in `[from_ms, to_ms)` summed per run of `quarters` consecutive quarter
    /// hours (aligned to the epoch), each sum timed at its last quarter hour with closes,
    /// oldest first: the equity curve's points.
    pub async fn closed_runs_between(
        &self,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
        quarters: i64,
    ) -> Result<Vec<ClosedTally>, StoreError> {
        let group = format!("quarter / {}", quarters.max(1));
        self.grouped_rollup("MAX(quarter)", &group, user_id, from_ms, to_ms)
            .await
    }

    /// Rollup rows of `[from_ms, to_ms)` summed by `group` (an expression of trusted code,
    /// never of input), each sum timed at `at` (an aggregate of `quarter`), ordered by time.
    async fn grouped_rollup(
        &self,
        at: &str,
        group: &str,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<ClosedTally>, StoreError> {
        let sql = format!(
            "SELECT {at} AS at, CAST(SUM(trades) AS BIGINT) AS trades,
                 CAST(SUM(wins) AS BIGINT) AS wins, CAST(SUM(pnl_e8) AS BIGINT) AS pnl_e8
             FROM trade_rollup WHERE user_id = $1 AND quarter >= $2 AND quarter < $3
             GROUP BY {group} ORDER BY at"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(from_ms.div_euclid(QUARTER_MS))
            .bind(to_ms.saturating_add(QUARTER_MS - 1).div_euclid(QUARTER_MS))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| tally(r, "at")).collect()
    }

    /// The user's chains created in `[from_ms, to_ms)` with their trades (oldest first),
    /// ordered by their first trade's creation (a chain without trades by its own).
    pub async fn chains_with_trades(
        &self,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<ChainWithTrades>, StoreError> {
        let chain_rows = sqlx::query(
            "SELECT id, status, created_at FROM martingale_chains
             WHERE user_id = $1 AND created_at >= $2 AND created_at < $3 ORDER BY id",
        )
        .bind(user_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        let mut chains = Vec::with_capacity(chain_rows.len());
        let mut index = HashMap::with_capacity(chain_rows.len());
        for row in &chain_rows {
            let status: String = row.try_get("status")?;
            let id: i64 = row.try_get("id")?;
            index.insert(id, chains.len());
            chains.push(ChainWithTrades {
                id,
                status: match status.as_str() {
                    "OPEN" => ChainStatus::Open,
                    "CLOSED" => ChainStatus::Closed,
                    other => return Err(StoreError::Corrupt(format!("chain status {other}"))),
                },
                created_at: row.try_get("created_at")?,
                trades: Vec::new(),
            });
        }
        if chains.is_empty() {
            return Ok(chains);
        }
        let trade_rows = sqlx::query(
            "SELECT id, chain_id, status, pnl, created_at FROM trades
             WHERE user_id = $1 AND chain_id IN (SELECT id FROM martingale_chains
                 WHERE user_id = $1 AND created_at >= $2 AND created_at < $3)
             ORDER BY created_at, id",
        )
        .bind(user_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        for row in &trade_rows {
            let chain_id: i64 = row.try_get("chain_id")?;
            let status: String = row.try_get("status")?;
            let Some(&at) = index.get(&chain_id) else {
                continue;
            };
            chains[at].trades.push(ChainTrade {
                id: row.try_get("id")?,
                status: TradeStatus::parse(&status)
                    .ok_or_else(|| StoreError::Corrupt(format!("trade status {status}")))?,
                pnl: decimal(row, "pnl")?,
                created_at: row.try_get("created_at")?,
            });
        }
        chains.sort_by_key(|c| {
            (
                c.trades.first().map_or(c.created_at, |t| t.created_at),
                c.id,
            )
        });
        Ok(chains)
    }
}
