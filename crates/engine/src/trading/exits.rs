//! Exits: the take-profit ladder the worker runs on price ticks, the stops the venue
//! executes, and manual closes; each close is booked on its trade, and a finished trade
//! moves its martingale chain on.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_core::martingale::{after_close, ChainOutcome};
use signaldesk_core::trading::{reached_in_favour, take_profit_price, take_profit_qty};
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::{CloseReason, OrderRequest, PositionClose, VenueEvent};

use super::entries::side_name;
use super::TradingWorker;
use crate::EngineError;

/// How a close is named in the store and the log.
pub fn reason_name(reason: CloseReason) -> &'static str {
    match reason {
        CloseReason::StopLoss => "stop_loss",
        CloseReason::TakeProfit => "take_profit",
        CloseReason::Trailing => "trailing",
        CloseReason::Liquidation => "liquidation",
        CloseReason::Manual => "manual",
    }
}

/// One close of (part of) a trade, from a fill of ours or an event of the venue.
struct Booked {
    qty: Decimal,
    price: Decimal,
    fee: Decimal,
    realized_pnl: Decimal,
}

impl TradingWorker {
    /// A price: runs the take-profit ladder of the trade open on `symbol`.
    pub async fn on_tick(&mut self, symbol: &str, price: Decimal, now: DateTime<Utc>) {
        self.prices.insert(symbol.to_string(), price);
        let Some(trade) = self.open.get(symbol) else {
            return;
        };
        if trade.status != TradeStatus::Open {
            return;
        }
        let (Some(entry), side, step) = (trade.entry_price, trade.side, trade.tp_step) else {
            return;
        };
        let Ok(instrument) = self.instrument(symbol).await else {
            return;
        };
        let level = take_profit_price(side, entry, &self.settings, step, &instrument);
        if reached_in_favour(side, price, level) {
            self.take_profit(symbol.to_string(), level, now).await;
        }
    }

    async fn take_profit(&mut self, symbol: String, level: Decimal, now: DateTime<Utc>) {
        let Some(mut trade) = self.open.get(&symbol).cloned() else {
            return;
        };
        let Ok(instrument) = self.instrument(&symbol).await else {
            return;
        };
        let qty = take_profit_qty(trade.open_qty, &instrument);
        let step = trade.tp_step + 1;
        let order = OrderRequest {
            client_order_id: format!("sd-tp-{}-{step}", trade.id),
            symbol: symbol.clone(),
            side: trade.side.exit_side(),
            qty,
            reduce_only: true,
        };
        let fill = match self.deps.venue.submit_market_order(order).await {
            Ok(fill) => fill,
            Err(e) => {
                self.warning(&format!(
                    "{symbol}: take profit {step} at {level} failed: {e}"
                ))
                .await;
                return;
            }
        };
        trade.tp_step = step;
        let booked = Booked {
            qty: fill.qty,
            price: fill.price,
            fee: fill.fee,
            realized_pnl: fill.realized_pnl,
        };
        self.info(&format!(
            "{symbol}: take profit {step} reached {level}: closed {} of {} at {}, pnl {}",
            fill.qty,
            trade.open_qty,
            fill.price,
            fill.realized_pnl.round_dp(4)
        ))
        .await;
        let finished = self.book(&mut trade, &booked, now).await;
        if finished {
            self.finish(trade, "take_profit", now).await;
            return;
        }
        if step == 1 {
            self.move_stop_to_break_even(&mut trade).await;
        }
        self.open.insert(symbol, trade.clone());
        self.save(&trade).await;
        self.publish_account().await;
    }

    /// After the first take profit the stop goes to the entry price; the trailing stop stays.
    async fn move_stop_to_break_even(&mut self, trade: &mut Trade) {
        let Some(entry) = trade.entry_price else {
            return;
        };
        match self.place_stops(trade, Some(entry)).await {
            Ok(_) => {
                trade.stop_loss = Some(entry);
                self.info(&format!(
                    "{}: stop loss moved to break-even at {entry}",
                    trade.symbol
                ))
                .await;
            }
            Err(e) => {
                self.warning(&format!(
                    "{}: the stop could not move to break-even: {e}",
                    trade.symbol
                ))
                .await;
            }
        }
    }

    /// What the venue did by itself: stop loss, trailing stop, liquidation. Closes made by
    /// the worker's own orders are booked from their fills, so `Manual` closes are skipped.
    pub async fn on_venue_event(&mut self, event: VenueEvent, now: DateTime<Utc>) {
        match event {
            VenueEvent::PositionClosed(close) if close.reason != CloseReason::Manual => {
                self.on_venue_close(close, now).await;
            }
            VenueEvent::Wallet(wallet) => {
                self.deps
                    .bus
                    .publish(self.user_id, crate::events::UserEvent::Balance(wallet));
            }
            _ => {}
        }
    }

