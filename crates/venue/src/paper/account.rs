//! The trading rules of one paper account, as pure functions of its state and a price.
//!
//! * **Market orders** fill at once at the last price moved against the taker by the
//!   configured slippage (`price x (1 + bps/10000)` rounded up to a tick for a buy,
//!   `price x (1 - bps/10000)` rounded down for a sell), with the taker fee
//!   `fill price x qty x taker_fee_rate` taken from the wallet at once.
//! * **Opening** needs `initial margin + opening fee <= available balance`, where
//!   `initial margin = fill price x qty / leverage`, and must meet the instrument's minimum
//!   quantity and order value. An order in the direction of the open position adds to it and
//!   re-averages the entry (`(entry x qty + fill x added) / (qty + added)`); an order against
//!   it must be reduce-only: a position never flips.
//! * **Reduce-only** orders close at most the open quantity (a larger one is capped).
//! * **Closing** `q` of a position: the wallet gains `side x (exit - entry) x q - closing fee`,
//!   the margin and the unattributed opening fees are released pro rata, and the close
//!   reports `realized_pnl = price pnl - closing fee - opening fee share` (Bybit's closed pnl).
//! * **Liquidation price** (isolated margin, maintenance margin rate `mmr`, the symbol's
//!   own when the configuration names one):
//!   long `entry x (1 + mmr) - margin / qty` rounded up to a tick,
//!   short `entry x (1 - mmr) + margin / qty` rounded down to a tick; with
//!   `margin = entry x qty / leverage` this is Bybit's `entry x (1 - 1/leverage + mmr)`.
//!   At or beyond it the position is liquidated at the liquidation price and its whole
//!   margin is lost: the closing "fee" is what the price loss left of the margin.
//! * **Stops** are checked on every price, after the trailing stop has moved:
//!   a stop loss or trailing stop fills at its level, or at the price that crossed it when
//!   that price is worse (a gap); if that fill would be at or beyond the liquidation price
//!   the position is liquidated instead. A take profit fills at its level. When several
//!   levels are crossed by one price, the level nearest the previous prices goes first (for
//!   a long the highest), ties in the order stop loss, trailing stop, liquidation.
//!   Closes caused by a price pay the taker fee like market orders but no slippage.
//! * **Trailing stop**: inactive until the price reaches the activation price (at once
//!   without one); then the stop is `best price - distance` for a long (rounded down to a
//!   tick), `best price + distance` for a short (rounded up), and only ever tightens.
//! * **Funding** settles at 00:00, 08:00 and 16:00 UTC of market time (the ticks' time):
//!   a position open at a settlement time (opened before it) pays
//!   `fee = qty x mark x rate` when long and `-(qty x mark x rate)` when short (a positive
//!   rate: longs pay shorts), `mark` the last price at that time; the wallet changes by
//!   `-fee`, the margin does not. Ticks that skip several settlement times settle each.

use rust_decimal::Decimal;
use signaldesk_core::market::{Instrument, PositionSide, Side};

use super::snapshot::{AccountSnapshot, PositionState, TrailingState};
use super::PaperConfig;
use crate::error::VenueError;
use crate::market::funding::{next_settlement, settlements_between};
use crate::quiet::QuietBand;
use crate::venue::{
    CloseReason, Fill, FundingPayment, OrderRequest, Position, PositionClose, Stops, Trailing,
    Wallet,
};

const BPS: Decimal = Decimal::from_parts(10_000, 0, 0, false, 0);

/// The market as one account call sees it.
#[derive(Debug, Clone, Copy)]
pub struct Quote<'a> {
    pub instrument: &'a Instrument,
    /// Last traded price.
    pub price: Decimal,
    pub ts_ms: i64,
}

/// One close to record: which order closed, how much, at what price and fee, and why.
struct ClosePart {
    close_id: String,
    qty: Decimal,
    exit: Decimal,
    fee: Decimal,
    reason: CloseReason,
    client_order_id: Option<String>,
    ts_ms: i64,
}

/// The result of a submitted order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submitted {
    /// Executed now; `close` when it reduced a position.
    New {
        fill: Fill,
        close: Option<Box<PositionClose>>,
    },
    /// The client order id was executed before: its first result, nothing changed.
    Duplicate(Fill),
}

