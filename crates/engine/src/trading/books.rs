//! The books: how an execution reaches the store. Every execution carries the venue's id and
//! is written in one transaction with the trade's new state, so booking it again is a no-op;
//! it is written only once the venue's own record of it is durable, so the store is never
//! ahead of the venue. A write that fails puts the worker out of sync: the event is parked
//! (bounded), entries stop, and the worker reconciles with the venue until the store takes
//! the writes again (docs/trading.md, "The books").

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::{PositionClose, VenueEvent};

use super::TradingWorker;

/// Venue events kept while the store cannot be written; past this the oldest are dropped,
/// which loses nothing: the reconciliation that follows reads every close from the venue.
pub const PARKED_EVENTS_MAX: usize = 10_000;

/// The venue id of a trade's opening execution: its opening order's client order id, known
/// before and after a restart alike.
pub fn opening_execution_id(trade: &Trade) -> String {
    format!("open:{}", trade.client_order_id)
}

/// One close of (part of) a trade, from a fill of ours or an event of the venue.
#[derive(Debug, Clone)]
pub struct Execution {
    /// The venue's id of the order that closed.
    pub venue_id: String,
    pub qty: Decimal,
    pub price: Decimal,
    pub fee: Decimal,
    pub realized_pnl: Decimal,
    pub at_ms: i64,
}

impl Execution {
    /// A close the venue reports, booked at its own time (at `now` when it has none).
    pub fn of_close(close: &PositionClose, now: DateTime<Utc>) -> Execution {
        Execution {
            venue_id: close.close_id.clone(),
            qty: close.qty,
            price: close.exit_price,
            fee: close.fee,
            realized_pnl: close.realized_pnl,
            // The venue's time of the close (a stop fills at its tick), as long as it has one.
            at_ms: if close.ts_ms > 0 {
                close.ts_ms
            } else {
                now.timestamp_millis()
            },
        }
    }
}

/// Whether the store took a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Booked {
    /// Written now.
    New,
    /// The same execution was written before: nothing changed.
    Already,
    /// The venue or the store could not make it durable: the worker is out of sync.
    Failed,
}

/// Why the worker is out of sync, shared with the supervisor so the bot's status can say it
/// (issue 33: the Bot Status card's "not trading" line) while the worker runs on.
#[derive(Debug, Clone, Default)]
pub struct SyncReport(Arc<Mutex<Option<String>>>);

impl SyncReport {
    /// The reason the books wait for a reconciliation; `None` while they are in sync.
    pub fn out_of_sync(&self) -> Option<String> {
        self.lock().clone()
    }