    async fn on_venue_close(&mut self, close: PositionClose, now: DateTime<Utc>) {
        let Some(mut trade) = self.open.get(&close.symbol).cloned() else {
            self.warning(&format!(
                "{}: the venue closed {} ({}) of a position the bot does not hold",
                close.symbol,
                close.qty,
                reason_name(close.reason)
            ))
            .await;
            return;
        };
        let booked = Booked {
            qty: close.qty,
            price: close.exit_price,
            fee: close.fee,
            realized_pnl: close.realized_pnl,
        };
        let reason = reason_name(close.reason);
        self.info(&format!(
            "{}: {} at {}: closed {}, pnl {}",
            trade.symbol,
            reason.replace('_', " "),
            close.exit_price,
            close.qty,
            close.realized_pnl.round_dp(4)
        ))
        .await;
        if self.book(&mut trade, &booked, now).await || close.remaining_qty.is_zero() {
            self.finish(trade, reason, now).await;
        } else {
            self.open.insert(trade.symbol.clone(), trade.clone());
            self.save(&trade).await;
            self.publish_account().await;
        }
    }

    /// Books a close on the trade; true when nothing is left open.
    async fn book(&self, trade: &mut Trade, close: &Booked, now: DateTime<Utc>) -> bool {
        self.record_fill(trade, close.price * close.qty, now.timestamp_millis())
            .await;
        trade.open_qty = (trade.open_qty - close.qty).max(Decimal::ZERO);
        trade.closed_qty += close.qty;
        trade.exit_value += close.price * close.qty;
        trade.pnl += close.realized_pnl;
        trade.fees += close.fee;
        trade.volume += close.price * close.qty;
        if !trade.closed_qty.is_zero() {
            trade.exit_price = Some(trade.exit_value / trade.closed_qty);
        }
        trade.open_qty.is_zero()
    }

    /// A trade with nothing left open: stored as CLOSED, and its chain moved on.
    pub(super) async fn finish(
        &mut self,
        mut trade: Trade,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Trade {
        self.open.remove(&trade.symbol);
        trade.status = TradeStatus::Closed;
        trade.close_reason = Some(reason.to_string());
        trade.closed_at = Some(now.timestamp_millis());
        self.save(&trade).await;
        self.info(&format!(
            "{}: {} trade #{} closed ({}), pnl {} USDT",
            trade.symbol,
            side_name(trade.side),
            trade.id,
            reason.replace('_', " "),
            trade.pnl.round_dp(4)
        ))
        .await;
        self.notify_closed(&trade, reason);
        if let Some(chain_id) = trade.chain_id {
            // Boxed: a chain's next step opens a trade, whose failure may finish it again.
            Box::pin(self.after_chain_trade(chain_id, &trade, reason, now)).await;
        }
        self.publish_account().await;
        trade
    }

    async fn after_chain_trade(
        &mut self,
        chain_id: i64,
        trade: &Trade,
        reason: &str,
        now: DateTime<Utc>,
    ) {
        let Ok(chains) = self.deps.store.open_chains(self.user_id).await else {
            return;
        };
        let Some(mut chain) = chains.into_iter().find(|c| c.id == chain_id) else {
            return;
        };
        let step = trade.chain_step.unwrap_or(chain.step);
        // A trade the trader closed by hand ends its chain: they stepped in.
        let outcome = if reason == "manual" {
            ChainOutcome::Closed {
                won: trade.pnl > Decimal::ZERO,
            }
        } else {
            after_close(&self.settings, step, trade.pnl)
        };
        match outcome {
            ChainOutcome::Closed { won } => {
                self.end_chain(&mut chain, won, now).await;
                self.info(&format!(
                    "{}: martingale chain #{} {} after {step} trade(s)",
                    chain.symbol,
                    chain.id,
                    if won { "won" } else { "ended in a loss" }
                ))
                .await;
            }
            ChainOutcome::NextStep { .. } => {
                chain.step = step;
                self.next_chain_step(chain, now).await;
            }
        }
    }

    /// Closes one open trade at market (the API's close, or a failed stop placement).
    pub async fn close_trade(
        &mut self,
        trade_id: i64,
        now: DateTime<Utc>,
    ) -> Result<Trade, EngineError> {
        let Some(mut trade) = self.open.values().find(|t| t.id == trade_id).cloned() else {
            return Err(EngineError::TradeNotOpen);
        };
        let order = OrderRequest {
            client_order_id: format!("sd-close-{}", trade.id),
            symbol: trade.symbol.clone(),
            side: trade.side.exit_side(),
            qty: trade.open_qty,
            reduce_only: true,
        };
        let fill = self.deps.venue.submit_market_order(order).await?;
        let booked = Booked {
            qty: fill.qty,
            price: fill.price,
            fee: fill.fee,
            realized_pnl: fill.realized_pnl,
        };
        self.book(&mut trade, &booked, now).await;
        trade.open_qty = Decimal::ZERO;
        Ok(self.finish(trade, "manual", now).await)
    }

    /// Closes every open trade; answers how many.
    pub async fn close_all(&mut self, now: DateTime<Utc>) -> Result<usize, EngineError> {
        let ids: Vec<i64> = self.open.values().map(|t| t.id).collect();
        let mut closed = 0;
        for id in ids {
            match self.close_trade(id, now).await {
                Ok(_) => closed += 1,
                Err(e) => {
                    self.error(&format!("Trade #{id} could not be closed: {e}"))
                        .await
                }
            }
        }
        Ok(closed)
    }
}