/// What a new price did to an account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriceOutcome {
    /// Whether the state changed (trailing progress or a close).
    pub changed: bool,
    pub close: Option<PositionClose>,
}

/// Liquidation price of `pos` (see the module documentation).
pub fn liquidation_price(pos: &PositionState, instrument: &Instrument, mmr: Decimal) -> Decimal {
    if pos.qty <= Decimal::ZERO {
        return Decimal::ZERO;
    }
    let per_unit_margin = pos.margin / pos.qty;
    match pos.side {
        PositionSide::Long => instrument
            .round_price_up(pos.entry_price * (Decimal::ONE + mmr) - per_unit_margin)
            .max(Decimal::ZERO),
        PositionSide::Short => {
            instrument.round_price_down(pos.entry_price * (Decimal::ONE - mmr) + per_unit_margin)
        }
    }
}

/// Market order fill price: `price` moved `bps` against the taker, rounded to a tick
/// against the taker.
pub fn slipped_price(price: Decimal, side: Side, bps: Decimal, instrument: &Instrument) -> Decimal {
    match side {
        Side::Buy => instrument.round_price_up(price * (BPS + bps) / BPS),
        Side::Sell => instrument.round_price_down(price * (BPS - bps) / BPS),
    }
}

pub(crate) fn validate_client_order_id(id: &str) -> Result<(), VenueError> {
    let ok = !id.is_empty()
        && id.len() <= 36
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(VenueError::InvalidRequest(format!(
            "client order id {id:?} must be 1 to 36 characters of letters, digits, '-' and '_'"
        )))
    }
}

fn check_price(what: &str, price: Decimal, instrument: &Instrument) -> Result<(), VenueError> {
    if price <= Decimal::ZERO {
        return Err(VenueError::InvalidRequest(format!(
            "{what} must be positive, got {price}"
        )));
    }
    if !instrument.is_on_tick(price) {
        return Err(VenueError::InvalidRequest(format!(
            "{what} {price} is not a multiple of the tick size {} of {}",
            instrument.tick_size, instrument.symbol
        )));
    }
    Ok(())
}

/// `part` of `total`, pro rata for `qty` of `of`; the whole of it when closing all.
fn pro_rata(total: Decimal, qty: Decimal, of: Decimal) -> Decimal {
    if qty >= of || of.is_zero() {
        total
    } else {
        total * qty / of
    }
}

/// Moves the trailing stop for `price`; true when its state changed.
fn update_trailing(pos: &mut PositionState, price: Decimal, instrument: &Instrument) -> bool {
    let long = pos.side == PositionSide::Long;
    let Some(t) = pos.trailing.as_mut() else {
        return false;
    };
    let best = match t.best_price {
        None => {
            let reached = match t.activation_price {
                None => true,
                Some(a) if long => price >= a,
                Some(a) => price <= a,
            };
            if !reached {
                return false;
            }
            price
        }
        Some(b) if long => b.max(price),
        Some(b) => b.min(price),
    };
    let candidate = if long {
        instrument.round_price_down(best - t.distance)
    } else {
        instrument.round_price_up(best + t.distance)
    };
    let stop = match t.stop_price {
        None => candidate,
        Some(s) if long => s.max(candidate),
        Some(s) => s.min(candidate),
    };
    let changed = t.best_price != Some(best) || t.stop_price != Some(stop);
    t.best_price = Some(best);
    t.stop_price = Some(stop);
    changed
}

impl AccountSnapshot {
    /// Leverage new positions on `symbol` get.
    pub fn leverage_for(&self, symbol: &str, config: &PaperConfig) -> u32 {
        self.leverage
            .get(symbol)
            .copied()
            .unwrap_or(config.default_leverage)
    }

