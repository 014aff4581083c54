//! Stored 1-minute candles, fetched from Bybit or imported for backtests: one row per symbol
//! and UTC day in a compact binary form (migration 0029, [`super::candle_codec`]), each
//! minute once (a candle saved again replaces the stored one, the rest of its day stays),
//! read by range. The text rows of migration 0016 are moved into it when the store connects.

use std::collections::BTreeMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::market::Candle;
use sqlx::{AnyConnection, Row};

use super::candle_codec::{self, day_of, slot_of, Slots, DAY_MS};
use crate::repo::import::{multi_row_insert, Marks};
use crate::{Backend, Store, StoreError};

/// Day rows per INSERT (5 values each, about 15 kB a full day).
const DAYS_PER_INSERT: usize = 100;
/// The days of 0016's text rows moved in one transaction.
const CONVERT_DAYS: i64 = 30;

fn corrupt(symbol: &str, day: i64) -> impl Fn(String) -> StoreError + '_ {
    move |why| StoreError::Corrupt(format!("{symbol}'s candles of day {day}: {why}"))
}

/// Takes the lock that makes a read, merge and write of `symbol`'s days one step: on
/// PostgreSQL a transaction-level advisory lock per symbol, on SQLite the write lock (any
/// write statement takes it, even one that changes no row).
async fn lock_symbol(
    conn: &mut AnyConnection,
    backend: Backend,
    symbol: &str,
) -> Result<(), StoreError> {
    let sql = match backend {
        Backend::Postgres => "SELECT pg_advisory_xact_lock(hashtext('candle_days:' || $1))",
        Backend::Sqlite => "DELETE FROM candle_days WHERE symbol = $1 AND day < 0 AND day > 0",
    };
    sqlx::query(sql).bind(symbol).execute(&mut *conn).await?;
    Ok(())
}

