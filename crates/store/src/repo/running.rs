//! Running figures of migration 0009 (`trade_running`), one row per user and account (the
//! trades' `venue`, since 0025: statistics follow the account, docs/accounts.md): the
//! all-time live statistics ([`RunningStatistics`]) advanced in the transaction that closes a
//! trade, rebuilt from the account's trades when anything else changed its closed set, and the
//! count of trades ever opened that the dashboard's counts start from. Trades without a venue
//! are in no row.

use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::running_stats::RunningStatistics;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::repo::trades::{Trade, TradeStatus};
use crate::{Store, StoreError};

const FIGURES: &str = "changes, applied, pending_close, trades, wins, pnl, peak, trough,
     first_depth, falls, last_closed_at, last_id";

/// A `trade_running` row as read.
struct Stored {
    changes: i64,
    applied: i64,
    pending_close: Option<i64>,
    figures: RunningStatistics,
    /// (closed_at, id) of the latest close applied.
    last: Option<(i64, i64)>,
}

fn decimal(row: &AnyRow, column: &str) -> Result<Decimal, StoreError> {
    let text: String = row.try_get(column)?;
    Decimal::from_str(&text).map_err(|e| StoreError::Corrupt(format!("{column} {text}: {e}")))
}

fn count(row: &AnyRow, column: &str) -> Result<u64, StoreError> {
    let n: i64 = row.try_get(column)?;
    u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("trade_running {column} {n}")))
}

fn stored(row: &AnyRow) -> Result<Stored, StoreError> {
    let falls: String = row.try_get("falls")?;
    let last_closed_at: Option<i64> = row.try_get("last_closed_at")?;
    let last_id: Option<i64> = row.try_get("last_id")?;
    Ok(Stored {
        changes: row.try_get("changes")?,
        applied: row.try_get("applied")?,
        pending_close: row.try_get("pending_close")?,
        figures: RunningStatistics {
            trades: count(row, "trades")?,
            wins: count(row, "wins")?,
            pnl: decimal(row, "pnl")?,
            peak: decimal(row, "peak")?,
            trough: decimal(row, "trough")?,
            first_depth: decimal(row, "first_depth")?,
            falls: RunningStatistics::parse_falls(&falls)
                .ok_or_else(|| StoreError::Corrupt(format!("trade_running falls {falls}")))?,
        },
        last: last_closed_at.zip(last_id),
    })
}

