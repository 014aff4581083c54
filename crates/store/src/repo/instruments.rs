//! Bybit's instruments (migration 0018): each symbol's trading rules and risk limit tiers as
//! `signaldesk candles fetch` last read them, which backtests on the stored candles trade
//! with. A fetch replaces the symbol's row and all its tiers at once.

use rust_decimal::Decimal;
use signaldesk_core::market::{Instrument, RiskTier};
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::repo::trades::decimal;
use crate::{Store, StoreError};

/// A symbol's instrument as Bybit listed it when it was fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredInstrument {
    pub instrument: Instrument,
    /// The risk limit tiers, the lowest first.
    pub risk_tiers: Vec<RiskTier>,
    /// When Bybit was asked, Unix ms.
    pub fetched_at: i64,
}

impl StoredInstrument {
    /// The maintenance margin rate of the first (lowest) risk tier; `None` without tiers.
    pub fn maintenance_margin_rate(&self) -> Option<Decimal> {
        self.risk_tiers.first().map(|t| t.maintenance_margin_rate)
    }
}

fn instrument_from_row(row: &AnyRow) -> Result<(Instrument, i64), StoreError> {
    let max_leverage: i64 = row.try_get("max_leverage")?;
    let instrument = Instrument {
        symbol: row.try_get("symbol")?,
        tick_size: decimal(row, "tick_size")?,
        qty_step: decimal(row, "qty_step")?,
        min_qty: decimal(row, "min_qty")?,
        min_notional: decimal(row, "min_notional")?,
        max_leverage: u32::try_from(max_leverage)
            .map_err(|_| StoreError::Corrupt(format!("max_leverage {max_leverage}")))?,
    };
    Ok((instrument, row.try_get("fetched_at")?))
}

fn tier_from_row(row: &AnyRow) -> Result<RiskTier, StoreError> {
    Ok(RiskTier {
        risk_limit_value: decimal(row, "risk_limit_value")?,
        maintenance_margin_rate: decimal(row, "maintenance_margin_rate")?,
        mm_deduction: decimal(row, "mm_deduction")?,
        max_leverage: decimal(row, "max_leverage")?,
    })
}

impl Store {
    /// Stores `stored` in one transaction, in place of what the store held for its symbol
    /// (the instrument and every tier).
    pub async fn save_instrument(&self, stored: &StoredInstrument) -> Result<(), StoreError> {
        let i = &stored.instrument;
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM instrument_risk_tiers WHERE symbol = $1")
            .bind(&i.symbol)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO instruments
                 (symbol, tick_size, qty_step, min_qty, min_notional, max_leverage, fetched_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (symbol) DO UPDATE SET tick_size = excluded.tick_size,
                 qty_step = excluded.qty_step, min_qty = excluded.min_qty,
                 min_notional = excluded.min_notional, max_leverage = excluded.max_leverage,
                 fetched_at = excluded.fetched_at",
        )
        .bind(&i.symbol)
        .bind(i.tick_size.to_string())
        .bind(i.qty_step.to_string())
        .bind(i.min_qty.to_string())
        .bind(i.min_notional.to_string())
        .bind(i64::from(i.max_leverage))
        .bind(stored.fetched_at)
        .execute(&mut *tx)
        .await?;
        for (n, tier) in (1_i64..).zip(&stored.risk_tiers) {
            sqlx::query(
                "INSERT INTO instrument_risk_tiers (symbol, tier, risk_limit_value,
                     maintenance_margin_rate, mm_deduction, max_leverage)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&i.symbol)
            .bind(n)
            .bind(tier.risk_limit_value.to_string())
            .bind(tier.maintenance_margin_rate.to_string())
            .bind(tier.mm_deduction.to_string())
            .bind(tier.max_leverage.to_string())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// `symbol`'s stored instrument with its tiers, lowest first; `None` when it was never
    /// fetched.
    pub async fn instrument(&self, symbol: &str) -> Result<Option<StoredInstrument>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT symbol, tick_size, qty_step, min_qty, min_notional, max_leverage, fetched_at
             FROM instruments WHERE symbol = $1",
        )
        .bind(symbol)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let (instrument, fetched_at) = instrument_from_row(&row)?;
        let tiers = sqlx::query(
            "SELECT risk_limit_value, maintenance_margin_rate, mm_deduction, max_leverage
             FROM instrument_risk_tiers WHERE symbol = $1 ORDER BY tier",
        )
        .bind(symbol)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(StoredInstrument {
            instrument,
            risk_tiers: tiers.iter().map(tier_from_row).collect::<Result<_, _>>()?,
            fetched_at,
        }))
    }
}