/// Merges `candles` (already grouped by day) into `symbol`'s stored days on `conn`, inside
/// the caller's transaction.
async fn merge_days(
    conn: &mut AnyConnection,
    backend: Backend,
    symbol: &str,
    by_day: BTreeMap<i64, Vec<Candle>>,
) -> Result<(), StoreError> {
    let (Some(&first), Some(&last)) = (by_day.keys().next(), by_day.keys().next_back()) else {
        return Ok(());
    };
    lock_symbol(conn, backend, symbol).await?;
    let rows = sqlx::query(
        "SELECT day, data FROM candle_days WHERE symbol = $1 AND day >= $2 AND day <= $3",
    )
    .bind(symbol)
    .bind(first)
    .bind(last)
    .fetch_all(&mut *conn)
    .await?;
    let mut stored: BTreeMap<i64, Vec<u8>> = BTreeMap::new();
    for row in rows {
        stored.insert(row.try_get("day")?, row.try_get("data")?);
    }
    let mut encoded = Vec::with_capacity(by_day.len());
    for (day, candles) in by_day {
        let mut slots: Slots = match stored.get(&day) {
            Some(data) => candle_codec::decode(day, data).map_err(corrupt(symbol, day))?,
            None => candle_codec::empty_day(),
        };
        for c in candles {
            if let Some(slot) = slot_of(day, c.open_time_ms) {
                slots[slot] = Some(c);
            }
        }
        if let Some((first, last)) = candle_codec::first_and_last(day, &slots) {
            encoded.push((day, first, last, candle_codec::encode(&slots)));
        }
    }
    let marks = match backend {
        Backend::Sqlite => Marks::Plain,
        Backend::Postgres => Marks::Numbered,
    };
    for chunk in encoded.chunks(DAYS_PER_INSERT) {
        let sql = multi_row_insert(
            marks,
            "INSERT INTO candle_days (symbol, day, first_time, last_time, data)",
            5,
            chunk.len(),
        ) + " ON CONFLICT (symbol, day) DO UPDATE SET first_time = excluded.first_time,
             last_time = excluded.last_time, data = excluded.data";
        let mut q = sqlx::query(&sql);
        for (day, first, last, data) in chunk {
            q = q
                .bind(symbol)
                .bind(*day)
                .bind(*first)
                .bind(*last)
                .bind(data.clone());
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Moves 0016's text rows (`candles`) into `candle_days`, a symbol and a month at a time,
/// each step one transaction that deletes the rows it stores (so two instances starting
/// together move each row once, and rows an instance of the release before writes during an
/// upgrade are moved at the next start). A row that does not open on a whole minute has no
/// place in a day: it is left where it is, and said once.
pub(crate) async fn move_text_rows(store: &Store) -> Result<(), StoreError> {
    let spans = sqlx::query(
        "SELECT symbol, MIN(open_time) AS first, MAX(open_time) AS last FROM candles
         WHERE open_time % 60000 = 0 GROUP BY symbol",
    )
    .fetch_all(&store.pool)
    .await?;
    for span in spans {
        let symbol: String = span.try_get("symbol")?;
        let (first, last): (i64, i64) = (span.try_get("first")?, span.try_get("last")?);
        let mut day = day_of(first);
        while day <= day_of(last) {
            let end = day + CONVERT_DAYS;
            let mut tx = store.pool.begin().await?;
            let rows = sqlx::query(
                "DELETE FROM candles WHERE symbol = $1 AND open_time >= $2 AND open_time < $3
                 AND open_time % 60000 = 0
                 RETURNING open_time, open, high, low, close, volume",
            )
            .bind(&symbol)
            .bind(day * DAY_MS)
            .bind(end * DAY_MS)
            .fetch_all(&mut *tx)
            .await?;
            let mut by_day: BTreeMap<i64, Vec<Candle>> = BTreeMap::new();
            for row in rows {
                let open_time_ms: i64 = row.try_get("open_time")?;
                let price = |column: &str| -> Result<Decimal, StoreError> {
                    let text: String = row.try_get(column)?;
                    Decimal::from_str(&text).map_err(|_| {
                        StoreError::Corrupt(format!(
                            "{symbol}'s candle at {open_time_ms}: {column} {text:?}"
                        ))
                    })
                };
                let candle = Candle {
                    open_time_ms,
                    open: price("open")?,
                    high: price("high")?,
                    low: price("low")?,
                    close: price("close")?,
                    volume: price("volume")?,
                };
                by_day.entry(day_of(open_time_ms)).or_default().push(candle);
            }
            merge_days(&mut tx, store.backend, &symbol, by_day).await?;
            tx.commit().await?;
            day = end;
        }
    }
    let left: i64 = sqlx::query("SELECT COUNT(*) AS n FROM candles")
        .fetch_one(&store.pool)
        .await?
        .try_get("n")?;
    if left > 0 {
        tracing::warn!(
            rows = left,
            "stored candles that do not open on a whole minute stay in the old `candles` table, unused"
        );
    }
    Ok(())
}

impl Store {
    /// Stores `symbol`'s candles in one transaction; a minute already stored is replaced, the
    /// other minutes of its day stay. A candle must open on a whole minute (UTC), else
    /// nothing is stored and the answer is [`StoreError::Invalid`] naming it.
    pub async fn save_candles(&self, symbol: &str, candles: &[Candle]) -> Result<(), StoreError> {
        let mut by_day: BTreeMap<i64, Vec<Candle>> = BTreeMap::new();
        for c in candles {
            let day = day_of(c.open_time_ms);
            if slot_of(day, c.open_time_ms).is_none() {
                return Err(StoreError::Invalid(format!(
                    "{symbol}'s candle at {} ms does not open on a whole minute",
                    c.open_time_ms
                )));
            }
            by_day.entry(day).or_default().push(c.clone());
        }
        if by_day.is_empty() {
            return Ok(());
        }
        let mut tx = self.pool.begin().await?;
        merge_days(&mut tx, self.backend, symbol, by_day).await?;
        tx.commit().await?;
        Ok(())
    }

    /// `symbol`'s stored days that may hold a minute in `[from_ms, to_ms)`, in `order`, at
    /// most `limit` of them.
    async fn candle_days(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
        order: &str,
        limit: i64,
    ) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        if from_ms >= to_ms {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT day, data FROM candle_days
             WHERE symbol = $1 AND day >= $2 AND day <= $3 AND last_time >= $4 AND first_time < $5
             ORDER BY day {order} LIMIT $6"
        );
        let rows = sqlx::query(&sql)
            .bind(symbol)
            .bind(day_of(from_ms))
            .bind(day_of(to_ms - 1))
            .bind(from_ms)
            .bind(to_ms)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("day")?, r.try_get("data")?)))
            .collect()
    }

    /// Calls `each` with `symbol`'s stored candles opened in `[from_ms, to_ms)` of the days
    /// `days`, oldest first within a day.
    fn each_in_range(
        symbol: &str,
        days: &[(i64, Vec<u8>)],
        from_ms: i64,
        to_ms: i64,
        mut each: impl FnMut(Candle),
    ) -> Result<(), StoreError> {
        for (day, data) in days {
            candle_codec::decode_each(*day, data, |c| {
                if (from_ms..to_ms).contains(&c.open_time_ms) {
                    each(c);
                }
            })
            .map_err(corrupt(symbol, *day))?;
        }
        Ok(())
    }

    /// The last stored candle of `symbol` that opened before `before_ms`, if any: where a
    /// gap at the start of a stretch is filled from.
    pub async fn candle_before(
        &self,
        symbol: &str,
        before_ms: i64,
    ) -> Result<Option<Candle>, StoreError> {
        let days = self
            .candle_days(symbol, i64::MIN / 2, before_ms, "DESC", 1)
            .await?;
        let mut last = None;
        Store::each_in_range(symbol, &days, i64::MIN, before_ms, |c| last = Some(c))?;
        Ok(last)
    }

    /// `symbol`'s stored candles opened in `[from_ms, to_ms)`, oldest first: one row a day
    /// (a backtest reads a day of 1,440 at a time), decoded here.
    pub async fn candles_between(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Candle>, StoreError> {
        let days = self
            .candle_days(symbol, from_ms, to_ms, "ASC", i64::MAX)
            .await?;
        let mut candles = Vec::with_capacity(days.len() * candle_codec::MINUTES_A_DAY);
        Store::each_in_range(symbol, &days, from_ms, to_ms, |c| candles.push(c))?;
        Ok(candles)
    }

    /// The open times of `symbol`'s stored candles in `[from_ms, to_ms)`, oldest first: what
    /// a fetch can skip.
    pub async fn candle_times(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let days = self
            .candle_days(symbol, from_ms, to_ms, "ASC", i64::MAX)
            .await?;
        let mut times = Vec::new();
        Store::each_in_range(symbol, &days, from_ms, to_ms, |c| {
            times.push(c.open_time_ms)
        })?;
        Ok(times)
    }

    /// The first and last open times of `symbol`'s stored candles in `[from_ms, to_ms)`.
    pub async fn candle_bounds(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Option<(i64, i64)>, StoreError> {
        // Only the two days at the ends can hold stored minutes none of which is in the
        // range: of the first (last) three days that may hold one, one does if any does.
        let mut ends = [None, None];
        for (end, order) in ends.iter_mut().zip(["ASC", "DESC"]) {
            let days = self.candle_days(symbol, from_ms, to_ms, order, 3).await?;
            for day in days.chunks(1) {
                let mut found = Vec::new();
                Store::each_in_range(symbol, day, from_ms, to_ms, |c| found.push(c.open_time_ms))?;
                let pick = if order == "ASC" {
                    found.first()
                } else {
                    found.last()
                };
                if let Some(&ms) = pick {
                    *end = Some(ms);
                    break;
                }
            }
        }
        Ok(ends[0].zip(ends[1]))
    }
}
