//! The Trades page's search: the trades of one account filtered by time, symbol, side,
//! status and close reason, sorted by open time, close time or pnl, read a window at a time
//! after a keyset cursor (the last row's sort key and id), so a page never shifts when new
//! trades are stored meanwhile (docs/rules.md, "Trades page").

use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use sqlx::Row;

use super::trades::{side_str, trade_from_row, Trade, TradeStatus, COLUMNS};
use crate::{Store, StoreError};

/// What the trades are sorted by; each is a total order with the id breaking ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TradeSortKey {
    /// When the position opened (its creation while the opening order is pending).
    Opened,
    /// When it closed; trades not closed sort as if closed at time 0 (last when newest first).
    Closed,
    /// Realized pnl, compared as exact decimals.
    Pnl,
}

impl TradeSortKey {
    fn sql(self) -> &'static str {
        match self {
            TradeSortKey::Opened => "COALESCE(opened_at, created_at)",
            TradeSortKey::Closed => "COALESCE(closed_at, 0)",
            TradeSortKey::Pnl => "CAST(pnl AS NUMERIC)",
        }
    }

    /// The key of `t` as the cursor carries it: the same text the SQL compares.
    pub fn of(self, t: &Trade) -> String {
        match self {
            TradeSortKey::Opened => t.opened_at.unwrap_or(t.created_at).to_string(),
            TradeSortKey::Closed => t.closed_at.unwrap_or(0).to_string(),
            TradeSortKey::Pnl => t.pnl.to_string(),
        }
    }
}

/// Where the previous window ended: its last row's sort key (as [`TradeSortKey::of`] writes
/// it) and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradeCursor {
    pub key: String,
    pub id: i64,
}

/// A search of one account's trades.
#[derive(Debug, Clone)]
pub struct TradeSearch {
    pub venue: AccountVenue,
    pub status: Option<TradeStatus>,
    pub symbol: Option<String>,
    pub side: Option<PositionSide>,
    pub close_reason: Option<String>,
    /// Created at or after (Unix ms).
    pub from: Option<i64>,
    /// Created before (Unix ms).
    pub to: Option<i64>,
    pub sort: TradeSortKey,
    pub descending: bool,
    pub after: Option<TradeCursor>,
    pub limit: i64,
}

const FILTER: &str = "user_id = $1 AND venue = $2
    AND ($3 IS NULL OR status = $3)
    AND ($4 IS NULL OR symbol = $4)
    AND ($5 IS NULL OR side = $5)
    AND ($6 IS NULL OR close_reason = $6)
    AND ($7 IS NULL OR created_at >= $7)
    AND ($8 IS NULL OR created_at < $8)";

impl Store {
    /// The next `limit` trades of the search after its cursor, in its order.
    pub async fn search_trades(
        &self,
        user_id: i64,
        s: &TradeSearch,
    ) -> Result<Vec<Trade>, StoreError> {
        let key = s.sort.sql();
        let (cmp, dir) = if s.descending {
            ("<", "DESC")
        } else {
            (">", "ASC")
        };
        let bound = match s.sort {
            TradeSortKey::Pnl => "CAST($9 AS NUMERIC)",
            _ => "CAST($9 AS BIGINT)",
        };
        let after = if s.after.is_some() {
            format!("AND ({key} {cmp} {bound} OR ({key} = {bound} AND id {cmp} $10))")
        } else {
            // Same placeholders either way, so the binds below never change.
            "AND ($9 IS NULL OR $10 IS NULL)".to_string()
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM trades WHERE {FILTER} {after}
             ORDER BY {key} {dir}, id {dir} LIMIT $11"
        );
        let rows = self
            .bind_filter(sqlx::query(&sql), user_id, s)
            .bind(s.after.as_ref().map(|c| c.key.clone()))
            .bind(s.after.as_ref().map(|c| c.id))
            .bind(s.limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(trade_from_row).collect()
    }

    /// How many trades match the search's filters (its cursor and limit aside).
    pub async fn count_search_trades(
        &self,
        user_id: i64,
        s: &TradeSearch,
    ) -> Result<i64, StoreError> {
        let sql = format!("SELECT COUNT(*) AS n FROM trades WHERE {FILTER}");
        let row = self
            .bind_filter(sqlx::query(&sql), user_id, s)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get("n")?)
    }

    fn bind_filter<'q>(
        &self,
        q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
        user_id: i64,
        s: &TradeSearch,
    ) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
        q.bind(user_id)
            .bind(s.venue.as_str())
            .bind(s.status.map(|t| t.as_str()))
            .bind(s.symbol.clone())
            .bind(s.side.map(side_str))
            .bind(s.close_reason.clone())
            .bind(s.from)
            .bind(s.to)
    }
}
