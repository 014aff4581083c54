//! The fake's book-keeping: one account per API key, the orders, executions and closed pnl
//! Bybit would record, and the private-stream pushes each change causes. Positions,
//! balances, fees and stops follow the paper exchange's account rules
//! (`signaldesk_venue::paper::account`, Bybit-like by design); everything Bybit-specific
//! (ids, documented shapes, error codes) is written here.

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::market::{Instrument, PositionSide, Side};
use signaldesk_venue::paper::account::{position_view, Quote, Submitted};
use signaldesk_venue::paper::{AccountSnapshot, PaperConfig, PositionState};
use signaldesk_venue::{CloseReason, OrderRequest, PositionClose, Stops, Trailing, VenueError};

/// A Bybit error answer: `retCode` and `retMsg`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    pub code: i64,
    pub message: String,
}

impl Reject {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// A filled order as Bybit records it (the shape of /v5/order/realtime, /v5/order/history
/// and the `order` topic).
#[derive(Debug, Clone)]
pub struct OrderRecord {
    pub order_id: String,
    pub order_link_id: String,
    pub symbol: String,
    pub side: Side,
    /// The quantity ordered.
    pub order_qty: Decimal,
    /// The quantity executed.
    pub qty: Decimal,
    /// `Filled`, or `PartiallyFilledCanceled` for a market order that stopped at its price
    /// limit.
    pub status: &'static str,
    pub avg_price: Decimal,
    pub fee: Decimal,
    pub closed_pnl: Decimal,
    pub reduce_only: bool,
    /// `CreateByUser`, `CreateByStopLoss`, `CreateByTakeProfit`, `CreateByTrailingStop`,
    /// `CreateByLiq`.
    pub create_type: &'static str,
    /// `""`, `StopLoss`, `TakeProfit`, `TrailingStop`.
    pub stop_order_type: &'static str,
    pub ts_ms: i64,
}

impl OrderRecord {
    pub fn to_json(&self) -> Value {
        json!({
            "category": "linear",
            "orderId": self.order_id,
            "orderLinkId": self.order_link_id,
            "blockTradeId": "",
            "symbol": self.symbol,
            "price": "0",
            "qty": self.order_qty.to_string(),
            "side": side_name(self.side),
            "isLeverage": "",
            "positionIdx": 0,
            "orderStatus": self.status,
            "createType": self.create_type,
            "cancelType": "UNKNOWN",
            "rejectReason": "EC_NoError",
            "avgPrice": self.avg_price.to_string(),
            "leavesQty": "0",
            "leavesValue": "0",
            "cumExecQty": self.qty.to_string(),
            "cumExecValue": (self.avg_price * self.qty).to_string(),
            // Deprecated for linear (order/open-order): the fee is in the executions' execFee
            // and the closed pnl's openFee / closeFee.
            "cumExecFee": "0",
            "closedPnl": self.closed_pnl.to_string(),
            "timeInForce": "IOC",
            "orderType": "Market",
            "stopOrderType": self.stop_order_type,
            "triggerPrice": "",
            "takeProfit": "",
            "stopLoss": "",
            "reduceOnly": self.reduce_only,
            "closeOnTrigger": self.create_type != "CreateByUser",
            "createdTime": self.ts_ms.to_string(),
            "updatedTime": self.ts_ms.to_string(),
        })
    }

    /// The `order` push Bybit sends first, when the order is accepted and nothing executed.
    fn new_json(&self) -> Value {
        let mut v = self.to_json();
        for (k, val) in [
            ("orderStatus", "New"),
            ("avgPrice", ""),
            ("cumExecQty", "0"),
            ("cumExecValue", "0"),
            ("closedPnl", "0"),
        ] {
            v[k] = json!(val);
        }
        v["leavesQty"] = json!(self.order_qty.to_string());
        v
    }