    /// Sets the leverage of `instrument`; refused while a position with another leverage
    /// is open. Returns whether anything changed.
    pub fn set_leverage(
        &mut self,
        instrument: &Instrument,
        leverage: u32,
        config: &PaperConfig,
        ts_ms: i64,
    ) -> Result<bool, VenueError> {
        let symbol = &instrument.symbol;
        let refuse = |reason: String| VenueError::LeverageNotAllowed {
            symbol: symbol.clone(),
            leverage,
            reason,
        };
        if leverage == 0 || leverage > instrument.max_leverage {
            return Err(refuse(format!(
                "it must be between 1 and {}",
                instrument.max_leverage
            )));
        }
        if self.leverage_for(symbol, config) == leverage {
            return Ok(false);
        }
        if self.positions.contains_key(symbol) {
            return Err(refuse(
                "a position is open on it; close the position first".into(),
            ));
        }
        self.leverage.insert(symbol.clone(), leverage);
        self.updated_at_ms = ts_ms;
        Ok(true)
    }

    /// Executes a market order (see the module documentation for the rules). On error
    /// nothing has changed.
    pub fn submit(
        &mut self,
        order: &OrderRequest,
        quote: Quote<'_>,
        config: &PaperConfig,
    ) -> Result<Submitted, VenueError> {
        validate_client_order_id(&order.client_order_id)?;
        if let Some(prev) = self.remembered_order(&order.client_order_id) {
            let same = prev.symbol == order.symbol
                && prev.side == order.side
                && prev.reduce_only == order.reduce_only
                && (prev.qty == order.qty || order.reduce_only);
            return if same {
                Ok(Submitted::Duplicate(prev.clone()))
            } else {
                Err(VenueError::InvalidRequest(format!(
                    "client order id {} was already used for a different order",
                    order.client_order_id
                )))
            };
        }
        let instrument = quote.instrument;
        if order.qty <= Decimal::ZERO {
            return Err(VenueError::InvalidRequest(format!(
                "quantity must be positive, got {}",
                order.qty
            )));
        }
        if !instrument.is_on_step(order.qty) {
            return Err(VenueError::InvalidRequest(format!(
                "quantity {} is not a multiple of the quantity step {} of {}",
                order.qty, instrument.qty_step, instrument.symbol
            )));
        }
        let price = slipped_price(quote.price, order.side, config.slippage_bps, instrument);
        let existing = self.positions.get(&order.symbol);
        let (order_id, qty, close) = if order.reduce_only {
            let pos = existing.ok_or_else(|| VenueError::NoPosition(order.symbol.clone()))?;
            if order.side != pos.side.exit_side() {
                return Err(VenueError::InvalidRequest(format!(
                    "a reduce-only {:?} order cannot reduce a {:?} position",
                    order.side, pos.side
                )));
            }
            let qty = order.qty.min(pos.qty);
            let fee = price * qty * config.taker_fee_rate;
            let order_id = self.next_order_id();
            let close = self.close_part(
                &order.symbol,
                ClosePart {
                    close_id: order_id.clone(),
                    qty,
                    exit: price,
                    fee,
                    reason: CloseReason::Manual,
                    client_order_id: Some(order.client_order_id.clone()),
                    ts_ms: quote.ts_ms,
                },
            );
            (order_id, qty, close)
        } else {
            if let Some(pos) = existing {
                if pos.side != order.side.opens() {
                    return Err(VenueError::InvalidRequest(format!(
                        "a {:?} position is open on {}; an order against it must be reduce-only (positions never flip)",
                        pos.side, order.symbol
                    )));
                }
            }
            if !instrument.meets_minimums(order.qty, price) {
                return Err(VenueError::QtyBelowMinimum {
                    symbol: order.symbol.clone(),
                    qty: order.qty,
                    min_qty: instrument.min_qty,
                    min_notional: instrument.min_notional,
                });
            }
            self.open(order, price, quote, config)?;
            (self.next_order_id(), order.qty, None)
        };
        let fee = match &close {
            Some(c) => c.fee,
            None => price * qty * config.taker_fee_rate,
        };
        let fill = Fill {
            order_id,
            client_order_id: order.client_order_id.clone(),
            symbol: order.symbol.clone(),
            side: order.side,
            qty,
            price,
            fee,
            realized_pnl: close.as_ref().map_or(Decimal::ZERO, |c| c.realized_pnl),
            reduce_only: order.reduce_only,
            ts_ms: quote.ts_ms,
        };
        self.remember_order(fill.clone());
        self.trim(config.memory);
        self.updated_at_ms = quote.ts_ms;
        Ok(Submitted::New {
            fill,
            close: close.map(Box::new),
        })
    }

