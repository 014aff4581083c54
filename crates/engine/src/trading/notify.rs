//! Telegram messages of the trading worker (DESIGN.md section 5): a deal message on every
//! open and close when `telegram_notify_deals` is on, and a summary of the day at 00:00 in
//! the user's zone when `telegram_notify_stats` is on. Sending never waits for Telegram.

use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use signaldesk_store::Trade;

use super::TradingWorker;
use crate::telegram::{
    daily_summary_text, deal_closed_text, deal_opened_text, next_local_midnight, DailySummary,
    DealClosed, DealOpened,
};

impl TradingWorker {
    fn chat(&self) -> Option<String> {
        let chat = self.settings.telegram_id.trim();
        (!chat.is_empty()).then(|| chat.to_string())
    }

    pub(super) fn notify_opened(&self, trade: &Trade) {
        if !self.settings.telegram_notify_deals {
            return;
        }
        if let (Some(chat), Some(price)) = (self.chat(), trade.entry_price) {
            let text = deal_opened_text(&DealOpened {
                symbol: trade.symbol.clone(),
                side: trade.side,
                qty: trade.qty,
                price,
                leverage: trade.leverage,
                margin: trade.margin,
            });
            self.deps.telegram.send(&chat, text);
        }
    }

    pub(super) fn notify_closed(&self, trade: &Trade, reason: &str) {
        if !self.settings.telegram_notify_deals {
            return;
        }
        if let Some(chat) = self.chat() {
            let text = deal_closed_text(&DealClosed {
                symbol: trade.symbol.clone(),
                side: trade.side,
                qty: trade.closed_qty,
                exit_price: trade.exit_price.unwrap_or_default(),
                pnl: trade.pnl,
                fees: trade.fees,
                funding: trade.funding,
                reason: reason.replace('_', " "),
            });
            self.deps.telegram.send(&chat, text);
        }
    }

    /// How long until the next local midnight of the user.
    pub(super) fn next_daily_summary(&self, now: DateTime<Utc>) -> std::time::Duration {
        (next_local_midnight(now, self.settings.timezone()) - now)
            .to_std()
            .unwrap_or(std::time::Duration::from_secs(60))
    }

    /// At local midnight: the day that just ended, to the user's chat.
    pub async fn send_daily_summary(&self, now: DateTime<Utc>) {
        let Some(chat) = self.chat() else {
            return;
        };
        if !self.settings.telegram_notify_stats {
            return;
        }
        let zone = self.settings.timezone();
        let end = next_local_midnight(now - Duration::minutes(1), zone);
        let start = next_local_midnight(end - Duration::hours(26), zone);
        let day = self
            .deps
            .store
            .closed_money_between(
                self.user_id,
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
        self.deps.telegram.send(&chat, daily_summary_text(&summary));
    }
}
