//! Exits: the take-profit ladder the worker runs on price ticks, the stops the venue
//! executes, and manual closes; each close is booked on its trade, and a finished trade
//! moves its martingale chain on.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_core::market::{Instrument, PositionSide};
use signaldesk_core::martingale::{after_close, ChainOutcome};
use signaldesk_core::trading::{reached_in_favour, take_profit_price, take_profit_qty};
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::{CloseReason, Fill, OrderRequest, PositionClose, QuietBand, VenueEvent};

use super::books::{apply_close, mark_closed, Booked, Execution};
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

impl TradingWorker {
    /// A price: runs the take-profit ladder of the trade open on `symbol`.
    pub async fn on_tick(&mut self, symbol: &str, price: Decimal, now: DateTime<Utc>) {
        // Without allocating the key again: a backtest calls this for millions of prices.
        match self.prices.get_mut(symbol) {
            Some(slot) => *slot = price,
            None => {
                self.prices.insert(symbol.to_string(), price);
            }
        }
        if self.ladder_trade(symbol).is_none() {
            return;
        }
        let Ok(instrument) = self.instrument(symbol).await else {
            return;
        };
        let Some((side, level)) = self.next_take_profit(symbol, &instrument) else {
            return;
        };
        if reached_in_favour(side, price, level) {
            self.take_profit(symbol.to_string(), level, now).await;
        }
    }

    /// The prices of `symbol` at which [`on_tick`](Self::on_tick) does nothing: short of the
    /// next take profit of the trade open on it (every price while its instrument is not yet
    /// known here, since the first tick reads it).
    pub fn quiet_band(&self, symbol: &str) -> QuietBand {
        if self.ladder_trade(symbol).is_none() {
            return QuietBand::EVERYWHERE;
        }
        let Some(instrument) = self.instruments.get(symbol) else {
            return QuietBand::NOWHERE;
        };
        match self.next_take_profit(symbol, instrument) {
            None => QuietBand::EVERYWHERE,
            Some((PositionSide::Long, level)) => QuietBand::EVERYWHERE.acting_at_or_above(level),
            Some((PositionSide::Short, level)) => QuietBand::EVERYWHERE.acting_at_or_below(level),
        }
    }

    /// The trade on `symbol` whose take-profit ladder prices move: open and filled, while
    /// the books are in line with the venue (no new decisions until they are).
    fn ladder_trade(&self, symbol: &str) -> Option<&Trade> {
        if self.out_of_sync.active {
            return None;
        }
        self.open
            .get(symbol)
            .filter(|t| t.status == TradeStatus::Open && t.entry_price.is_some())
    }

    /// The side and the next take-profit level of the ladder trade on `symbol`.
    fn next_take_profit(
        &self,
        symbol: &str,
        instrument: &Instrument,
    ) -> Option<(PositionSide, Decimal)> {
        let trade = self.ladder_trade(symbol)?;
        let entry = trade.entry_price?;
        let level = take_profit_price(trade.side, entry, &self.settings, trade.tp_step, instrument);
        Some((trade.side, level))
    }