    pub fn execution_json(&self, closed_size: Decimal) -> Value {
        json!({
            "category": "linear",
            "symbol": self.symbol,
            "execId": format!("e-{}", self.order_id),
            "execPrice": self.avg_price.to_string(),
            "execQty": self.qty.to_string(),
            "execValue": (self.avg_price * self.qty).to_string(),
            "execFee": self.fee.to_string(),
            "execType": if self.create_type == "CreateByLiq" { "BustTrade" } else { "Trade" },
            "execTime": self.ts_ms.to_string(),
            "orderId": self.order_id,
            "orderLinkId": self.order_link_id,
            "side": side_name(self.side),
            "orderType": "Market",
            "stopOrderType": self.stop_order_type,
            "closedSize": closed_size.to_string(),
            "isMaker": false,
        })
    }
}

/// One row of /v5/position/closed-pnl.
#[derive(Debug, Clone)]
pub struct ClosedPnlRow {
    pub order_id: String,
    pub close: PositionClose,
    pub leverage: u32,
    pub liquidation: bool,
}

impl ClosedPnlRow {
    /// The closed quantity's share of the opening fee: closedPnl is the price pnl net of
    /// both fees.
    fn open_fee(&self) -> Decimal {
        let c = &self.close;
        let price_pnl = match c.side {
            PositionSide::Long => (c.exit_price - c.entry_price) * c.qty,
            PositionSide::Short => (c.entry_price - c.exit_price) * c.qty,
        };
        price_pnl - c.fee - c.realized_pnl
    }

    pub fn to_json(&self) -> Value {
        let c = &self.close;
        json!({
            "symbol": c.symbol,
            "orderId": self.order_id,
            "side": side_name(c.side.exit_side()),
            "qty": c.qty.to_string(),
            "orderPrice": c.exit_price.to_string(),
            "orderType": "Market",
            "execType": if self.liquidation { "BustTrade" } else { "Trade" },
            "closedSize": c.qty.to_string(),
            "cumEntryValue": (c.entry_price * c.qty).to_string(),
            "avgEntryPrice": c.entry_price.to_string(),
            "cumExitValue": (c.exit_price * c.qty).to_string(),
            "avgExitPrice": c.exit_price.to_string(),
            "closedPnl": c.realized_pnl.to_string(),
            "openFee": self.open_fee().to_string(),
            "closeFee": c.fee.to_string(),
            "fillCount": "1",
            "leverage": self.leverage.to_string(),
            "createdTime": c.ts_ms.to_string(),
            "updatedTime": c.ts_ms.to_string(),
        })
    }
}

/// A funding settlement as Bybit records it: an execution with execType `Funding`
/// (enum.mdx: "`Funding` Funding fee"), no order behind it (orderId and orderLinkId "",
/// orderType `UNKNOWN`: "Mainly, it is used when `execType` is `Funding`").
#[derive(Debug, Clone)]
pub struct FundingRecord {
    pub exec_id: String,
    pub symbol: String,
    /// The position's side (Buy for a long).
    pub side: Side,
    /// The position's size.
    pub qty: Decimal,
    pub mark_price: Decimal,
    pub rate: Decimal,
    /// Positive paid, negative received: account/transaction-log.mdx's `funding` ("Positive
    /// fee value means receive funding") "is opposite to the `execFee`".
    pub fee: Decimal,
    pub ts_ms: i64,
}

impl FundingRecord {
    pub fn execution_json(&self) -> Value {
        json!({
            "category": "linear",
            "symbol": self.symbol,
            "execId": self.exec_id,
            "execPrice": self.mark_price.to_string(),
            "execQty": self.qty.to_string(),
            "execValue": (self.mark_price * self.qty).to_string(),
            "execFee": self.fee.to_string(),
            "execType": "Funding",
            "execTime": self.ts_ms.to_string(),
            "feeRate": self.rate.to_string(),
            "markPrice": self.mark_price.to_string(),
            "orderId": "",
            "orderLinkId": "",
            "side": side_name(self.side),
            "orderPrice": "0",
            "orderQty": "0",
            "leavesQty": "0",
            "orderType": "UNKNOWN",
            "stopOrderType": "UNKNOWN",
            "closedSize": "0",
            "isMaker": false,
        })
    }
}

/// One API key's account.
pub struct Account {
    pub snapshot: AccountSnapshot,
    pub orders: Vec<OrderRecord>,
    /// The closed size of each order's execution, by order id.
    pub closed_sizes: HashMap<String, Decimal>,
    /// Orders Bybit no longer reports by id (past its order history).
    pub forgotten: Vec<String>,
    pub closed: Vec<ClosedPnlRow>,
    /// When a position was first created on each symbol: Bybit's position `createdTime`.
    pub first_position_ms: HashMap<String, i64>,
    /// Funding settlements, oldest first.
    pub fundings: Vec<FundingRecord>,
}

/// A private-stream push: the topic and its `data` array.
#[derive(Debug, Clone)]
pub struct Push {
    pub topic: &'static str,
    pub data: Value,
}

/// Every account and the market prices the test feeds in.
pub struct Exchange {
    pub config: PaperConfig,
    pub instruments: Vec<Instrument>,
    pub accounts: HashMap<String, Account>,
    pub prices: HashMap<String, Decimal>,
    /// lotSizeFilter.maxMktOrderQty by symbol (1,000,000 where not set).
    pub max_market_qty: HashMap<String, Decimal>,
    /// The next market order on a symbol executes at most this much, then ends
    /// `PartiallyFilledCanceled` (as one stopped by its price limit).
    pub fill_at_most: HashMap<String, Decimal>,
    order_seq: u64,
    funding_seq: u64,
}

pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Buy => "Buy",
        Side::Sell => "Sell",
    }
}

