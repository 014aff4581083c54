//! Stored funding rates (migration 0020), fetched from Bybit for backtests: each settlement
//! once (one fetched again replaces the stored one), read by range.

use std::str::FromStr;

use rust_decimal::Decimal;
use sqlx::Row;

use crate::repo::import::{multi_row_insert, Marks};
use crate::{Store, StoreError};

/// Rates per INSERT (3 values each).
const RATES_PER_INSERT: usize = 1_000;

impl Store {
    /// Stores `symbol`'s funding rates `(settlement time, rate)` in one transaction.
    pub async fn save_funding_rates(
        &self,
        symbol: &str,
        rates: &[(i64, Decimal)],
    ) -> Result<(), StoreError> {
        let marks = Marks::of(self);
        let mut tx = self.pool.begin().await?;
        for chunk in rates.chunks(RATES_PER_INSERT) {
            let sql = multi_row_insert(
                marks,
                "INSERT INTO funding_rates (symbol, funding_time, rate)",
                3,
                chunk.len(),
            ) + " ON CONFLICT (symbol, funding_time) DO UPDATE SET rate = excluded.rate";
            let mut q = sqlx::query(&sql);
            for (at, rate) in chunk {
                q = q.bind(symbol).bind(*at).bind(rate.to_string());
            }
            q.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// `symbol`'s stored funding rates settled in `[from_ms, to_ms)`, oldest first.
    pub async fn funding_rates_between(
        &self,
        symbol: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<(i64, Decimal)>, StoreError> {
        let rows = sqlx::query(
            "SELECT funding_time, rate FROM funding_rates
             WHERE symbol = $1 AND funding_time >= $2 AND funding_time < $3
             ORDER BY funding_time",
        )
        .bind(symbol)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let text: String = row.try_get("rate")?;
                let rate = Decimal::from_str(&text)
                    .map_err(|_| StoreError::Corrupt(format!("funding rate {text:?}")))?;
                Ok((row.try_get("funding_time")?, rate))
            })
            .collect()
    }
}
