//! Stored 1-minute candles (migration 0016), fetched from Bybit for backtests: written in
//! batches, each minute once (a candle fetched again replaces the stored one), read by range.

use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::market::Candle;
use sqlx::Row;

use crate::repo::import::{multi_row_insert, Marks};
use crate::{Store, StoreError};

/// Candles per INSERT (7 values each).
const CANDLES_PER_INSERT: usize = 1_000;

/// A candle from its `time,open,high,low,close,volume` line.
fn candle_of_line(line: &str) -> Result<Candle, StoreError> {
    let corrupt = || StoreError::Corrupt(format!("candle line {line:?}"));
    let mut fields = line.split(',');
    let mut next = || fields.next().ok_or_else(corrupt);
    let open_time_ms = next()?.parse().map_err(|_| corrupt())?;
    let mut price = || Decimal::from_str(next()?).map_err(|_| corrupt());
    let candle = Candle {
        open_time_ms,
        open: price()?,
        high: price()?,
        low: price()?,
        close: price()?,
        volume: price()?,
    };
    Ok(candle)
}

impl Store {
    /// Stores `symbol`'s candles in one transaction; a minute already stored is replaced.
    pub async fn save_candles(&self, symbol: &str, candles: &[Candle]) -> Result<(), StoreError> {
        let marks = Marks::of(self);
        let mut tx = self.pool.begin().await?;
        for chunk in candles.chunks(CANDLES_PER_INSERT) {
            let sql = multi_row_insert(
                marks,
                "INSERT INTO candles (symbol, open_time, open, high, low, close, volume)",
                7,
                chunk.len(),
            ) + " ON CONFLICT (symbol, open_time) DO UPDATE SET open = excluded.open,
                 high = excluded.high, low = excluded.low, close = excluded.close,
                 volume = excluded.volume";
            let mut q = sqlx::query(&sql);
            for c in chunk {
                q = q
                    .bind(symbol)
                    .bind(c.open_time_ms)
                    .bind(c.open.to_string())
                    .bind(c.high.to_string())
                    .bind(c.low.to_string())
                    .bind(c.close.to_string())
                    .bind(c.volume.to_string());
            }
            q.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// `symbol`'s stored candles opened in `[from_ms, to_ms)`, oldest first. They come as
    /// one text of `time,open,high,low,close,volume` lines (a backtest reads a day of 1,440
    /// at a time): row by row, handing each from the driver's thread cost several times the
    /// parsing.
    /// The last stored candle of `symbol` that opened before `before_ms`, if any: where a
    /// gap at the start of a stretch is filled from.
    pub async fn candle_before(
        &self,
        symbol: &str,
        before_ms: i64,
    ) -> Result<Option<Candle>, StoreError> {
        let row = sqlx::query(
            "SELECT concat_ws(',', open_time, open, high, low, close, volume) AS line
             FROM candles WHERE symbol = $1 AND open_time < $2
             ORDER BY open_time DESC LIMIT 1",
        )
        .bind(symbol)
        .bind(before_ms)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| candle_of_line(&row.try_get::<String, _>("line")?))
            .transpose()
    }

    pub async fn candles_between(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Candle>, StoreError> {
        let aggregate = match self.backend() {
            crate::Backend::Sqlite => "group_concat",
            crate::Backend::Postgres => "string_agg",
        };
        // In no set order (an ordered aggregate costs SQLite a sort of its own): put in order
        // below, which for lines that come in order, as they do, is one pass.
        let sql = format!(
            "SELECT {aggregate}(concat_ws(',', open_time, open, high, low, close, volume), ';')
                 AS lines
             FROM candles WHERE symbol = $1 AND open_time >= $2 AND open_time < $3"
        );
        let row = sqlx::query(&sql)
            .bind(symbol)
            .bind(from_ms)
            .bind(to_ms)
            .fetch_one(&self.pool)
            .await?;
        let lines: Option<String> = row.try_get("lines")?;
        let mut candles = lines.as_deref().map_or(Ok(Vec::new()), |text| {
            text.split(';')
                .map(candle_of_line)
                .collect::<Result<Vec<_>, _>>()
        })?;
        candles.sort_by_key(|c| c.open_time_ms);
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
        let rows = sqlx::query(
            "SELECT open_time FROM candles
             WHERE symbol = $1 AND open_time >= $2 AND open_time < $3 ORDER BY open_time",
        )
        .bind(symbol)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok(r.try_get("open_time")?)).collect()
    }

    /// The first and last open times of `symbol`'s stored candles in `[from_ms, to_ms)`.
    pub async fn candle_bounds(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Option<(i64, i64)>, StoreError> {
        let row = sqlx::query(
            "SELECT MIN(open_time) AS first, MAX(open_time) AS last FROM candles
             WHERE symbol = $1 AND open_time >= $2 AND open_time < $3",
        )
        .bind(symbol)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_one(&self.pool)
        .await?;
        let first: Option<i64> = row.try_get("first")?;
        let last: Option<i64> = row.try_get("last")?;
        Ok(first.zip(last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_a_candle_and_a_broken_one_is_corrupt() {
        let candle = candle_of_line("60000,1.5,2,1,1.25,0").unwrap();
        assert_eq!(candle.open_time_ms, 60_000);
        assert_eq!(candle.close, Decimal::new(125, 2));
        for broken in ["60000,1.5,2,1,1.25", "x,1,1,1,1,1", "60000,1,1,one,1,1", ""] {
            assert!(
                matches!(candle_of_line(broken), Err(StoreError::Corrupt(_))),
                "{broken:?}"
            );
        }
    }
}
