//! Circuit breakers (docs/alerts.md, `circuit_breaker`; docs/trading.md): settings, off by
//! default, that stop new entries (martingale steps included) while they are tripped. Open
//! positions keep their stops and keep being managed.
//!
//! * Daily loss (`daily_loss_limit_pct` > 0): the trades closed today (the user's time zone,
//!   on the worker's clock) lost at least that percentage of the day's starting balance
//!   (the wallet balance less today's closed pnl). Tripped until the next local midnight.
//! * Losses in a row (`max_losses_in_row` > 0): the last N closed trades all lost
//!   (pnl <= 0, DESIGN.md's loss). Tripped for `losses_pause_minutes` after the N-th loss; a
//!   streak that goes on trips again at 2N, 3N…
//!
//! Both are read from the books of the worker's own account (a loss on paper never pauses a
//! Bybit account, docs/accounts.md) on the worker's clock, so a backtest, a restart and
//! another instance decide the same.

use chrono::{DateTime, Duration, TimeZone, Utc};
use rust_decimal::Decimal;

use super::TradingWorker;
use crate::notify::AlertKind;

/// The most recent closed trades read for the losses-in-a-row breaker.
const STREAK_READ: i64 = 1000;

impl TradingWorker {
    /// Whether a circuit breaker is set (or one was tripped and must say it reset).
    pub(super) fn breakers_on(&self) -> bool {
        self.settings.daily_loss_limit_pct > Decimal::ZERO
            || self.settings.max_losses_in_row > 0
            || self.breaker.is_some()
    }

    /// Why a circuit breaker keeps new entries out now, if one does. Logs and raises the
    /// alert when one trips, logs and clears it when it resets.
    pub(super) async fn circuit_breaker(&mut self, now: DateTime<Utc>) -> Option<String> {
        if !self.breakers_on() {
            return None;
        }
        let tripped = match self.daily_loss_breaker(now).await {
            Some(why) => Some(why),
            None => self.losses_in_row_breaker(now).await,
        };
        match (&self.breaker, &tripped) {
            (None, Some(why)) => {
                self.warning(&format!("Circuit breaker: {why}")).await;
                self.deps
                    .alerts
                    .raise(self.user_id, AlertKind::CircuitBreaker, why.clone());
            }
            (Some(_), None) => {
                self.info("Circuit breaker reset: new entries are allowed again")
                    .await;
                self.deps
                    .alerts
                    .clear(self.user_id, AlertKind::CircuitBreaker);
            }
            _ => {}
        }
        self.breaker = tripped.clone();
        tripped
    }

    async fn daily_loss_breaker(&mut self, now: DateTime<Utc>) -> Option<String> {
        let limit = self.settings.daily_loss_limit_pct;
        if limit <= Decimal::ZERO {
            return None;
        }
        let tz = self.settings.timezone();
        let local = now.with_timezone(&tz);
        let midnight = local.date_naive().and_hms_opt(0, 0, 0)?;
        let day_start = tz
            .from_local_datetime(&midnight)
            .earliest()
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or(now - Duration::hours(24));
        let pnls = self
            .deps
            .ledger
            .closed_pnls_between(
                self.user_id,
                Some(self.deps.account_venue),
                day_start.timestamp_millis(),
                now.timestamp_millis() + 1,
            )
            .await
            .ok()?;
        let day_pnl: Decimal = pnls.iter().sum();
        if day_pnl >= Decimal::ZERO {
            return None;
        }
        let wallet = self.deps.venue.wallet().await.ok()?;
        let start_balance = wallet.wallet_balance - day_pnl;
        if start_balance <= Decimal::ZERO {
            return None;
        }
        let lost_pct = -day_pnl * Decimal::ONE_HUNDRED / start_balance;
        (lost_pct >= limit).then(|| {
            format!(
                "the daily loss breaker tripped: {} USDT lost today, {}% of the day's starting balance of {} USDT (limit {}%); no new entries until midnight ({})",
                (-day_pnl).round_dp(2),
                lost_pct.round_dp(2),
                start_balance.round_dp(2),
                limit.normalize(),
                self.settings.user_timezone
            )
        })
    }

    async fn losses_in_row_breaker(&mut self, now: DateTime<Utc>) -> Option<String> {
        let n = self.settings.max_losses_in_row as usize;
        if n == 0 {
            return None;
        }
        let results = self
            .deps
            .ledger
            .recent_closed_results(
                self.user_id,
                self.deps.account_venue,
                now.timestamp_millis() + 1,
                STREAK_READ,
            )
            .await
            .ok()?;
        let streak = results
            .iter()
            .take_while(|(pnl, _)| *pnl <= Decimal::ZERO)
            .count();
        if streak < n {
            return None;
        }
        // The loss that tripped it: the last multiple of N in the streak (oldest first).
        let tripping = &results[streak - n * (streak / n)];
        let until_ms = tripping.1 + i64::from(self.settings.losses_pause_minutes) * 60_000;
        if now.timestamp_millis() >= until_ms {
            return None;
        }
        let until =
            DateTime::from_timestamp_millis(until_ms)?.with_timezone(&self.settings.timezone());
        Some(format!(
            "the losses-in-a-row breaker tripped: {streak} losing trades in a row (limit {n}); no new entries for {} min, until {}",
            self.settings.losses_pause_minutes,
            until.format("%Y-%m-%d %H:%M %Z")
        ))
    }
}