    fn open(
        &mut self,
        order: &OrderRequest,
        price: Decimal,
        quote: Quote<'_>,
        config: &PaperConfig,
    ) -> Result<(), VenueError> {
        let leverage = self.leverage_for(&order.symbol, config);
        let notional = price * order.qty;
        let margin = notional / Decimal::from(leverage);
        let fee = notional * config.taker_fee_rate;
        let needed = margin + fee;
        let available = self.available_balance();
        if needed > available {
            return Err(VenueError::InsufficientBalance { needed, available });
        }
        self.wallet_balance -= fee;
        match self.positions.get_mut(&order.symbol) {
            Some(pos) => {
                let qty = pos.qty + order.qty;
                pos.entry_price = (pos.entry_price * pos.qty + notional) / qty;
                pos.qty = qty;
                pos.margin += margin;
                pos.open_fee += fee;
                pos.updated_at_ms = quote.ts_ms;
                // The trailing stop keeps its progress; its level may now be re-checked.
                update_trailing(pos, quote.price, quote.instrument);
            }
            None => {
                self.positions.insert(
                    order.symbol.clone(),
                    PositionState {
                        position_id: order.client_order_id.clone(),
                        symbol: order.symbol.clone(),
                        side: order.side.opens(),
                        qty: order.qty,
                        entry_price: price,
                        leverage,
                        margin,
                        open_fee: fee,
                        stop_loss: None,
                        take_profit: None,
                        trailing: None,
                        opened_at_ms: quote.ts_ms,
                        updated_at_ms: quote.ts_ms,
                        funded_to_ms: 0,
                    },
                );
            }
        }
        Ok(())
    }

    /// The id of the next order this account executes (a reduce-only order, or the market
    /// order a stop or liquidation becomes).
    fn next_order_id(&mut self) -> String {
        self.order_seq += 1;
        format!("paper-{}", self.order_seq)
    }

    /// Closes `part.qty` of the position on `symbol` at `part.exit` paying `part.fee`, and
    /// records the close.
    fn close_part(&mut self, symbol: &str, part: ClosePart) -> Option<PositionClose> {
        let ClosePart {
            close_id,
            qty,
            exit,
            fee,
            reason,
            client_order_id,
            ts_ms,
        } = part;
        let pos = self.positions.get_mut(symbol)?;
        let qty = qty.min(pos.qty);
        let price_pnl = pos.side.pnl(pos.entry_price, exit, qty);
        let open_fee_share = pro_rata(pos.open_fee, qty, pos.qty);
        let margin_share = pro_rata(pos.margin, qty, pos.qty);
        let close = PositionClose {
            position_id: pos.position_id.clone(),
            close_id,
            symbol: symbol.to_string(),
            side: pos.side,
            reason,
            qty,
            entry_price: pos.entry_price,
            exit_price: exit,
            realized_pnl: price_pnl - fee - open_fee_share,
            fee,
            remaining_qty: pos.qty - qty,
            client_order_id,
            ts_ms,
        };
        pos.qty -= qty;
        pos.open_fee -= open_fee_share;
        pos.margin -= margin_share;
        pos.updated_at_ms = ts_ms;
        if pos.qty.is_zero() {
            self.positions.remove(symbol);
        }
        self.wallet_balance += price_pnl - fee;
        self.closes.push_back(close.clone());
        self.updated_at_ms = ts_ms;
        Some(close)
    }

    fn liquidate(&mut self, symbol: &str, at: Decimal, ts_ms: i64) -> Option<PositionClose> {
        let pos = self.positions.get(symbol)?;
        let price_pnl = pos.side.pnl(pos.entry_price, at, pos.qty);
        // Whatever the price loss left of the margin is forfeited: the whole margin is lost.
        let fee = (pos.margin + price_pnl).max(Decimal::ZERO);
        let qty = pos.qty;
        self.close_triggered(symbol, qty, at, fee, CloseReason::Liquidation, ts_ms)
    }

