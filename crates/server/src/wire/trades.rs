//! A trade as the browser reads it, in `/api/trades/`, the trade search and backtest results.

use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_store::Trade;
use utoipa::ToSchema;

use crate::wire::rfc3339;

#[derive(Serialize, ToSchema)]
pub struct SignalRef {
    pub id: Option<i64>,
    /// When the signal was stored.
    pub at: Option<String>,
    /// The last price when the bot decided.
    #[schema(value_type = Option<f64>)]
    pub price: Option<f64>,
}

#[derive(Serialize, ToSchema)]
pub struct TradeView {
    pub id: i64,
    pub symbol: String,
    /// `long` or `short`.
    pub side: &'static str,
    /// PENDING, OPEN, CLOSED or CANCELLED.
    pub status: &'static str,
    pub quantity: f64,
    pub open_quantity: f64,
    pub leverage: u32,
    pub margin: f64,
    pub entry_price: Option<f64>,
    pub exit_price: Option<f64>,
    /// Realized pnl net of fees and funding.
    pub pnl: f64,
    pub fees: f64,
    /// Funding the position received (positive) or paid (negative) while open; in `pnl`.
    pub funding: f64,
    pub stop_loss: Option<f64>,
    /// Take profits taken so far.
    pub take_profits_taken: u32,
    /// stop_loss, take_profit, trailing, manual, liquidation, reconciled.
    pub close_reason: Option<String>,
    pub chain_id: Option<i64>,
    pub chain_step: Option<u32>,
    pub signal: SignalRef,
    /// Milliseconds from the signal to the fill.
    pub latency_ms: Option<i64>,
    /// How much worse than the decision price the entry filled, in percent (negative: better).
    pub slippage_pct: Option<f64>,
    pub created_at: String,
    pub opened_at: Option<String>,
    pub closed_at: Option<String>,
    /// The account it was made on; null for trades from before venues were recorded.
    #[schema(value_type = Option<signaldesk_core::account::VenueView>)]
    pub venue: Option<signaldesk_core::account::AccountVenue>,
}

fn num(d: Decimal) -> f64 {
    use rust_decimal::prelude::ToPrimitive;
    d.to_f64().unwrap_or(0.0)
}

impl From<Trade> for TradeView {
    fn from(t: Trade) -> Self {
        let slippage = match (t.entry_price, t.signal_price) {
            (Some(entry), Some(decided)) if !decided.is_zero() => Some(num((entry - decided)
                / decided
                * Decimal::ONE_HUNDRED
                * t.side.sign())),
            _ => None,
        };
        TradeView {
            id: t.id,
            symbol: t.symbol,
            side: signaldesk_store::repo::trades::side_str(t.side),
            status: t.status.as_str(),
            quantity: num(t.qty),
            open_quantity: num(t.open_qty),
            leverage: t.leverage,
            margin: num(t.margin),
            entry_price: t.entry_price.map(num),
            exit_price: t.exit_price.map(num),
            pnl: num(t.pnl),
            fees: num(t.fees),
            funding: num(t.funding),
            stop_loss: t.stop_loss.map(num),
            take_profits_taken: t.tp_step,
            close_reason: t.close_reason,
            chain_id: t.chain_id,
            chain_step: t.chain_step,
            latency_ms: t.signal_at.zip(t.opened_at).map(|(s, o)| o - s),
            signal: SignalRef {
                id: t.signal_id,
                at: t.signal_at.map(rfc3339),
                price: t.signal_price.map(num),
            },
            slippage_pct: slippage,
            created_at: rfc3339(t.created_at),
            opened_at: t.opened_at.map(rfc3339),
            closed_at: t.closed_at.map(rfc3339),
            venue: t.venue,
        }
    }
}