fn position_side_name(side: PositionSide) -> &'static str {
    side_name(side.entry_side())
}

/// Bybit's answer to what the paper rules refused.
fn reject_of(e: VenueError) -> Reject {
    match e {
        VenueError::InsufficientBalance { .. } => {
            Reject::new(110007, "ab not enough for new order")
        }
        VenueError::QtyBelowMinimum { qty, min_qty, .. } if qty < min_qty => Reject::new(
            10001,
            "The number of contracts exceeds minimum limit allowed",
        ),
        VenueError::QtyBelowMinimum { .. } => {
            Reject::new(110094, "Order does not meet minimum order value")
        }
        VenueError::NoPosition(_) => Reject::new(
            110017,
            "current position is zero, cannot fix reduce-only order qty",
        ),
        VenueError::LeverageNotAllowed { reason, .. } => {
            Reject::new(110013, format!("cannot set leverage: {reason}"))
        }
        VenueError::UnknownSymbol(s) => Reject::new(10001, format!("symbol invalid: {s}")),
        other => Reject::new(10001, other.to_string()),
    }
}

type StopsKey = (
    Option<Decimal>,
    Option<Decimal>,
    Option<(Decimal, Option<Decimal>)>,
);

fn stops_of(pos: Option<&PositionState>) -> Option<StopsKey> {
    pos.map(|p| {
        (
            p.stop_loss,
            p.take_profit,
            p.trailing
                .as_ref()
                .map(|t| (t.distance, t.activation_price)),
        )
    })
}

fn reason_types(reason: CloseReason) -> (&'static str, &'static str) {
    match reason {
        CloseReason::StopLoss => ("CreateByStopLoss", "StopLoss"),
        CloseReason::TakeProfit => ("CreateByTakeProfit", "TakeProfit"),
        CloseReason::Trailing => ("CreateByTrailingStop", "TrailingStop"),
        CloseReason::Liquidation => ("CreateByLiq", ""),
        CloseReason::Manual => ("CreateByUser", ""),
    }
}

impl Exchange {
    pub fn new(config: PaperConfig, instruments: Vec<Instrument>) -> Self {
        Self {
            config,
            instruments,
            accounts: HashMap::new(),
            prices: HashMap::new(),
            max_market_qty: HashMap::new(),
            fill_at_most: HashMap::new(),
            order_seq: 0,
            funding_seq: 0,
        }
    }