    /// A close the venue makes by itself (a stop, take profit or liquidation): it becomes an
    /// order of its own, whose id is the close's.
    fn close_triggered(
        &mut self,
        symbol: &str,
        qty: Decimal,
        exit: Decimal,
        fee: Decimal,
        reason: CloseReason,
        ts_ms: i64,
    ) -> Option<PositionClose> {
        let close_id = self.next_order_id();
        self.close_part(
            symbol,
            ClosePart {
                close_id,
                qty,
                exit,
                fee,
                reason,
                client_order_id: None,
                ts_ms,
            },
        )
    }

    /// Forgets the oldest orders and closes beyond the configured memory.
    fn trim(&mut self, memory: usize) {
        while self.orders.len() > memory {
            self.forget_oldest_order();
        }
        while self.closes.len() > memory {
            self.closes.pop_front();
        }
        while self.fundings.len() > memory {
            self.fundings.pop_front();
        }
    }

    /// Settles the funding of the position on `symbol` at every settlement time after its
    /// opening (and its last settlement) up to `to_ms`, at `mark_at(time)` and the rate
    /// `rate_at(time)` (a time without a rate settles nothing). Returns the settlements.
    pub fn settle_funding(
        &mut self,
        symbol: &str,
        to_ms: i64,
        mark_at: impl Fn(i64) -> Decimal,
        rate_at: impl Fn(i64) -> Option<Decimal>,
        config: &PaperConfig,
    ) -> Vec<FundingPayment> {
        let Some(pos) = self.positions.get_mut(symbol) else {
            return Vec::new();
        };
        let from = pos.opened_at_ms.max(pos.funded_to_ms);
        if next_settlement(from) > to_ms {
            return Vec::new();
        }
        let mut paid = Vec::new();
        let mut wallet_change = Decimal::ZERO;
        for at in settlements_between(from, to_ms) {
            pos.funded_to_ms = at;
            let Some(rate) = rate_at(at) else {
                continue;
            };
            let mark_price = mark_at(at);
            let value = pos.qty * mark_price * rate;
            let fee = match pos.side {
                PositionSide::Long => value,
                PositionSide::Short => -value,
            };
            wallet_change -= fee;
            paid.push(FundingPayment {
                funding_id: format!("fund-{}-{at}", pos.position_id),
                position_id: pos.position_id.clone(),
                symbol: symbol.to_string(),
                side: pos.side,
                qty: pos.qty,
                mark_price,
                rate,
                fee,
                ts_ms: at,
            });
        }
        let settled_to = pos.funded_to_ms;
        pos.updated_at_ms = pos.updated_at_ms.max(settled_to);
        self.wallet_balance += wallet_change;
        self.updated_at_ms = self.updated_at_ms.max(settled_to);
        self.fundings.extend(paid.iter().cloned());
        self.trim(config.memory);
        paid
    }

