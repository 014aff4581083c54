//! Funding: each settlement the venue reports (live, or read back by reconciliation) is
//! added to the trade whose position paid or received it, and booked once by the venue's id
//! of the settlement (docs/funding.md).

use std::collections::HashMap;

use signaldesk_store::Trade;
use signaldesk_venue::FundingPayment;

use super::books::Booked;
use super::TradingWorker;

impl TradingWorker {
    /// Books one settlement on its trade: `funding` and `pnl` take the cash it moved.
    pub(super) async fn on_funding(&mut self, payment: &FundingPayment) -> Booked {
        let found = self
            .deps
            .ledger
            .funding_trade(
                self.user_id,
                self.deps.account_venue,
                &payment.symbol,
                &payment.position_id,
                payment.ts_ms,
            )
            .await;
        let mut trade = match found {
            Ok(Some(stored)) => self.current(stored),
            Ok(None) => {
                self.warning(&format!(
                    "{}: funding of {} USDT settled on a position the bot does not hold",
                    payment.symbol, -payment.fee
                ))
                .await;
                return Booked::Already;
            }
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "{}: funding {} could not be matched to a trade: {e}",
                    payment.symbol, payment.funding_id
                ))
                .await;
                return Booked::Failed;
            }
        };
        apply_funding(&mut trade, payment);
        let booked = match self
            .deps
            .ledger
            .book_funding(&trade, &payment.funding_id, payment.ts_ms)
            .await
        {
            Ok(true) => Booked::New,
            Ok(false) => Booked::Already,
            Err(e) => {
                self.fall_out_of_sync(&format!(
                    "{}: trade #{}'s funding {} could not be stored: {e}",
                    trade.symbol, trade.id, payment.funding_id
                ))
                .await;
                Booked::Failed
            }
        };
        if booked == Booked::New {
            let verb = if payment.fee.is_sign_positive() {
                "paid"
            } else {
                "received"
            };
            self.info(&format!(
                "{}: funding {verb} on trade #{}: {} USDT at rate {}",
                trade.symbol,
                trade.id,
                payment.fee.abs().round_dp(6),
                payment.rate
            ))
            .await;
            if self.holds_trade(&trade) {
                self.open.insert(trade.symbol.clone(), trade);
            }
        }
        booked
    }

    /// Books every settlement of the symbols of `trades` since the first of them opened that
    /// the books do not have yet (each is booked by its id, so what is there stays as it is).
    /// Answers whether every read and write succeeded.
    pub(super) async fn book_missed_funding(&mut self, trades: &[Trade]) -> bool {
        let mut since: HashMap<&str, i64> = HashMap::new();
        for trade in trades {
            if let Some(opened) = trade.opened_at {
                let first = since.entry(trade.symbol.as_str()).or_insert(opened);
                *first = (*first).min(opened);
            }
        }
        let mut complete = true;
        for (symbol, from_ms) in since {
            let payments = match self.deps.venue.funding_since(symbol, from_ms).await {
                Ok(p) => p,
                Err(e) => {
                    self.fall_out_of_sync(&format!(
                        "Reconciliation: the funding of {symbol} could not be read: {e}"
                    ))
                    .await;
                    complete = false;
                    continue;
                }
            };
            for payment in &payments {
                complete &= self.on_funding(payment).await != Booked::Failed;
            }
        }
        complete
    }

    /// The worker's own copy of `stored` when it holds that trade (it may be ahead of the
    /// store by nothing, but it is the one the worker goes on with), else `stored`.
    fn current(&self, stored: Trade) -> Trade {
        match self.open.get(&stored.symbol) {
            Some(held) if held.id == stored.id => held.clone(),
            _ => stored,
        }
    }
}

/// Adds a settlement to a trade: the fee the venue charged is cash out (a negative fee, a
/// receipt, is cash in).
pub fn apply_funding(trade: &mut Trade, payment: &FundingPayment) {
    trade.funding -= payment.fee;
    trade.pnl -= payment.fee;
}