    pub fn max_market_qty(&self, symbol: &str) -> Decimal {
        self.max_market_qty
            .get(symbol)
            .copied()
            .unwrap_or(Decimal::new(1_000_000, 0))
    }

    pub fn instrument(&self, symbol: &str) -> Result<&Instrument, Reject> {
        self.instruments
            .iter()
            .find(|i| i.symbol == symbol)
            .ok_or_else(|| Reject::new(10001, format!("params error: symbol invalid {symbol}")))
    }

    pub fn account(&mut self, key: &str, now_ms: i64) -> &mut Account {
        let balance = self.config.starting_balance;
        self.accounts
            .entry(key.to_string())
            .or_insert_with(|| Account {
                snapshot: AccountSnapshot::new(balance, now_ms),
                orders: Vec::new(),
                closed_sizes: HashMap::new(),
                forgotten: Vec::new(),
                closed: Vec::new(),
                first_position_ms: HashMap::new(),
                fundings: Vec::new(),
            })
    }

    fn next_order_id(&mut self) -> String {
        self.order_seq += 1;
        format!(
            "fb0c{:04x}-0000-4000-8000-{:012x}",
            self.order_seq >> 48,
            self.order_seq
        )
    }

    fn price(&self, symbol: &str) -> Result<Decimal, Reject> {
        self.prices
            .get(symbol)
            .copied()
            .ok_or_else(|| Reject::new(10016, format!("no market price for {symbol} yet")))
    }

    pub fn set_leverage(
        &mut self,
        key: &str,
        symbol: &str,
        leverage: u32,
        now_ms: i64,
    ) -> Result<(), Reject> {
        let instrument = self.instrument(symbol)?.clone();
        let config = self.config.clone();
        let account = self.account(key, now_ms);
        if account.snapshot.leverage_for(symbol, &config) == leverage {
            return Err(Reject::new(110043, "Set leverage not modified"));
        }
        account
            .snapshot
            .set_leverage(&instrument, leverage, &config, now_ms)
            .map_err(reject_of)?;
        Ok(())
    }

    /// Executes a market order; `Ok((order id, pushes))`.
    pub fn create_order(
        &mut self,
        key: &str,
        order: &OrderRequest,
        now_ms: i64,
    ) -> Result<(String, Vec<Push>), Reject> {
        let instrument = self.instrument(&order.symbol)?.clone();
        let price = self.price(&order.symbol)?;
        if order.qty > self.max_market_qty(&order.symbol) {
            return Err(Reject::new(
                10001,
                "The number of contracts exceeds maximum limit allowed: too large",
            ));
        }
        let cap = self.fill_at_most.remove(&order.symbol);
        let config = self.config.clone();
        let order_id = self.next_order_id();
        let account = self.account(key, now_ms);
        if !order.client_order_id.is_empty()
            && account
                .orders
                .iter()
                .any(|o| o.order_link_id == order.client_order_id)
        {
            return Err(Reject::new(110072, "OrderLinkedID is duplicate"));
        }
        if order.reduce_only && !account.snapshot.positions.contains_key(&order.symbol) {
            return Err(Reject::new(
                110017,
                "current position is zero, cannot fix reduce-only order qty",
            ));
        }
        let quote = Quote {
            instrument: &instrument,
            price,
            ts_ms: now_ms,
        };
        // orderLinkId is optional on Bybit; the paper rules key every order by an id.
        let mut keyed = order.clone();
        if keyed.client_order_id.is_empty() {
            keyed.client_order_id = order_id.clone();
        }
        let partial = cap.filter(|c| *c < order.qty);
        if let Some(c) = partial {
            keyed.qty = c;
        }
        let submitted = account
            .snapshot
            .submit(&keyed, quote, &config)
            .map_err(reject_of)?;
        let Submitted::New { fill, close } = submitted else {
            return Err(Reject::new(110072, "OrderLinkedID is duplicate"));
        };
        let record = OrderRecord {
            order_id: order_id.clone(),
            order_link_id: order.client_order_id.clone(),
            symbol: order.symbol.clone(),
            side: order.side,
            order_qty: order.qty,
            qty: fill.qty,
            status: if partial.is_some() {
                "PartiallyFilledCanceled"
            } else {
                "Filled"
            },
            avg_price: fill.price,
            fee: fill.fee,
            closed_pnl: fill.realized_pnl,
            reduce_only: order.reduce_only,
            create_type: "CreateByUser",
            stop_order_type: "",
            ts_ms: now_ms,
        };
        let pushes = self.record(key, record, close.map(|c| *c), now_ms);
        Ok((order_id, pushes))
    }

