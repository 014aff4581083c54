//! The [`Venue`] trait the trading worker is written against, once, and the values it
//! exchanges. The paper exchange implements it; a Bybit V5 private client maps onto it
//! call for call:
//!
//! | Venue call              | Bybit V5 (category=linear)                                   |
//! |-------------------------|--------------------------------------------------------------|
//! | `instrument`            | GET /v5/market/instruments-info                              |
//! | `set_leverage`          | POST /v5/position/set-leverage (buy = sell leverage)         |
//! | `submit_market_order`   | POST /v5/order/create, orderType=Market, orderLinkId = client_order_id, reduceOnly |
//! | `set_stops`             | POST /v5/position/trading-stop, tpslMode=Full (stopLoss, takeProfit, trailingStop, activePrice; "0" cancels) |
//! | `positions`             | GET /v5/position/list (+ /v5/order/history: the opening order gives the open time and id) |
//! | `wallet`                | GET /v5/account/wallet-balance                               |
//! | `position_closes`       | GET /v5/order/history (the opening order) + GET /v5/position/closed-pnl |
//! | `funding_since`         | GET /v5/execution/list, execType=Funding                      |
//! | `subscribe`             | private websocket: order, execution, position, wallet; REST order history and funding executions after each reconnect |
//! | `resting_stops`         | GET /v5/position/list?symbol=… (the position's stopLoss, takeProfit, trailingStop) |
//! | `reconnects`            | bumped after each login of the private websocket (and its REST resync) |

use async_trait::async_trait;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_core::market::{Instrument, PositionSide, Side};
use tokio::sync::broadcast;

use crate::error::VenueError;

/// A market order. `client_order_id` makes it idempotent: submitting the same id again
/// returns the first result and never executes twice. At most 36 characters of
/// `[A-Za-z0-9_-]` (Bybit's orderLinkId rules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRequest {
    pub client_order_id: String,
    pub symbol: String,
    pub side: Side,
    /// Quantity in the base coin, a whole number of the instrument's quantity steps.
    pub qty: Decimal,
    /// Only ever reduces (or closes) the open position; never opens or flips one.
    pub reduce_only: bool,
}

/// An executed market order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fill {
    /// The venue's order id.
    pub order_id: String,
    pub client_order_id: String,
    pub symbol: String,
    pub side: Side,
    pub qty: Decimal,
    /// Average execution price.
    pub price: Decimal,
    /// Trading fee paid on this execution, in USDT.
    pub fee: Decimal,
    /// For a reduce: the closed part's pnl net of its opening and closing fees (as Bybit's
    /// closed pnl); zero for an order that opens or adds.
    pub realized_pnl: Decimal,
    pub reduce_only: bool,
    pub ts_ms: i64,
}

/// A trailing stop: once the price reaches `activation_price` (at once when `None`), the
/// stop follows the best price at `distance` (a price difference, not a percentage) and
/// only ever tightens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trailing {
    pub distance: Decimal,
    pub activation_price: Option<Decimal>,
}

/// The protective orders attached to a whole position. `set_stops` replaces all three:
/// `None` removes that stop.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stops {
    pub stop_loss: Option<Decimal>,
    pub take_profit: Option<Decimal>,
    pub trailing: Option<Trailing>,
}

/// An open position (one-way mode: at most one per symbol).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The venue's identity of this position: the client order id of the order that opened
    /// it from flat. Empty when the venue cannot tell (a Bybit position opened before this
    /// client saw it).
    pub position_id: String,
    pub symbol: String,
    pub side: PositionSide,
    pub qty: Decimal,
    /// Average entry price.
    pub entry_price: Decimal,
    pub leverage: u32,
    /// Isolated margin held by the position, in USDT.
    pub margin: Decimal,
    /// The last price the venue saw for the symbol.
    pub mark_price: Decimal,
    pub unrealized_pnl: Decimal,
    pub liquidation_price: Decimal,
    pub stops: Stops,
    /// The live level of the trailing stop once activated.
    pub trailing_stop_price: Option<Decimal>,
    pub opened_at_ms: i64,
    pub updated_at_ms: i64,
}

/// The USDT wallet, with Bybit's definitions:
/// `equity = margin_balance = wallet_balance + unrealized_pnl`,
/// `available_balance = wallet_balance - position_margin` (isolated margin: an unrealized
/// profit is not available and an unrealized loss is carried by the position's margin).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wallet {
    /// Deposits plus realized pnl minus fees.
    pub wallet_balance: Decimal,
    pub equity: Decimal,
    pub available_balance: Decimal,
    pub margin_balance: Decimal,
    /// Margin held by open positions.
    pub position_margin: Decimal,
    pub unrealized_pnl: Decimal,
}

/// Why (part of) a position was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CloseReason {
    StopLoss,
    TakeProfit,
    Trailing,
    Liquidation,
    /// A reduce-only order sent by the client.
    Manual,
}

