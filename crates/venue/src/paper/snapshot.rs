//! The paper account's whole state as plain serializable data. Restoring these snapshots
//! loses nothing: balances, positions, stops, trailing progress, processed client order ids,
//! recent closes and funding settlements.

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
            closes: VecDeque::new(),
            fundings: VecDeque::new(),
            order_seq: 0,
            updated_at_ms: now_ms,
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