    /// Books a filled order (and its close) and returns what the private stream pushes.
    fn record(
        &mut self,
        key: &str,
        record: OrderRecord,
        close: Option<PositionClose>,
        now_ms: i64,
    ) -> Vec<Push> {
        let closed_size = close.as_ref().map_or(Decimal::ZERO, |c| c.qty);
        // Bybit pushes an order once per change: accepted, then executed.
        let mut pushes = vec![
            Push {
                topic: "order",
                data: json!([record.new_json()]),
            },
            Push {
                topic: "execution",
                data: json!([record.execution_json(closed_size)]),
            },
            Push {
                topic: "order",
                data: json!([record.to_json()]),
            },
        ];
        let symbol = record.symbol.clone();
        let account = self.account(key, now_ms);
        if let Some(close) = close {
            let leverage = account.snapshot.leverage.get(&symbol).copied().unwrap_or(1);
            account.closed.push(ClosedPnlRow {
                order_id: record.order_id.clone(),
                liquidation: close.reason == CloseReason::Liquidation,
                close,
                leverage,
            });
        }
        account
            .closed_sizes
            .insert(record.order_id.clone(), closed_size);
        account.orders.push(record);
        if account.snapshot.positions.contains_key(&symbol) {
            account
                .first_position_ms
                .entry(symbol.clone())
                .or_insert(now_ms);
        }
        pushes.push(Push {
            topic: "position",
            data: json!([self.position_json(key, &symbol)]),
        });
        pushes.push(Push {
            topic: "wallet",
            data: json!([self.wallet_json(key)]),
        });
        pushes
    }

    pub fn trading_stop(
        &mut self,
        key: &str,
        symbol: &str,
        body: &Value,
        now_ms: i64,
    ) -> Result<Vec<Push>, Reject> {
        let instrument = self.instrument(symbol)?.clone();
        let price = self.price(symbol)?;
        let config = self.config.clone();
        let account = self.account(key, now_ms);
        let Some(pos) = account.snapshot.positions.get(symbol) else {
            return Err(Reject::new(10001, "can not set tp/sl/ts for zero position"));
        };
        // Absent keeps the current value, "0" cancels (Bybit's rule).
        let field = |name: &str, current: Option<Decimal>| -> Result<Option<Decimal>, Reject> {
            match body.get(name).and_then(Value::as_str) {
                None => Ok(current),
                Some(v) => {
                    let d: Decimal = v
                        .parse()
                        .map_err(|_| Reject::new(10001, format!("params error: {name}")))?;
                    Ok((!d.is_zero()).then_some(d))
                }
            }
        };
        let stop_loss = field("stopLoss", pos.stop_loss)?;
        let take_profit = field("takeProfit", pos.take_profit)?;
        let distance = field("trailingStop", pos.trailing.as_ref().map(|t| t.distance))?;
        let active = field("activePrice", None)?;
        let trailing = distance.map(|distance| Trailing {
            distance,
            activation_price: active.or_else(|| {
                pos.trailing
                    .as_ref()
                    .filter(|t| t.distance == distance)
                    .and_then(|t| t.activation_price)
            }),
        });
        let stops = Stops {
            stop_loss,
            take_profit,
            trailing,
        };
        let before = stops_of(account.snapshot.positions.get(symbol));
        let quote = Quote {
            instrument: &instrument,
            price,
            ts_ms: now_ms,
        };
        account
            .snapshot
            .set_stops(&stops, quote, &config)
            .map_err(|e| Reject::new(10001, e.to_string()))?;
        if before == stops_of(account.snapshot.positions.get(symbol)) {
            return Err(Reject::new(34040, "not modified"));
        }
        Ok(vec![Push {
            topic: "position",
            data: json!([self.position_json(key, symbol)]),
        }])
    }

