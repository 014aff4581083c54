//! What the trading worker tells the trader, as domain events ([`Notice`]): a trade opened or
//! closed, and the summary of the day at 00:00 in the user's zone. The worker only publishes;
//! each channel subscribed to them decides whether it sends (the Telegram chat by
//! `telegram_notify_deals` and `telegram_notify_stats`, the other channels by their events).
//! Publishing never waits.

use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use signaldesk_store::Trade;

use super::TradingWorker;
use crate::notify::Notice;
use crate::telegram::{next_local_midnight, DailySummary, DealClosed, DealOpened};

impl TradingWorker {
    pub(super) fn notify_opened(&self, trade: &Trade) {
        if let Some(price) = trade.entry_price {
            let deal = DealOpened {
                symbol: trade.symbol.clone(),
                side: trade.side,
                qty: trade.qty,
                price,
                leverage: trade.leverage,
                margin: trade.margin,
            };
            self.deps
                .notices
                .publish(self.user_id, Notice::TradeOpened(deal));
        }
    }

    pub(super) fn notify_closed(&self, trade: &Trade, reason: &str) {
        let deal = DealClosed {
            symbol: trade.symbol.clone(),
            side: trade.side,
            qty: trade.closed_qty,
            exit_price: trade.exit_price.unwrap_or_default(),
            pnl: trade.pnl,
            fees: trade.fees,
            funding: trade.funding,
            reason: reason.replace('_', " "),
        };
        self.deps
            .notices
            .publish(self.user_id, Notice::TradeClosed(deal));
    }

    /// How long until the next local midnight of the user.
    pub(super) fn next_daily_summary(&self, now: DateTime<Utc>) -> std::time::Duration {
        (next_local_midnight(now, self.settings.timezone()) - now)
            .to_std()
            .unwrap_or(std::time::Duration::from_secs(60))
    }

    /// At local midnight: the day that just ended, published as the daily summary.
    pub async fn send_daily_summary(&self, now: DateTime<Utc>) {
        let zone = self.settings.timezone();
        let end = next_local_midnight(now - Duration::minutes(1), zone);
        let start = next_local_midnight(end - Duration::hours(26), zone);
        let day = self
            .deps
            .ledger
            .closed_money_between(
                self.user_id,
                self.deps.account_venue,
                start.timestamp_millis(),
                end.timestamp_millis(),
            )
            .await;
        let (pnls, funding) = match day {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("The daily summary could not be read: {e}"))
                    .await;
                return;
            }
        };
        let wins = pnls.iter().filter(|p| **p > Decimal::ZERO).count() as u64;
        let summary = DailySummary {
            date: start.with_timezone(&zone).date_naive(),
            trades: pnls.len() as u64,
            wins,
            losses: pnls.len() as u64 - wins,
            pnl: pnls.iter().sum(),
            funding,
            equity: self.deps.venue.wallet().await.ok().map(|w| w.equity),
        };
        self.deps
            .notices
            .publish(self.user_id, Notice::DailySummary(summary));
    }
}