    async fn take_profit(&mut self, symbol: String, level: Decimal, now: DateTime<Utc>) {
        let Some(trade) = self.open.get(&symbol).cloned() else {
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
        self.info(&format!(
            "{symbol}: take profit {step} reached {level}: closed {} of {} at {}, pnl {}",
            fill.qty,
            trade.open_qty,
            fill.price,
            fill.realized_pnl.round_dp(4)
        ))
        .await;
        let mut after = trade;
        after.tp_step = step;
        let (booked, _) = self
            .settle(after, &execution_of(&fill, now), "take_profit", false, now)
            .await;
        if booked != Booked::New || step != 1 {
            return;
        }
        if let Some(mut open) = self.open.get(&symbol).cloned() {
            self.move_stop_to_break_even(&mut open).await;
            self.open.insert(symbol, open.clone());
            self.save(&open).await;
        }
    }

    /// Books `execution` on `trade` (whose other fields may already carry what the
    /// execution changed) and, once written, holds it open or finishes it with `reason`.
    /// `finished` says the venue has nothing left of the position whatever the quantities.
    /// Answers how the store took it, and the trade as booked (as the store holds it when
    /// the answer is [`Booked::New`]).
    pub(super) async fn settle(
        &mut self,
        mut trade: Trade,
        execution: &Execution,
        reason: &str,
        finished: bool,
        now: DateTime<Utc>,
    ) -> (Booked, Trade) {
        apply_close(&mut trade, execution, reason, now);
        if finished && trade.status != TradeStatus::Closed {
            trade.open_qty = Decimal::ZERO;
            mark_closed(&mut trade, reason, now);
        }
        let notional = execution.price * execution.qty;
        let booked = self
            .commit_execution(&trade, &execution.venue_id, notional, execution.at_ms)
            .await;
        if booked == Booked::New {
            if trade.status == TradeStatus::Closed {
                self.after_finished(trade.clone(), reason, now).await;
            } else {
                if self.holds_trade(&trade) {
                    self.open.insert(trade.symbol.clone(), trade.clone());
                }
                self.publish_account().await;
            }
        }
        (booked, trade)
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
    /// While the books are out of sync the event is parked for after the reconciliation.
    pub async fn on_venue_event(&mut self, event: VenueEvent, now: DateTime<Utc>) {
        match event {
            VenueEvent::Wallet(wallet) => {
                self.deps
                    .bus
                    .publish(self.user_id, crate::events::UserEvent::Balance(wallet));
            }
            event if self.out_of_sync.active => self.out_of_sync.park(event),
            VenueEvent::Funding(payment) => {
                let booked = self.on_funding(&payment).await;
                if booked == Booked::Failed {
                    self.out_of_sync.park(VenueEvent::Funding(payment));
                }
            }
            VenueEvent::PositionClosed(close) if close.reason != CloseReason::Manual => {
                let event = VenueEvent::PositionClosed(close.clone());
                if self.on_venue_close(close, now).await == Booked::Failed {
                    self.out_of_sync.park(event);
                }
            }
            _ => {}
        }
    }

    async fn on_venue_close(&mut self, close: PositionClose, now: DateTime<Utc>) -> Booked {
        let reason = reason_name(close.reason);
        let held = self.open.get(&close.symbol).cloned().filter(|t| {
            // A close names its position where the venue can tell (paper always does).
            close.position_id.is_empty() || close.position_id == t.client_order_id
        });
        let Some(trade) = held else {
            self.warning(&format!(
                "{}: the venue closed {} ({}) of a position the bot does not hold",
                close.symbol, close.qty, reason
            ))
            .await;
            return Booked::Already;
        };
        self.info(&format!(
            "{}: {} at {}: closed {}, pnl {}",
            trade.symbol,
            reason.replace('_', " "),
            close.exit_price,
            close.qty,
            close.realized_pnl.round_dp(4)
        ))
        .await;
        let execution = Execution::of_close(&close, now);
        let finished = close.remaining_qty.is_zero();
        self.settle(trade, &execution, reason, finished, now)
            .await
            .0
    }

    /// Whether `trade` is the one held open on its symbol.
    pub(super) fn holds_trade(&self, trade: &Trade) -> bool {
        self.open
            .get(&trade.symbol)
            .is_some_and(|held| held.id == trade.id)
    }

    /// A trade whose position is gone with no execution left to book: stored as CLOSED with
    /// `reason`, then finished like any other.
    pub(super) async fn finish(&mut self, mut trade: Trade, reason: &str, now: DateTime<Utc>) {
        mark_closed(&mut trade, reason, now);
        if self.save(&trade).await {
            self.after_finished(trade, reason, now).await;
        }
    }

    /// What follows a trade stored as CLOSED: the log line, Telegram, its martingale chain,
    /// the live account.
    async fn after_finished(&mut self, trade: Trade, reason: &str, now: DateTime<Utc>) {
        if self.holds_trade(&trade) {
            self.open.remove(&trade.symbol);
        }
        if trade.chain_id.is_some() {
            // Its chain has no trade open until its next step opens, if it can.
            self.no_waiting_chains = false;
        }
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
        if self.breakers_on() {
            // A losing close may trip a breaker: said now, not at the next signal.
            self.circuit_breaker(now).await;
        }
        if let Some(chain_id) = trade.chain_id {
            // Boxed: a chain's next step opens a trade, whose failure may finish it again.
            Box::pin(self.after_chain_trade(chain_id, &trade, reason, now)).await;
        }
        self.publish_account().await;
    }

    async fn after_chain_trade(
        &mut self,
        chain_id: i64,
        trade: &Trade,
        reason: &str,
        now: DateTime<Utc>,
    ) {
        let Ok(chains) = self.deps.ledger.open_chains(self.user_id).await else {
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
        let Some(trade) = self.open.values().find(|t| t.id == trade_id).cloned() else {
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
        let execution = execution_of(&fill, now);
        match self.settle(trade, &execution, "manual", true, now).await {
            (Booked::New, closed) => Ok(closed),
            (Booked::Failed, _) => Err(EngineError::NotBooked),
            (Booked::Already, _) => self
                .deps
                .ledger
                .trade(self.user_id, trade_id)
                .await?
                .ok_or(EngineError::TradeNotOpen),
        }
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

/// A fill of one of the worker's own reduce-only orders as an execution to book.
fn execution_of(fill: &Fill, now: DateTime<Utc>) -> Execution {
    Execution {
        venue_id: fill.order_id.clone(),
        qty: fill.qty,
        price: fill.price,
        fee: fill.fee,
        realized_pnl: fill.realized_pnl,
        at_ms: fill.ts_ms.max(now.timestamp_millis()),
    }
}