    /// A new last price: runs every account's stops on `symbol` like Bybit's matching engine.
    pub fn set_price(&mut self, symbol: &str, price: Decimal, now_ms: i64) -> Vec<(String, Push)> {
        self.prices.insert(symbol.to_string(), price);
        let Ok(instrument) = self.instrument(symbol).cloned() else {
            return Vec::new();
        };
        let config = self.config.clone();
        let mut keys: Vec<String> = self.accounts.keys().cloned().collect();
        keys.sort();
        let mut out = Vec::new();
        for key in keys {
            let Some(account) = self.accounts.get_mut(&key) else {
                continue;
            };
            let quote = Quote {
                instrument: &instrument,
                price,
                ts_ms: now_ms,
            };
            let side = account.snapshot.positions.get(symbol).map(|p| p.side);
            let outcome = account.snapshot.on_price(quote, &config);
            let (Some(close), Some(side)) = (outcome.close, side) else {
                continue;
            };
            let (create_type, stop_order_type) = reason_types(close.reason);
            let order_id = self.next_order_id();
            let record = OrderRecord {
                order_id,
                order_link_id: String::new(),
                symbol: symbol.to_string(),
                side: side.exit_side(),
                order_qty: close.qty,
                qty: close.qty,
                status: "Filled",
                avg_price: close.exit_price,
                fee: close.fee,
                closed_pnl: close.realized_pnl,
                reduce_only: true,
                create_type,
                stop_order_type,
                ts_ms: now_ms,
            };
            for push in self.record(&key, record, Some(close), now_ms) {
                out.push((key.clone(), push));
            }
        }
        out
    }

    /// Settles funding at `rate` on every position on `symbol` at its mark price (the last
    /// price): each account pays size x mark x rate as a long on a positive rate, receives it
    /// as a short (and the other way on a negative rate), from its wallet balance. Closed pnl
    /// is untouched: funding is not part of a close.
    pub fn settle_funding(
        &mut self,
        symbol: &str,
        rate: Decimal,
        at_ms: i64,
    ) -> Vec<(String, Push)> {
        let mark = self.prices.get(symbol).copied();
        let mut keys: Vec<String> = self.accounts.keys().cloned().collect();
        keys.sort();
        let mut out = Vec::new();
        for key in keys {
            let Some(account) = self.accounts.get_mut(&key) else {
                continue;
            };
            let Some(pos) = account.snapshot.positions.get(symbol) else {
                continue;
            };
            let mark = mark.unwrap_or(pos.entry_price);
            let paid = pos.qty * mark * rate;
            self.funding_seq += 1;
            let record = FundingRecord {
                exec_id: format!("f0d10000-0000-4000-8000-{:012x}", self.funding_seq),
                symbol: symbol.to_string(),
                side: pos.side.entry_side(),
                qty: pos.qty,
                mark_price: mark,
                rate,
                fee: match pos.side {
                    PositionSide::Long => paid,
                    PositionSide::Short => -paid,
                },
                ts_ms: at_ms,
            };
            account.snapshot.wallet_balance -= record.fee;
            let execution = record.execution_json();
            account.fundings.push(record);
            out.push((
                key.clone(),
                Push {
                    topic: "execution",
                    data: json!([execution]),
                },
            ));
            out.push((
                key.clone(),
                Push {
                    topic: "wallet",
                    data: json!([self.wallet_json(&key)]),
                },
            ));
        }
        out
    }

