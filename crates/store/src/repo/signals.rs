use sqlx::any::AnyRow;
use sqlx::AnyConnection;

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;
use sqlx::Row;

use crate::{Store, StoreError};

/// Each user keeps at most this many stored signals; older ones are pruned.
pub const SIGNALS_KEPT_PER_USER: i64 = 20_000;
const PRUNE_EVERY: i64 = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct StoredSignal {
    pub id: i64,
    pub user_id: i64,
    pub symbol: String,
    /// STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL.
    pub rating: String,
    /// The numeric ratings (absent for webhook alerts).
    pub total: Option<f64>,
    pub ma: Option<f64>,
    pub osc: Option<f64>,
    /// Open time of the candle the rating is for (Unix ms); for alerts, their arrival.
    pub candle_time: i64,
    /// `ratings` or `webhook`.
    pub source: String,
    pub created_at: i64,
}

const COLUMNS: &str =
    "id, user_id, symbol, rating, total, ma, osc, candle_time, source, created_at";

fn from_row(row: &AnyRow) -> Result<StoredSignal, StoreError> {
    Ok(StoredSignal {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        symbol: row.try_get("symbol")?,
        rating: row.try_get("rating")?,
        total: row.try_get("total")?,
        ma: row.try_get("ma")?,
        osc: row.try_get("osc")?,
        candle_time: row.try_get("candle_time")?,
        source: row.try_get("source")?,
        created_at: row.try_get("created_at")?,
    })
}

impl Store {
    /// Stores a signal (its `id` is ignored) and returns it with its id.
    pub async fn insert_signal(&self, s: &StoredSignal) -> Result<StoredSignal, StoreError> {
        let row = bind_signal(sqlx::query(&insert_sql()), s)
            .fetch_one(&self.pool)
            .await?;
        let stored = from_row(&row)?;
        if stored.id % PRUNE_EVERY == 0 {
            prune_query(s.user_id).execute(&self.pool).await?;
        }
        Ok(stored)
    }

    /// The newest signal of each symbol for the user, by symbol.
    pub async fn latest_signal_per_symbol(
        &self,
        user_id: i64,
    ) -> Result<Vec<StoredSignal>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM signals WHERE id IN (
                 SELECT MAX(id) FROM signals WHERE user_id = $1 GROUP BY symbol)
             ORDER BY symbol"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }

    /// The newest signal of each symbol stored before `before_ms`, by symbol: what the
    /// bot knew of each symbol when a period began.
    pub async fn latest_signals_before(
        &self,
        user_id: i64,
        before_ms: i64,
    ) -> Result<Vec<StoredSignal>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM signals WHERE id IN (
                 SELECT MAX(id) FROM signals WHERE user_id = $1 AND created_at < $2 GROUP BY symbol)
             ORDER BY symbol"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(before_ms)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }

    /// Every signal of the user (any source) stored in `[from_ms, to_ms)`, oldest first.
    pub async fn all_signals_between(
        &self,
        user_id: i64,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<StoredSignal>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM signals
             WHERE user_id = $1 AND created_at >= $2 AND created_at < $3
             ORDER BY created_at, id"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }

    /// The user's newest signals, newest first.
    pub async fn recent_signals(
        &self,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<StoredSignal>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM signals WHERE user_id = $1 ORDER BY id DESC LIMIT $2");
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }

    /// The user's signals from `source` (`ratings` or `webhook`) stored in
    /// `[from_ms, to_ms)`, oldest first.
    pub async fn signals_between(
        &self,
        user_id: i64,
        source: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<StoredSignal>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM signals
             WHERE user_id = $1 AND source = $2 AND created_at >= $3 AND created_at < $4
             ORDER BY created_at, id"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(source)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }
}

/// Stores a signal on `conn` (its `id` is ignored), pruning the user's oldest now and then.
pub(crate) async fn insert_signal_on(
    conn: &mut AnyConnection,
    s: &StoredSignal,
) -> Result<StoredSignal, StoreError> {
    let row = bind_signal(sqlx::query(&insert_sql()), s)
        .fetch_one(&mut *conn)
        .await?;
    let stored = from_row(&row)?;
    if stored.id % PRUNE_EVERY == 0 {
        prune_query(s.user_id).execute(&mut *conn).await?;
    }
    Ok(stored)
}

fn insert_sql() -> String {
    format!(
        "INSERT INTO signals (user_id, symbol, rating, total, ma, osc, candle_time, source, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {COLUMNS}"
    )
}

fn bind_signal<'q>(query: AnyQuery<'q>, s: &'q StoredSignal) -> AnyQuery<'q> {
    query
        .bind(s.user_id)
        .bind(&s.symbol)
        .bind(&s.rating)
        .bind(s.total)
        .bind(s.ma)
        .bind(s.osc)
        .bind(s.candle_time)
        .bind(&s.source)
        .bind(s.created_at)
}

/// Deletes the user's signals beyond the newest `SIGNALS_KEPT_PER_USER`.
fn prune_query(user_id: i64) -> AnyQuery<'static> {
    sqlx::query(
        "DELETE FROM signals WHERE user_id = $1 AND id <= (
             SELECT id FROM signals WHERE user_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
    )
    .bind(user_id)
    .bind(SIGNALS_KEPT_PER_USER)
}