    /// Replaces the stops of the position on the quote's symbol. Re-sending an unchanged
    /// trailing stop keeps its progress.
    pub fn set_stops(
        &mut self,
        stops: &Stops,
        quote: Quote<'_>,
        config: &PaperConfig,
    ) -> Result<(), VenueError> {
        let instrument = quote.instrument;
        let symbol = &instrument.symbol;
        let pos = self
            .positions
            .get_mut(symbol)
            .ok_or_else(|| VenueError::NoPosition(symbol.clone()))?;
        let long = pos.side == PositionSide::Long;
        let price = quote.price;
        let (below, above) = ("below", "above");
        let bad = |msg: String| Err(VenueError::InvalidRequest(msg));
        if let Some(sl) = stops.stop_loss {
            check_price("stop loss", sl, instrument)?;
            let liq = liquidation_price(
                pos,
                instrument,
                config.maintenance_margin_rate_of(&instrument.symbol),
            );
            let (side_word, wrong_side, beyond_liq) = if long {
                (below, sl >= price, sl <= liq)
            } else {
                (above, sl <= price, sl >= liq)
            };
            if wrong_side {
                return bad(format!(
                    "stop loss {sl} must be {side_word} the last price {price} for a {:?} position",
                    pos.side
                ));
            }
            if beyond_liq {
                return bad(format!(
                    "stop loss {sl} is at or beyond the liquidation price {liq}"
                ));
            }
        }
        if let Some(tp) = stops.take_profit {
            check_price("take profit", tp, instrument)?;
            let (side_word, wrong_side) = if long {
                (above, tp <= price)
            } else {
                (below, tp >= price)
            };
            if wrong_side {
                return bad(format!(
                    "take profit {tp} must be {side_word} the last price {price} for a {:?} position",
                    pos.side
                ));
            }
        }
        if let Some(Trailing {
            distance,
            activation_price,
        }) = &stops.trailing
        {
            check_price("trailing distance", *distance, instrument)?;
            if long && *distance >= price {
                return bad(format!(
                    "trailing distance {distance} must be below the last price {price}"
                ));
            }
            if let Some(a) = activation_price {
                check_price("trailing activation price", *a, instrument)?;
            }
        }
        pos.stop_loss = stops.stop_loss;
        pos.take_profit = stops.take_profit;
        pos.trailing = match (&stops.trailing, pos.trailing.take()) {
            (None, _) => None,
            (Some(t), Some(old))
                if old.distance == t.distance && old.activation_price == t.activation_price =>
            {
                Some(old)
            }
            (Some(t), _) => Some(TrailingState {
                distance: t.distance,
                activation_price: t.activation_price,
                best_price: None,
                stop_price: None,
            }),
        };
        update_trailing(pos, price, instrument);
        pos.updated_at_ms = quote.ts_ms;
        self.updated_at_ms = quote.ts_ms;
        Ok(())
    }

    /// Applies a new last price of the quote's symbol: trailing stop, then stop loss,
    /// trailing stop, liquidation and take profit (see the module documentation).
    pub fn on_price(&mut self, quote: Quote<'_>, config: &PaperConfig) -> PriceOutcome {
        let instrument = quote.instrument;
        let symbol = instrument.symbol.as_str();
        let price = quote.price;
        let Some(pos) = self.positions.get_mut(symbol) else {
            return PriceOutcome::default();
        };
        let mut changed = update_trailing(pos, price, instrument);
        if changed {
            pos.updated_at_ms = quote.ts_ms;
        }
        let long = pos.side == PositionSide::Long;
        let crossed = |level: Decimal| if long { price <= level } else { price >= level };
        let earlier = |a: Decimal, b: Decimal| if long { a > b } else { a < b };
        let liq = liquidation_price(
            pos,
            instrument,
            config.maintenance_margin_rate_of(&instrument.symbol),
        );
        let candidates = [
            (CloseReason::StopLoss, pos.stop_loss),
            (
                CloseReason::Trailing,
                pos.trailing.as_ref().and_then(|t| t.stop_price),
            ),
            (CloseReason::Liquidation, Some(liq)),
        ];
        let mut hit: Option<(CloseReason, Decimal)> = None;
        for (reason, level) in candidates {
            if let Some(level) = level.filter(|l| crossed(*l)) {
                if hit.is_none_or(|(_, best)| earlier(level, best)) {
                    hit = Some((reason, level));
                }
            }
        }
        let qty = pos.qty;
        let take_profit = pos
            .take_profit
            .filter(|tp| if long { price >= *tp } else { price <= *tp });
        let close = match hit {
            Some((CloseReason::Liquidation, _)) => self.liquidate(symbol, liq, quote.ts_ms),
            Some((reason, level)) => {
                let fill = if long {
                    level.min(price)
                } else {
                    level.max(price)
                };
                if crossed_liq(long, fill, liq) {
                    self.liquidate(symbol, liq, quote.ts_ms)
                } else {
                    let fee = fill * qty * config.taker_fee_rate;
                    self.close_triggered(symbol, qty, fill, fee, reason, quote.ts_ms)
                }
            }
            None => take_profit.and_then(|tp| {
                let fee = tp * qty * config.taker_fee_rate;
                self.close_triggered(symbol, qty, tp, fee, CloseReason::TakeProfit, quote.ts_ms)
            }),
        };
        self.trim(config.memory);
        changed |= close.is_some();
        PriceOutcome { changed, close }
    }