/// A full or partial close of a position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionClose {
    /// The position it closed ([`Position::position_id`]); empty when the venue cannot tell.
    pub position_id: String,
    /// The venue's id of this close: the id of the order that closed (the reduce-only
    /// order's [`Fill::order_id`], or the order a stop or liquidation became). Unique per
    /// account: booking a close keeps it, so a close is never booked twice.
    pub close_id: String,
    pub symbol: String,
    pub side: PositionSide,
    pub reason: CloseReason,
    /// Quantity closed by this event.
    pub qty: Decimal,
    pub entry_price: Decimal,
    pub exit_price: Decimal,
    /// Pnl of the closed quantity net of its share of the opening fees and of `fee`.
    pub realized_pnl: Decimal,
    /// Closing fee (for a liquidation: the part of the margin the price loss did not take).
    pub fee: Decimal,
    /// Quantity still open after this close; zero when the position is gone.
    pub remaining_qty: Decimal,
    /// The reduce-only order that caused it, for `Manual` closes.
    pub client_order_id: Option<String>,
    pub ts_ms: i64,
}

/// One funding settlement of an open position (Bybit: an execution with `execType`
/// `Funding`; paper: its own settlement at 00:00, 08:00 and 16:00 UTC of market time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FundingPayment {
    /// The venue's id of this settlement (Bybit's `execId`), unique per account: booking it
    /// keeps it, so a settlement is never booked twice.
    pub funding_id: String,
    /// The position that paid or received it ([`Position::position_id`]); empty when the
    /// venue cannot tell (Bybit names only the symbol: one position per symbol, one-way).
    pub position_id: String,
    pub symbol: String,
    pub side: PositionSide,
    /// The position's size when it settled.
    pub qty: Decimal,
    /// The mark price it settled at.
    pub mark_price: Decimal,
    /// The funding rate (Bybit's `feeRate` of the execution).
    pub rate: Decimal,
    /// What the account paid, as Bybit's `execFee`: positive paid, negative received.
    pub fee: Decimal,
    pub ts_ms: i64,
}

/// What a venue pushes to its subscribers, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum VenueEvent {
    Fill(Fill),
    PositionClosed(PositionClose),
    Funding(FundingPayment),
    Wallet(Wallet),
}

/// One user's account on one exchange. The trading worker uses only this trait, so it runs
/// unchanged on the paper exchange and on Bybit.
#[async_trait]
pub trait Venue: Send + Sync {
    /// Trading rules of `symbol`.
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError>;

    /// Leverage for new positions on `symbol` (1 to the instrument's maximum).
    async fn set_leverage(&self, symbol: &str, leverage: u32) -> Result<(), VenueError>;

    /// Executes a market order at once; idempotent by `client_order_id`.
    async fn submit_market_order(&self, order: OrderRequest) -> Result<Fill, VenueError>;

    /// Replaces the stop loss, take profit and trailing stop of the open position.
    async fn set_stops(&self, symbol: &str, stops: Stops) -> Result<(), VenueError>;

    /// Open positions.
    async fn positions(&self) -> Result<Vec<Position>, VenueError>;

    /// The USDT wallet.
    async fn wallet(&self) -> Result<Wallet, VenueError>;

    /// Every close (full or partial) of the position `position_id` on `symbol`, oldest
    /// first: what reconciliation reads after a restart to learn how that position ended.
    /// Found by the venue's own ids, never by a time window of the caller's clock; empty for
    /// a position the venue never opened.
    async fn position_closes(
        &self,
        symbol: &str,
        position_id: &str,
    ) -> Result<Vec<PositionClose>, VenueError>;

    /// Every funding settlement on `symbol` from `from_ms` on, oldest first: what
    /// reconciliation reads to book the settlements it did not hear live (while the server
    /// was down, say). The caller finds each one's trade and books it by its id, once.
    async fn funding_since(
        &self,
        symbol: &str,
        from_ms: i64,
    ) -> Result<Vec<FundingPayment>, VenueError>;

    /// The maintenance margin rate of `symbol` at the smallest position tier (0.005 = 0.5%),
    /// as the venue states it: what its liquidation prices, and the risk preview, rest on.
    async fn maintenance_margin_rate(&self, symbol: &str) -> Result<Decimal, VenueError>;

    /// The worst a market order may fill against the last price, as a fraction (0.0002 =
    /// 2 bps): entries are sized so that their margin at that fill stays within the limits.
    fn max_slippage(&self, symbol: &str) -> Decimal;

    /// Live fills, closes and wallet changes of this account.
    fn subscribe(&self) -> broadcast::Receiver<VenueEvent>;

    /// The protective orders resting on the venue for the open position on `symbol` now
    /// (`None`: no position): what the protection check compares with the books. Read
    /// fresh from the venue, never from a cache of what this client sent.
    async fn resting_stops(&self, symbol: &str) -> Result<Option<Stops>, VenueError> {
        Ok(self
            .positions()
            .await?
            .into_iter()
            .find(|p| p.symbol == symbol)
            .map(|p| p.stops))
    }

    /// Bumped each time the venue's private stream is connected again (pushes may have
    /// been missed meanwhile, and the account may have changed behind the client's back).
    /// `None` for a venue without a stream (paper).
    fn reconnects(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }

    /// Emits, before it returns, the events of everything the account has done so far that
    /// it has not emitted yet. A venue that learns of fills asynchronously (Bybit's stream)
    /// reads them now; one that emits as it acts (paper) has nothing to do.
    async fn catch_up(&self) -> Result<(), VenueError> {
        Ok(())
    }

    /// Returns once everything this account has done so far is on the venue's own durable
    /// record, so the store never records an outcome the venue could forget (a real
    /// exchange's record is durable as it answers; the paper exchange writes its accounts
    /// to the database behind the scenes). An error means that record cannot be written now.
    async fn persisted(&self) -> Result<(), VenueError> {
        Ok(())
    }
}
