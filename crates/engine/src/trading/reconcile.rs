//! Reconciliation: before the worker acts, and after any fault, the store is brought in line
//! with the venue, each difference with a log line. Everything is matched by the venue's ids,
//! never by symbol and time: a trade's position is the one its opening order opened (the
//! position id is that order's client order id), its closes are the venue's closes of that
//! position, and each is booked once, by its own id. A position the store does not know is
//! adopted; a trade whose opening order never executed is cancelled.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::{CloseReason, Position, PositionClose, VenueError};

use super::books::{opening_execution_id, Booked, Execution};
use super::exits::reason_name;
use super::TradingWorker;
use crate::notify::AlertKind;
use crate::EngineError;

/// What became of a position's missing stop loss.
enum StopRestore {
    /// It rests on the venue (it was there, or it was put back).
    Resting,
    /// The venue refused it: the position is closed at market.
    Refused,
    /// A fault stopped it: the worker is out of sync and tries again.
    Retry,
}

impl TradingWorker {
    /// Brings the store in line with the venue and rebuilds the open trades from both.
    /// Answers whether every read and write succeeded; a failed one leaves the worker out
    /// of sync, to be tried again.
    pub async fn reconcile(&mut self, now: DateTime<Utc>) -> bool {
        self.no_waiting_chains = false;
        let positions = match self.deps.venue.positions().await {
            Ok(p) => p,
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "Reconciliation: the venue's positions could not be read: {e}"
                ))
                .await;
                return false;
            }
        };
        let Some(trades) = self.active_trades().await else {
            return false;
        };
        self.open.clear();
        // Funding first, then the trades again, so that a trade closed below carries what its
        // position paid.
        let mut complete = self.book_missed_funding(&trades).await;
        let Some(trades) = self.active_trades().await else {
            return false;
        };
        // Symbols whose position a trade holds (kept, or closed here for want of a stop).
        let mut held = HashSet::new();
        for trade in trades {
            let position = positions.iter().find(|p| holds(p, &trade));
            let settled = match position {
                Some(position) if held.insert(trade.symbol.clone()) => {
                    self.keep(trade, position, now).await
                }
                _ => self.settle_gone(trade, now).await,
            };
            complete &= settled;
        }
        for position in &positions {
            if !held.contains(&position.symbol) {
                complete &= self.adopt(position, now).await;
            }
        }
        if complete {
            self.resume_waiting_chains(now).await;
        }
        self.publish_account().await;
        complete
    }

    /// The store's PENDING and OPEN trades; `None` (out of sync) when they cannot be read.
    async fn active_trades(&mut self) -> Option<Vec<Trade>> {
        match self.deps.ledger.active_trades(self.user_id).await {
            Ok(t) => Some(t),
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "Reconciliation: the trades could not be read: {e}"
                ))
                .await;
                None
            }
        }
    }

    /// The venue's closes of the trade's position that the store has not booked yet.
    async fn unbooked_closes(&mut self, trade: &Trade) -> Option<Vec<PositionClose>> {
        let closes = match self
            .deps
            .venue
            .position_closes(&trade.symbol, &trade.client_order_id)
            .await
        {
            Ok(closes) => closes,
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "Reconciliation: the closes of {} trade #{} could not be read: {e}",
                    trade.symbol, trade.id
                ))
                .await;
                return None;
            }
        };
        let booked: HashSet<String> = match self
            .deps
            .ledger
            .booked_executions(self.user_id, trade.id)
            .await
        {
            Ok(ids) => ids.into_iter().collect(),
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "Reconciliation: the executions of trade #{} could not be read: {e}",
                    trade.id
                ))
                .await;
                return None;
            }
        };
        Some(
            closes
                .into_iter()
                .filter(|c| !booked.contains(&c.close_id))
                .collect(),
        )
    }

    /// The trade's position is on the venue: hold it, booking what a crash or an outage
    /// left unrecorded (the opening fill, partial closes, a missing stop).
    async fn keep(&mut self, mut trade: Trade, position: &Position, now: DateTime<Utc>) -> bool {
        let Some(closes) = self.unbooked_closes(&trade).await else {
            return false;
        };
        if trade.status == TradeStatus::Pending {
            let filled: Decimal = position.qty + closes.iter().map(|c| c.qty).sum::<Decimal>();
            if !self
                .book_opening(
                    &mut trade,
                    position.entry_price,
                    filled,
                    position.opened_at_ms,
                )
                .await
            {
                return false;
            }
            self.info(&format!(
                "Reconciliation: {} trade #{} was filled before the restart ({} at {})",
                trade.symbol, trade.id, filled, position.entry_price
            ))
            .await;
        }
        for close in &closes {
            if !self.book_missed_close(&mut trade, close, now).await {
                return false;
            }
        }
        trade.open_qty = position.qty;
        let stops = if position.stops.stop_loss.is_none() {
            self.restore_stops(&mut trade).await
        } else {
            trade.stop_loss = position.stops.stop_loss;
            StopRestore::Resting
        };
        let saved = self.save(&trade).await;
        let trade_id = trade.id;
        self.open.insert(trade.symbol.clone(), trade);
        match stops {
            StopRestore::Resting => saved,
            StopRestore::Retry => false,
            StopRestore::Refused => match self.close_trade(trade_id, now).await {
                Ok(_) => saved,
                Err(e) => {
                    self.fall_out_of_sync(&format!(
                        "Reconciliation: trade #{trade_id} has no stop loss and could not be closed: {e}"
                    ))
                    .await;
                    false
                }
            },
        }
    }

    /// The trade's position is gone from the venue: book its closes that the store has not
    /// seen and finish it with the last close's reason, or cancel it if its opening order
    /// never executed.
    async fn settle_gone(&mut self, mut trade: Trade, now: DateTime<Utc>) -> bool {
        let Some(closes) = self.unbooked_closes(&trade).await else {
            return false;
        };
        if trade.status == TradeStatus::Pending {
            if closes.is_empty() {
                return self.cancel_unfilled(trade).await;
            }
            let filled: Decimal = closes.iter().map(|c| c.qty).sum();
            let entry = closes[0].entry_price;
            let opened_at = trade.created_at;
            if !self
                .book_opening(&mut trade, entry, filled, opened_at)
                .await
            {
                return false;
            }
        }
        let mut reason = "reconciled";
        for close in &closes {
            if !self.book_missed_close(&mut trade, close, now).await {
                return false;
            }
            reason = reason_name(close.reason);
        }
        if trade.status == TradeStatus::Closed {
            // The last close finished it (and logged it).
            return true;
        }
        self.warning(&format!(
            "Reconciliation: {} trade #{} was closed on the venue while the bot was away ({})",
            trade.symbol,
            trade.id,
            reason.replace('_', " ")
        ))
        .await;
        trade.open_qty = Decimal::ZERO;
        self.finish(trade, reason, now).await;
        !self.out_of_sync.active
    }

    /// Books the opening execution of a PENDING trade the venue filled.
    async fn book_opening(
        &mut self,
        trade: &mut Trade,
        entry_price: Decimal,
        qty: Decimal,
        opened_at_ms: i64,
    ) -> bool {
        trade.status = TradeStatus::Open;
        trade.entry_price = Some(entry_price);
        trade.qty = qty;
        trade.open_qty = qty;
        trade.margin = entry_price * qty / Decimal::from(trade.leverage.max(1));
        trade.volume = entry_price * qty;
        trade.opened_at = Some(opened_at_ms);
        let opening = opening_execution_id(trade);
        self.commit_execution(trade, &opening, trade.volume, opened_at_ms)
            .await
            != Booked::Failed
    }

    /// Books one close the venue made while the worker could not (the take-profit step it
    /// belonged to included), leaving `trade` as the store now has it.
    async fn book_missed_close(
        &mut self,
        trade: &mut Trade,
        close: &PositionClose,
        now: DateTime<Utc>,
    ) -> bool {
        if let Some(step) = take_profit_step(trade, close) {
            trade.tp_step = trade.tp_step.max(step);
        }
        let execution = Execution::of_close(close, now);
        let reason = reason_name(close.reason);
        let finished = close.remaining_qty.is_zero();
        match self
            .settle(trade.clone(), &execution, reason, finished, now)
            .await
        {
            (Booked::New, booked) => {
                *trade = booked;
                true
            }
            (Booked::Failed, _) => false,
            // Booked meanwhile by another path: the store has the trade as it stands.
            (Booked::Already, _) => match self.deps.ledger.trade(self.user_id, trade.id).await {
                Ok(Some(stored)) => {
                    *trade = stored;
                    true
                }
                Ok(None) => false,
                Err(e) => {
                    self.fall_out_of_sync(&format!(
                        "Reconciliation: trade #{} could not be read back: {e}",
                        trade.id
                    ))
                    .await;
                    false
                }
            },
        }
    }

    /// Puts back the stop loss a crash left off the position. A venue refusing it (the price
    /// already went through it while the bot was away) leaves the position to be closed at
    /// market, as the stop would have; a fault (network, database, lease) leaves the worker
    /// out of sync, to try again.
    async fn restore_stops(&mut self, trade: &mut Trade) -> StopRestore {
        match self.place_stops(trade, trade.stop_loss).await {
            Ok(stop_loss) => {
                trade.stop_loss = Some(stop_loss);
                self.warning(&format!(
                    "Reconciliation: {} had no stop loss on the venue: set at {stop_loss}",
                    trade.symbol
                ))
                .await;
                // Found without protection: said on the channels, and over.
                self.deps.alerts.raise(
                    self.user_id,
                    AlertKind::Unprotected,
                    format!(
                        "{} trade #{} had no stop loss on the exchange when the bot reconciled; the bot put it back at {stop_loss}.",
                        trade.symbol, trade.id
                    ),
                );
                self.deps.alerts.clear(self.user_id, AlertKind::Unprotected);
                StopRestore::Resting
            }
            Err(EngineError::Venue(e)) if refuses_stop(&e) => {
                self.error(&format!(
                    "Reconciliation: the stop loss of {} was refused ({e}): closing the position",
                    trade.symbol
                ))
                .await;
                // Cleared by the next protection check, once the position is closed.
                self.deps.alerts.raise(
                    self.user_id,
                    AlertKind::Unprotected,
                    format!(
                        "{} trade #{} had no stop loss on the exchange when the bot reconciled and the exchange refused it ({e}); the bot closes the position at market.",
                        trade.symbol, trade.id
                    ),
                );
                StopRestore::Refused
            }
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "Reconciliation: the stop loss of {} could not be set: {e}",
                    trade.symbol
                ))
                .await;
                StopRestore::Retry
            }
        }
    }

    async fn cancel_unfilled(&mut self, mut trade: Trade) -> bool {
        trade.status = TradeStatus::Cancelled;
        trade.close_reason = Some("not_filled".into());
        if !self.save(&trade).await {
            return false;
        }
        self.warning(&format!(
            "Reconciliation: the opening order of {} trade #{} never filled: cancelled",
            trade.symbol, trade.id
        ))
        .await;
        if let Some(chain_id) = trade.chain_id {
            if trade.chain_step == Some(1) {
                let _ = self.deps.ledger.delete_chain(self.user_id, chain_id).await;
            }
        }
        true
    }

    /// A position the store does not know (opened by hand, or before a lost write): the
    /// bot takes it over and manages it like its own. Its position id becomes the trade's
    /// opening order id, so its closes are found like any other trade's.
    async fn adopt(&mut self, position: &Position, now: DateTime<Utc>) -> bool {
        let now_ms = now.timestamp_millis();
        let client_order_id = if position.position_id.is_empty() {
            format!("sd-adopt-{}-{now_ms}", self.user_id)
        } else {
            position.position_id.clone()
        };
        let trade = Trade {
            id: 0,
            user_id: self.user_id,
            symbol: position.symbol.clone(),
            side: position.side,
            status: TradeStatus::Pending,
            client_order_id,
            leverage: position.leverage,
            margin: position.margin,
            qty: position.qty,
            open_qty: Decimal::ZERO,
            entry_price: None,
            exit_price: None,
            closed_qty: Decimal::ZERO,
            exit_value: Decimal::ZERO,
            pnl: Decimal::ZERO,
            fees: Decimal::ZERO,
            funding: Decimal::ZERO,
            volume: Decimal::ZERO,
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
            venue: Some(self.deps.account_venue),
        };
        let trade = match self.deps.ledger.insert_trade(&trade).await {
            Ok(trade) => trade,
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "Reconciliation: the {} position could not be adopted: {e}",
                    position.symbol
                ))
                .await;
                return false;
            }
        };
        self.warning(&format!(
            "Reconciliation: adopted a {} {} position of {} at {} found on the venue",
            trade.symbol,
            super::entries::side_name(trade.side),
            position.qty,
            position.entry_price
        ))
        .await;
        // Booked like a trade filled while away: the opening, then any partial closes.
        self.keep(trade, position, now).await
    }
}

/// Whether `position` is the one `trade` opened: by position id where the venue tells it,
/// else (a venue that cannot) the one position the symbol can hold.
fn holds(position: &Position, trade: &Trade) -> bool {
    position.symbol == trade.symbol
        && (position.position_id.is_empty() || position.position_id == trade.client_order_id)
}

/// The take-profit step a close was, if it was one of this trade's take-profit orders
/// (`sd-tp-{trade}-{step}`).
fn take_profit_step(trade: &Trade, close: &PositionClose) -> Option<u32> {
    if close.reason != CloseReason::Manual {
        return None;
    }
    let prefix = format!("sd-tp-{}-", trade.id);
    close
        .client_order_id
        .as_deref()?
        .strip_prefix(&prefix)?
        .parse()
        .ok()
}

/// Whether the venue refused the stop itself (a price already gone through, a level beyond
/// liquidation): sending it again unchanged cannot succeed.
fn refuses_stop(error: &VenueError) -> bool {
    !error.is_retryable() && !matches!(error, VenueError::NotOwner | VenueError::NoPosition(_))
}