    /// The /v5/position/list entry of `symbol` (Bybit answers an empty entry, size "0" and
    /// side "", for a symbol without a position).
    pub fn position_json(&self, key: &str, symbol: &str) -> Value {
        let account = self.accounts.get(key);
        let pos = account.and_then(|a| a.snapshot.positions.get(symbol));
        let (Some(pos), Ok(instrument)) = (pos, self.instrument(symbol)) else {
            return json!({
                "positionIdx": 0, "symbol": symbol, "side": "", "size": "0", "avgPrice": "0",
                "positionValue": "0", "leverage": "10", "markPrice": "0", "liqPrice": "",
                "positionIM": "0", "unrealisedPnl": "0", "takeProfit": "0", "stopLoss": "0",
                "trailingStop": "0", "tpslMode": "Full", "positionStatus": "Normal",
                "createdTime": "0", "updatedTime": "0",
            });
        };
        let mark = self.prices.get(symbol).copied().unwrap_or(pos.entry_price);
        let view = position_view(pos, mark, instrument, &self.config);
        let or_zero = |d: Option<Decimal>| d.map_or_else(|| "0".to_string(), |d| d.to_string());
        json!({
            "positionIdx": 0,
            "symbol": view.symbol,
            "side": position_side_name(view.side),
            "size": view.qty.to_string(),
            "avgPrice": view.entry_price.to_string(),
            "positionValue": (view.entry_price * view.qty).to_string(),
            "leverage": view.leverage.to_string(),
            "markPrice": view.mark_price.to_string(),
            "liqPrice": view.liquidation_price.to_string(),
            "positionIM": view.margin.to_string(),
            "unrealisedPnl": view.unrealized_pnl.to_string(),
            "takeProfit": or_zero(view.stops.take_profit),
            "stopLoss": or_zero(view.stops.stop_loss),
            "trailingStop": or_zero(view.stops.trailing.as_ref().map(|t| t.distance)),
            "tpslMode": "Full",
            "positionStatus": "Normal",
            // position/position.mdx: the first time a position was created on the symbol.
            "createdTime": account
                .and_then(|a| a.first_position_ms.get(symbol))
                .copied()
                .unwrap_or(view.opened_at_ms)
                .to_string(),
            "updatedTime": view.updated_at_ms.to_string(),
        })
    }

    pub fn positions_json(&self, key: &str, symbol: Option<&str>) -> Vec<Value> {
        match symbol {
            Some(s) => vec![self.position_json(key, s)],
            None => self
                .accounts
                .get(key)
                .map(|a| {
                    a.snapshot
                        .positions
                        .keys()
                        .map(|s| self.position_json(key, s))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// The UNIFIED account entry of /v5/account/wallet-balance (and the `wallet` topic).
    pub fn wallet_json(&self, key: &str) -> Value {
        let balance = self.config.starting_balance;
        let fresh;
        let snapshot = match self.accounts.get(key) {
            Some(a) => &a.snapshot,
            None => {
                fresh = AccountSnapshot::new(balance, 0);
                &fresh
            }
        };
        let w = snapshot.wallet(|s| self.prices.get(s).copied());
        json!({
            "accountType": "UNIFIED",
            "accountIMRate": "0",
            "accountMMRate": "0",
            "totalEquity": w.equity.to_string(),
            "totalWalletBalance": w.wallet_balance.to_string(),
            "totalMarginBalance": w.margin_balance.to_string(),
            "totalAvailableBalance": w.available_balance.to_string(),
            "totalPerpUPL": w.unrealized_pnl.to_string(),
            "totalInitialMargin": w.position_margin.to_string(),
            "totalMaintenanceMargin": "0",
            "coin": [{
                "coin": "USDT",
                "equity": w.equity.to_string(),
                "walletBalance": w.wallet_balance.to_string(),
                "unrealisedPnl": w.unrealized_pnl.to_string(),
                "totalPositionIM": w.position_margin.to_string(),
            }],
        })
    }
}