    /// The prices of `instrument`'s symbol at which [`on_price`](Self::on_price) changes
    /// nothing: short of every stop, trailing level and liquidation, and of the take profit,
    /// the trailing stop's activation and a new best price.
    pub fn quiet_band(&self, instrument: &Instrument, config: &PaperConfig) -> QuietBand {
        let Some(pos) = self.positions.get(&instrument.symbol) else {
            return QuietBand::EVERYWHERE;
        };
        let long = pos.side == PositionSide::Long;
        let against = |band: QuietBand, level| {
            if long {
                band.acting_at_or_below(level)
            } else {
                band.acting_at_or_above(level)
            }
        };
        let favour = |band: QuietBand, level| {
            if long {
                band.acting_at_or_above(level)
            } else {
                band.acting_at_or_below(level)
            }
        };
        let mut band = QuietBand::EVERYWHERE;
        band = against(
            band,
            liquidation_price(
                pos,
                instrument,
                config.maintenance_margin_rate_of(&instrument.symbol),
            ),
        );
        if let Some(stop) = pos.stop_loss {
            band = against(band, stop);
        }
        if let Some(tp) = pos.take_profit {
            band = favour(band, tp);
        }
        if let Some(t) = &pos.trailing {
            match (t.best_price, t.activation_price) {
                (Some(best), _) => band = favour(band, best),
                (None, Some(activation)) => band = favour(band, activation),
                (None, None) => return QuietBand::NOWHERE,
            }
            if let Some(stop) = t.stop_price {
                band = against(band, stop);
            }
        }
        band
    }

    /// Wallet balance not held as margin.
    pub fn available_balance(&self) -> Decimal {
        let margin: Decimal = self.positions.values().map(|p| p.margin).sum();
        (self.wallet_balance - margin).max(Decimal::ZERO)
    }

    /// The wallet, valuing each position at `mark(symbol)` (its entry price when unknown).
    pub fn wallet(&self, mark: impl Fn(&str) -> Option<Decimal>) -> Wallet {
        let mut unrealized = Decimal::ZERO;
        let mut position_margin = Decimal::ZERO;
        for p in self.positions.values() {
            let m = mark(&p.symbol).unwrap_or(p.entry_price);
            unrealized += p.side.pnl(p.entry_price, m, p.qty);
            position_margin += p.margin;
        }
        let margin_balance = self.wallet_balance + unrealized;
        Wallet {
            wallet_balance: self.wallet_balance,
            equity: margin_balance,
            available_balance: (self.wallet_balance - position_margin).max(Decimal::ZERO),
            margin_balance,
            position_margin,
            unrealized_pnl: unrealized,
        }
    }
}

fn crossed_liq(long: bool, fill: Decimal, liq: Decimal) -> bool {
    if long {
        fill <= liq
    } else {
        fill >= liq
    }
}

/// The public view of a position valued at `mark`.
pub fn position_view(
    pos: &PositionState,
    mark: Decimal,
    instrument: &Instrument,
    config: &PaperConfig,
) -> Position {
    Position {
        position_id: pos.position_id.clone(),
        symbol: pos.symbol.clone(),
        side: pos.side,
        qty: pos.qty,
        entry_price: pos.entry_price,
        leverage: pos.leverage,
        margin: pos.margin,
        mark_price: mark,
        unrealized_pnl: pos.side.pnl(pos.entry_price, mark, pos.qty),
        liquidation_price: liquidation_price(
            pos,
            instrument,
            config.maintenance_margin_rate_of(&instrument.symbol),
        ),
        stops: Stops {
            stop_loss: pos.stop_loss,
            take_profit: pos.take_profit,
            trailing: pos.trailing.as_ref().map(|t| Trailing {
                distance: t.distance,
                activation_price: t.activation_price,
            }),
        },
        trailing_stop_price: pos.trailing.as_ref().and_then(|t| t.stop_price),
        opened_at_ms: pos.opened_at_ms,
        updated_at_ms: pos.updated_at_ms,
    }
}
