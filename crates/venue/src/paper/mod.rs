//! The paper exchange: a Bybit-like USDT-perpetual exchange in memory, fed by any
//! [`MarketData`](crate::market::MarketData) and shared by all users, each with a wallet of
//! their own. The rules (fills, fees, margin, liquidation, stops) are written out in
//! `docs/paper-exchange.md` and in [`account`].

pub mod account;
mod exchange;
mod journal;
mod snapshot;

use std::collections::BTreeMap;

use rust_decimal::Decimal;

pub use exchange::{PaperAccount, PaperExchange};
pub use journal::{Batch, NoJournal, PaperJournal, PendingSnapshots};
pub use snapshot::{AccountSnapshot, PositionState, TrailingState, UserId, SNAPSHOT_VERSION};

/// The paper exchange's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperConfig {
    /// USDT in a new account's wallet.
    pub starting_balance: Decimal,
    /// Taker fee as a fraction of the notional (0.00055 = 0.055%).
    pub taker_fee_rate: Decimal,
    /// Market orders fill this many basis points worse than the last price.
    pub slippage_bps: Decimal,
    /// Maintenance margin as a fraction of the position value at entry (0.005 = 0.5%).
    pub maintenance_margin_rate: Decimal,
    /// The maintenance margin rate of particular symbols instead (a backtest on Bybit's
    /// instruments: each one's first risk tier).
    pub maintenance_margin_rates: BTreeMap<String, Decimal>,
    /// Leverage of a symbol the user never set.
    pub default_leverage: u32,
    /// How many recent orders (for client order id idempotency) and closes an account keeps.
    pub memory: usize,
}

impl Default for PaperConfig {
    fn default() -> Self {
        Self {
            starting_balance: Decimal::from(10_000),
            taker_fee_rate: Decimal::new(55, 5),
            slippage_bps: Decimal::from(2),
            maintenance_margin_rate: Decimal::new(5, 3),
            maintenance_margin_rates: BTreeMap::new(),
            default_leverage: 10,
            memory: 10_000,
        }
    }
}

impl PaperConfig {
    /// The maintenance margin rate of `symbol`'s positions: its own, else the common one.
    pub fn maintenance_margin_rate_of(&self, symbol: &str) -> Decimal {
        self.maintenance_margin_rates
            .get(symbol)
            .copied()
            .unwrap_or(self.maintenance_margin_rate)
    }
}