    fn set(&self, why: Option<String>) {
        *self.lock() = why;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        // The value is a plain reason: a panic elsewhere cannot leave it half-written.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What the worker keeps while it is out of sync with the store.
#[derive(Debug, Default)]
pub struct OutOfSync {
    /// Set when a write failed, cleared by a complete reconciliation.
    pub active: bool,
    /// Whether the trader was told of this episode (once, not on every retry).
    pub announced: bool,
    /// Venue events that arrived meanwhile, oldest first.
    pub parked: VecDeque<VenueEvent>,
    /// Events dropped past [`PARKED_EVENTS_MAX`] since the last reconciliation.
    pub dropped: usize,
    /// The episode's reason, as the bot's status reads it.
    pub report: SyncReport,
}

impl OutOfSync {
    pub fn park(&mut self, event: VenueEvent) {
        if self.parked.len() >= PARKED_EVENTS_MAX {
            self.parked.pop_front();
            self.dropped += 1;
        }
        self.parked.push_back(event);
    }
}

/// Adds a close to a trade's figures; when nothing is left open the trade is finished with
/// `reason` at `now`.
pub fn apply_close(trade: &mut Trade, close: &Execution, reason: &str, now: DateTime<Utc>) {
    trade.open_qty = (trade.open_qty - close.qty).max(Decimal::ZERO);
    trade.closed_qty += close.qty;
    trade.exit_value += close.price * close.qty;
    trade.pnl += close.realized_pnl;
    trade.fees += close.fee;
    trade.volume += close.price * close.qty;
    if !trade.closed_qty.is_zero() {
        trade.exit_price = Some(trade.exit_value / trade.closed_qty);
    }
    if trade.open_qty.is_zero() {
        mark_closed(trade, reason, now);
    }
}

pub fn mark_closed(trade: &mut Trade, reason: &str, now: DateTime<Utc>) {
    trade.status = TradeStatus::Closed;
    trade.close_reason = Some(reason.to_string());
    trade.closed_at = Some(now.timestamp_millis());
}

impl TradingWorker {
    /// Writes `trade` (its state after the execution) with the execution `venue_id` of
    /// `notional` USDT, once the venue's record is durable.
    pub(super) async fn commit_execution(
        &mut self,
        trade: &Trade,
        venue_id: &str,
        notional: Decimal,
        at_ms: i64,
    ) -> Booked {
        if let Err(e) = self.deps.venue.persisted().await {
            self.fall_out_of_sync(&format!(
                "{}: the venue could not confirm trade #{}'s execution {venue_id}: {e}",
                trade.symbol, trade.id
            ))
            .await;
            return Booked::Failed;
        }
        match self
            .deps
            .ledger
            .book_execution(trade, venue_id, notional, at_ms)
            .await
        {
            Ok(true) => Booked::New,
            Ok(false) => Booked::Already,
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "{}: trade #{}'s execution {venue_id} could not be stored: {e}",
                    trade.symbol, trade.id
                ))
                .await;
                Booked::Failed
            }
        }
    }

    /// Writes the fields of a trade that no execution changed (its stop loss, a
    /// cancellation); a failure puts the worker out of sync.
    pub(super) async fn save(&mut self, trade: &Trade) -> bool {
        match self.deps.ledger.save_trade(trade).await {
            Ok(()) => true,
            Err(e) => {
                self.fall_out_of_sync(&format!("Could not store trade #{}: {e}", trade.id))
                    .await;
                false
            }
        }
    }

    pub(super) async fn fall_out_of_sync(&mut self, why: &str) {
        self.out_of_sync.active = true;
        if self.out_of_sync.report.out_of_sync().is_none() {
            self.out_of_sync.report.set(Some(why.to_string()));
        }
        if !self.out_of_sync.announced {
            self.out_of_sync.announced = true;
            self.error(&format!(
                "{why}. No new entries until the books are reconciled with the venue."
            ))
            .await;
        }
    }

    pub fn is_out_of_sync(&self) -> bool {
        self.out_of_sync.active
    }

    /// Reports every out-of-sync episode of this worker to `report` from now on.
    pub fn report_sync_to(&mut self, report: SyncReport) {
        report.set(self.out_of_sync.report.out_of_sync());
        self.out_of_sync.report = report;
    }

    /// While out of sync: reconcile with the venue; once that is complete, the parked events
    /// are applied (each booking is idempotent, so what the reconciliation already booked is
    /// not booked again) and entries resume.
    pub async fn resync(&mut self, now: DateTime<Utc>) {
        if !self.out_of_sync.active {
            return;
        }
        // A step of the reconciliation that fails sets it again.
        self.out_of_sync.active = false;
        if !self.reconcile(now).await || self.out_of_sync.active {
            self.out_of_sync.active = true;
            return;
        }
        self.out_of_sync.report.set(None);
        let parked = std::mem::take(&mut self.out_of_sync.parked);
        let dropped = std::mem::take(&mut self.out_of_sync.dropped);
        let announced = std::mem::take(&mut self.out_of_sync.announced);
        for event in parked {
            self.on_venue_event(event, now).await;
        }
        if !announced {
            return;
        }
        let mut message =
            "The books are reconciled with the venue again: entries resume".to_string();
        if dropped > 0 {
            message.push_str(&format!(
                " ({dropped} venue events beyond the {PARKED_EVENTS_MAX} kept in memory were read back from the venue)"
            ));
        }
        self.info(&message).await;
    }
}
