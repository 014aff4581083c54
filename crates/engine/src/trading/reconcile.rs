//! Start-up reconciliation: before the worker acts, the store is brought in line with the
//! venue, each difference with a log line. A position the store does not know is adopted;
//! a trade whose position is gone is booked from the venue's closed pnl; a trade whose
//! opening order's fate is unknown is settled by whether its position exists.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::{Position, PositionClose};

use super::exits::reason_name;
use super::TradingWorker;

impl TradingWorker {
    pub async fn reconcile(&mut self, now: DateTime<Utc>) {
        let positions = match self.deps.venue.positions().await {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!(
                    "Reconciliation: the venue's positions could not be read: {e}"
                ))
                .await;
                return;
            }
        };
        let trades = match self.deps.store.active_trades(self.user_id).await {
            Ok(t) => t,
            Err(e) => {
                self.error(&format!(
                    "Reconciliation: the trades could not be read: {e}"
                ))
                .await;
                return;
            }
        };
        self.open.clear();
        for trade in trades {
            let position = positions.iter().find(|p| p.symbol == trade.symbol);
            let held = self.open.contains_key(&trade.symbol);
            match (trade.status, position) {
                (_, Some(position)) if !held => self.keep(trade, position).await,
                (TradeStatus::Pending, _) => self.cancel_unfilled(trade).await,
                _ => self.book_closed_while_away(trade, now).await,
            }
        }
        for position in &positions {
            if !self.open.contains_key(&position.symbol) {
                self.adopt(position, now).await;
            }
        }
        self.resume_waiting_chains(now).await;
        self.publish_account().await;
    }

    /// The trade's position is on the venue: hold it, filling in what a crash may have left
    /// unrecorded (a PENDING fill, a missing stop).
    async fn keep(&mut self, mut trade: Trade, position: &Position) {
        if trade.status == TradeStatus::Pending {
            trade.status = TradeStatus::Open;
            trade.entry_price = Some(position.entry_price);
            trade.qty = position.qty;
            trade.margin = position.margin;
            trade.volume = position.entry_price * position.qty;
            trade.opened_at = Some(position.opened_at_ms);
            self.record_fill(&trade, trade.volume, position.opened_at_ms)
                .await;
            self.info(&format!(
                "Reconciliation: {} trade #{} was filled before the restart ({} at {})",
                trade.symbol, trade.id, position.qty, position.entry_price
            ))
            .await;
        }
        trade.open_qty = position.qty;
        if position.stops.stop_loss.is_none() {
            self.restore_stops(&mut trade).await;
        } else {
            trade.stop_loss = position.stops.stop_loss;
        }
        self.save(&trade).await;
        self.open.insert(trade.symbol.clone(), trade);
    }

    async fn restore_stops(&mut self, trade: &mut Trade) {
        match self.place_stops(trade, trade.stop_loss).await {
            Ok(stop_loss) => {
                trade.stop_loss = Some(stop_loss);
                self.warning(&format!(
                    "Reconciliation: {} had no stop loss on the venue: set at {stop_loss}",
                    trade.symbol
                ))
                .await;
            }
            Err(e) => {
                self.error(&format!(
                    "Reconciliation: the stop loss of {} could not be set: {e}",
                    trade.symbol
                ))
                .await;
            }
        }
    }

    async fn cancel_unfilled(&mut self, mut trade: Trade) {
        trade.status = TradeStatus::Cancelled;
        trade.close_reason = Some("not_filled".into());
        self.save(&trade).await;
        self.warning(&format!(
            "Reconciliation: the opening order of {} trade #{} never filled: cancelled",
            trade.symbol, trade.id
        ))
        .await;
        if let Some(chain_id) = trade.chain_id {
            if trade.chain_step == Some(1) {
                let _ = self.deps.store.delete_chain(self.user_id, chain_id).await;
            }
        }
    }

    /// The position is gone: book the venue's closes since the trade opened that the store
    /// has not seen, then finish the trade with the last close's reason.
    async fn book_closed_while_away(&mut self, mut trade: Trade, now: DateTime<Utc>) {
        let since = trade.opened_at.unwrap_or(trade.created_at);
        let closes: Vec<PositionClose> = match self.deps.venue.closed_pnl(since).await {
            Ok(all) => all
                .into_iter()
                .filter(|c| c.symbol == trade.symbol)
                .collect(),
            Err(e) => {
                self.error(&format!(
                    "Reconciliation: the closed pnl of {} could not be read: {e}",
                    trade.symbol
                ))
                .await;
                Vec::new()
            }
        };
        // Skip the closes already booked (their quantity adds up to `closed_qty`).
        let mut already = trade.closed_qty;
        let mut reason = "reconciled";
        for close in &closes {
            if already >= close.qty {
                already -= close.qty;
                continue;
            }
            let qty = close.qty - already;
            already = Decimal::ZERO;
            let share = qty / close.qty;
            trade.closed_qty += qty;
            trade.exit_value += close.exit_price * qty;
            trade.pnl += close.realized_pnl * share;
            trade.fees += close.fee * share;
            trade.volume += close.exit_price * qty;
            self.record_fill(&trade, close.exit_price * qty, close.ts_ms)
                .await;
            reason = reason_name(close.reason);
        }
        if !trade.closed_qty.is_zero() {
            trade.exit_price = Some(trade.exit_value / trade.closed_qty);
        }
        trade.open_qty = Decimal::ZERO;
        self.warning(&format!(
            "Reconciliation: {} trade #{} was closed on the venue while the bot was away ({})",
            trade.symbol,
            trade.id,
            reason.replace('_', " ")
        ))
        .await;
        self.finish(trade, reason, now).await;
    }

    /// A position the store does not know (opened by hand, or before a lost write): the
    /// bot takes it over and manages it like its own.
    async fn adopt(&mut self, position: &Position, now: DateTime<Utc>) {
        let now_ms = now.timestamp_millis();
        let trade = Trade {
            id: 0,
            user_id: self.user_id,
            symbol: position.symbol.clone(),
            side: position.side,
            status: TradeStatus::Open,
            client_order_id: format!("sd-adopt-{}-{now_ms}", self.user_id),
            leverage: position.leverage,
            margin: position.margin,
            qty: position.qty,
            open_qty: position.qty,
            entry_price: Some(position.entry_price),
            exit_price: None,
            closed_qty: Decimal::ZERO,
            exit_value: Decimal::ZERO,
            pnl: Decimal::ZERO,
            fees: Decimal::ZERO,
            volume: position.entry_price * position.qty,
            stop_loss: position.stops.stop_loss,
            tp_step: 0,
            close_reason: None,
            chain_id: None,
            chain_step: None,
            signal_id: None,
            signal_at: None,
            signal_price: None,
            created_at: now_ms,
            opened_at: Some(position.opened_at_ms),
            closed_at: None,
        };
        match self.deps.store.insert_trade(&trade).await {
            Ok(mut trade) => {
                self.record_fill(&trade, trade.volume, position.opened_at_ms)
                    .await;
                self.warning(&format!(
                    "Reconciliation: adopted a {} {} position of {} at {} found on the venue",
                    trade.symbol,
                    super::entries::side_name(trade.side),
                    trade.qty,
                    position.entry_price
                ))
                .await;
                if position.stops.stop_loss.is_none() {
                    self.restore_stops(&mut trade).await;
                    self.save(&trade).await;
                }
                self.open.insert(trade.symbol.clone(), trade);
            }
            Err(e) => {
                self.error(&format!(
                    "Reconciliation: the {} position could not be adopted: {e}",
                    position.symbol
                ))
                .await;
            }
        }
    }
}