async fn read(
    conn: &mut AnyConnection,
    user_id: i64,
    venue: AccountVenue,
) -> Result<Option<Stored>, StoreError> {
    let sql = format!("SELECT {FIGURES} FROM trade_running WHERE user_id = $1 AND venue = $2");
    let row = sqlx::query(&sql)
        .bind(user_id)
        .bind(venue.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(stored).transpose()
}

/// Writes `figures` as the state after `applied` changes, if the row still counts exactly
/// `applied` changes (nothing happened since they were read). Answers whether it wrote.
async fn write(
    conn: &mut AnyConnection,
    (user_id, venue): (i64, AccountVenue),
    applied: i64,
    figures: &RunningStatistics,
    last: Option<(i64, i64)>,
) -> Result<bool, StoreError> {
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let done = sqlx::query(
        "UPDATE trade_running SET applied = $2, pending_close = NULL, trades = $3, wins = $4,
             pnl = $5, peak = $6, trough = $7, first_depth = $8, falls = $9,
             last_closed_at = $10, last_id = $11
         WHERE user_id = $1 AND changes = $2 AND venue = $12",
    )
    .bind(user_id)
    .bind(applied)
    .bind(count(figures.trades))
    .bind(count(figures.wins))
    .bind(figures.pnl.to_string())
    .bind(figures.peak.to_string())
    .bind(figures.trough.to_string())
    .bind(figures.first_depth.to_string())
    .bind(figures.falls_text())
    .bind(last.map(|l| l.0))
    .bind(last.map(|l| l.1))
    .bind(venue.as_str())
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// After `t` was written on `conn` (inside the transaction that writes it): when that write
/// closed the trade, is the only change not yet applied and the latest close, the figures
/// take it in. Otherwise they stay behind and the next read rebuilds them.
pub(crate) async fn advance(conn: &mut AnyConnection, t: &Trade) -> Result<(), StoreError> {
    let Some(closed_at) = t.closed_at.filter(|_| t.status == TradeStatus::Closed) else {
        return Ok(());
    };
    let Some(venue) = t.venue else {
        return Ok(());
    };
    let Some(mut row) = read(conn, t.user_id, venue).await? else {
        return Ok(());
    };
    let key = (closed_at, t.id);
    if row.pending_close != Some(t.id)
        || row.applied + 1 != row.changes
        || row.last.is_some_and(|last| last >= key)
    {
        return Ok(());
    }
    row.figures.push(t.pnl);
    write(
        conn,
        (t.user_id, venue),
        row.changes,
        &row.figures,
        Some(key),
    )
    .await?;
    Ok(())
}

/// Recomputes the figures of the user's account `venue` from every closed trade on it, in
/// close order, on `conn` (the pool's connection or a transaction), and stores them unless the
/// trades changed meanwhile.
pub(crate) async fn rebuild(
    conn: &mut AnyConnection,
    user_id: i64,
    venue: AccountVenue,
) -> Result<RunningStatistics, StoreError> {
    // The count first: a change committed after it makes the write below a no-op.
    let changes: Option<i64> =
        sqlx::query("SELECT changes FROM trade_running WHERE user_id = $1 AND venue = $2")
            .bind(user_id)
            .bind(venue.as_str())
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| r.try_get("changes"))
            .transpose()?;
    let rows = sqlx::query(
        "SELECT id, pnl, closed_at FROM trades WHERE user_id = $1 AND venue = $2
             AND status = 'CLOSED' AND closed_at IS NOT NULL ORDER BY closed_at, id",
    )
    .bind(user_id)
    .bind(venue.as_str())
    .fetch_all(&mut *conn)
    .await?;
    let mut figures = RunningStatistics::default();
    let mut last = None;
    for row in &rows {
        figures.push(decimal(row, "pnl")?);
        last = Some((row.try_get("closed_at")?, row.try_get("id")?));
    }
    if let Some(changes) = changes {
        write(conn, (user_id, venue), changes, &figures, last).await?;
    }
    Ok(figures)
}

impl Store {
    /// The all-time live statistics' figures of the user's closed trades on account `venue`:
    /// one row read, or, after a change other than a close in order (an import, a correction,
    /// a delete), one pass over the account's trades that brings the row up to date.
    pub async fn running_statistics(
        &self,
        user_id: i64,
        venue: AccountVenue,
    ) -> Result<RunningStatistics, StoreError> {
        let mut conn = self.pool.acquire().await?;
        match read(&mut conn, user_id, venue).await? {
            None => Ok(RunningStatistics::default()),
            Some(row) if row.applied == row.changes => Ok(row.figures),
            Some(_) => rebuild(&mut conn, user_id, venue).await,
        }
    }

    /// Whether the stored figures of every account of the user are up to date and equal to a
    /// recomputation from that account's trades (for `signaldesk audit`): Some(false) when one
    /// disagrees, else None when one is behind (the next read rebuilds it).
    pub async fn running_statistics_agree(&self, user_id: i64) -> Result<Option<bool>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        let venues = sqlx::query("SELECT venue FROM trade_running WHERE user_id = $1")
            .bind(user_id)
            .fetch_all(&mut *conn)
            .await?;
        let mut answer = Some(true);
        for row in &venues {
            let text: String = row.try_get("venue")?;
            let venue = AccountVenue::parse(&text)
                .ok_or_else(|| StoreError::Corrupt(format!("trade_running venue {text}")))?;
            let Some(row) = read(&mut conn, user_id, venue).await? else {
                continue;
            };
            if row.applied != row.changes {
                answer = None;
                continue;
            }
            let pnls = self
                .closed_pnls_between(user_id, Some(venue), i64::MIN, i64::MAX)
                .await?;
            if RunningStatistics::of(&pnls) != row.figures {
                return Ok(Some(false));
            }
        }
        Ok(answer)
    }
}
