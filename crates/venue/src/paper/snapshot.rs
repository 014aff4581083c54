//! The paper account's whole state as plain serializable data. Restoring these snapshots
//! loses nothing: balances, positions, stops, trailing progress, processed client order ids,
//! recent closes and funding settlements.

use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, VecDeque};

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_core::market::PositionSide;

use crate::venue::{Fill, FundingPayment, PositionClose};

/// Identifies a user's paper account (the store's user id).
pub type UserId = i64;

/// Current snapshot format.
pub const SNAPSHOT_VERSION: u32 = 1;

/// One user's paper account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountSnapshot {
    pub version: u32,
    /// Deposits plus realized pnl minus fees, in USDT.
    pub wallet_balance: Decimal,
    /// Leverage chosen per symbol (symbols never set use the exchange default).
    pub leverage: BTreeMap<String, u32>,
    /// Open positions by symbol.
    pub positions: BTreeMap<String, PositionState>,
    /// The most recent executed orders, oldest first: the memory that makes a retried
    /// client order id return its first result.
    pub orders: VecDeque<Fill>,
    /// Where each of `orders` is, by client order id (derived from `orders`, not saved).
    #[serde(skip)]
    pub(crate) order_index: OrderIndex,
    /// The most recent closes, oldest first.
    pub closes: VecDeque<PositionClose>,
    /// The most recent funding settlements, oldest first.
    #[serde(default)]
    pub fundings: VecDeque<FundingPayment>,
    /// Sequence of the last order id handed out.
    pub order_seq: u64,
    pub updated_at_ms: i64,
}

impl AccountSnapshot {
    /// A fresh account holding `balance` USDT.
    pub fn new(balance: Decimal, now_ms: i64) -> Self {
        Self {
            version: SNAPSHOT_VERSION,
            wallet_balance: balance,
            leverage: BTreeMap::new(),
            positions: BTreeMap::new(),
            orders: VecDeque::new(),
            order_index: OrderIndex::default(),
            closes: VecDeque::new(),
            fundings: VecDeque::new(),
            order_seq: 0,
            updated_at_ms: now_ms,
        }
    }
}

/// The remembered orders by client order id, so an order is checked against the thousands
/// remembered without comparing its id with each (in the busy backtest of issue 32 that
/// scan was an eighth of the trading thread's time). Kept by [`AccountSnapshot::remember_order`] and
/// [`AccountSnapshot::forget_oldest_order`]; built from `orders` at its first use after a
/// snapshot is restored. Derived data: it never makes two snapshots differ.
#[derive(Debug, Clone, Default)]
pub(crate) struct OrderIndex {
    built: bool,
    /// How many orders were forgotten from the front since the index was built.
    forgotten: u64,
    /// Each id's order, counted from the first order the index saw (the oldest kept one
    /// when the same id is remembered twice, as a scan from the front found).
    at: FxHashMap<String, u64>,
}

impl PartialEq for OrderIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for OrderIndex {}

impl AccountSnapshot {
    fn order_index(&mut self) -> &mut OrderIndex {
        if !self.order_index.built {
            let mut at = FxHashMap::with_capacity_and_hasher(self.orders.len(), Default::default());
            for (n, fill) in self.orders.iter().enumerate() {
                at.entry(fill.client_order_id.clone()).or_insert(n as u64);
            }
            self.order_index = OrderIndex {
                built: true,
                forgotten: 0,
                at,
            };
        }
        &mut self.order_index
    }

    /// The remembered order with this client order id.
    pub(crate) fn remembered_order(&mut self, client_order_id: &str) -> Option<&Fill> {
        let index = self.order_index();
        let n = *index.at.get(client_order_id)?;
        let position = usize::try_from(n - index.forgotten).ok()?;
        self.orders.get(position)
    }

    /// Remembers an executed order, the newest.
    pub(crate) fn remember_order(&mut self, fill: Fill) {
        let n = self.order_index().forgotten + self.orders.len() as u64;
        self.order_index
            .at
            .entry(fill.client_order_id.clone())
            .or_insert(n);
        self.orders.push_back(fill);
    }

    /// Forgets the oldest remembered order.
    pub(crate) fn forget_oldest_order(&mut self) {
        let n = self.order_index().forgotten;
        let Some(fill) = self.orders.pop_front() else {
            return;
        };
        let index = &mut self.order_index;
        index.forgotten += 1;
        if index.at.get(&fill.client_order_id) == Some(&n) {
            index.at.remove(&fill.client_order_id);
        }
    }
}

/// An open position with everything needed to manage it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionState {
    /// The client order id of the order that opened it ([`crate::Position::position_id`]).
    #[serde(default)]
    pub position_id: String,
    pub symbol: String,
    pub side: PositionSide,
    pub qty: Decimal,
    pub entry_price: Decimal,
    pub leverage: u32,
    /// Isolated margin held, in USDT.
    pub margin: Decimal,
    /// Opening fees not yet attributed to a close (they enter the realized pnl of the
    /// closes pro rata).
    pub open_fee: Decimal,
    pub stop_loss: Option<Decimal>,
    pub take_profit: Option<Decimal>,
    pub trailing: Option<TrailingState>,
    pub opened_at_ms: i64,
    pub updated_at_ms: i64,
    /// The last funding settlement time this position has been settled for (0: none yet);
    /// the next one it pays is the first after both this and its opening.
    #[serde(default)]
    pub funded_to_ms: i64,
}

/// A trailing stop and its progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrailingState {
    pub distance: Decimal,
    pub activation_price: Option<Decimal>,
    /// Best price seen since activation; `None` until activated.
    pub best_price: Option<Decimal>,
    /// Current stop level; `None` until activated.
    pub stop_price: Option<Decimal>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use signaldesk_core::market::Side;

    fn fill(n: usize) -> Fill {
        Fill {
            order_id: format!("o{n}"),
            client_order_id: format!("c{n}"),
            symbol: "BTCUSDT".into(),
            side: Side::Buy,
            qty: Decimal::ONE,
            price: Decimal::ONE,
            fee: Decimal::ZERO,
            realized_pnl: Decimal::ZERO,
            reduce_only: false,
            ts_ms: n as i64,
        }
    }

    /// What a scan of the remembered orders from the front finds.
    fn scanned(account: &AccountSnapshot, id: &str) -> Option<Fill> {
        account
            .orders
            .iter()
            .find(|f| f.client_order_id == id)
            .cloned()
    }

    #[test]
    fn the_order_index_finds_what_a_scan_finds_after_forgetting_and_after_a_restore() {
        let mut account = AccountSnapshot::new(Decimal::ONE_HUNDRED, 0);
        for n in 0..50 {
            account.remember_order(fill(n));
            if account.orders.len() > 20 {
                account.forget_oldest_order();
            }
        }
        let restored: AccountSnapshot =
            serde_json::from_str(&serde_json::to_string(&account).unwrap()).unwrap();
        assert_eq!(restored, account);
        for mut each in [account, restored] {
            for n in 0..55 {
                let id = format!("c{n}");
                let expected = scanned(&each, &id);
                assert_eq!(expected.is_some(), (30..50).contains(&n), "{id}");
                assert_eq!(each.remembered_order(&id).cloned(), expected, "{id}");
            }
            // Still kept after more are remembered and forgotten.
            each.remember_order(fill(60));
            each.forget_oldest_order();
            assert!(each.remembered_order("c30").is_none());
            assert_eq!(each.remembered_order("c31").cloned(), Some(fill(31)));
            assert_eq!(each.remembered_order("c60").cloned(), Some(fill(60)));
        }
    }
}
