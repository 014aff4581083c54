//! Reads for the statistics pages beside the rollup (`repo::rollup`): martingale chains with
//! their trades, of one account of the user (statistics follow the account, docs/accounts.md).

use std::collections::HashMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
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

fn decimal(row: &AnyRow, column: &str) -> Result<Decimal, StoreError> {
    let text: String = row.try_get(column)?;
    Decimal::from_str(&text).map_err(|e| StoreError::Corrupt(format!("{column} {text}: {e}")))
}

impl Store {
    /// The user's chains created in `[from_ms, to_ms)` on account `venue` with their trades
    /// there (oldest first), ordered by their first trade's creation (a chain without trades
    /// by its own). A chain is on the account of its trades; one without any trade yet is
    /// shown on every account.
    pub async fn chains_with_trades(
        &self,
        user_id: i64,
        venue: AccountVenue,
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
            "SELECT id, chain_id, status, pnl, created_at, venue FROM trades
             WHERE user_id = $1 AND chain_id IN (SELECT id FROM martingale_chains
                 WHERE user_id = $1 AND created_at >= $2 AND created_at < $3)
             ORDER BY created_at, id",
        )
        .bind(user_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        // Chains with a trade on another account (or with no venue) and none on this one go.
        let mut elsewhere = vec![false; chains.len()];
        for row in &trade_rows {
            let chain_id: i64 = row.try_get("chain_id")?;
            let status: String = row.try_get("status")?;
            let Some(&at) = index.get(&chain_id) else {
                continue;
            };
            let on: Option<String> = row.try_get("venue")?;
            if on.as_deref() != Some(venue.as_str()) {
                elsewhere[at] = true;
                continue;
            }
            chains[at].trades.push(ChainTrade {
                id: row.try_get("id")?,
                status: TradeStatus::parse(&status)
                    .ok_or_else(|| StoreError::Corrupt(format!("trade status {status}")))?,
                pnl: decimal(row, "pnl")?,
                created_at: row.try_get("created_at")?,
            });
        }
        let mut kept = elsewhere.iter();
        chains.retain(|c| !kept.next().is_some_and(|&e| e) || !c.trades.is_empty());
        chains.sort_by_key(|c| {
            (
                c.trades.first().map_or(c.created_at, |t| t.created_at),
                c.id,
            )
        });
        Ok(chains)
    }
}
