//! Bybit V5 private response shapes (category=linear), as documented: numbers arrive as
//! strings, empty strings mean "none". The `order` websocket topic shares [`OrderRecord`]
//! with /v5/order/realtime and /v5/order/history, so live pushes and the REST resync are
//! read by the same code.

use rust_decimal::Decimal;
use serde::Deserialize;
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_core::market::{PositionSide, Side};

use crate::bybit::http::models::dec;
use crate::bybit::http::BybitHttpError;
use crate::venue::{CloseReason, FundingPayment, Position, Stops, Trailing, Wallet};

/// A page of a list endpoint.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub list: Vec<T>,
    #[serde(default)]
    pub next_page_cursor: Option<String>,
}

impl<T> Page<T> {
    /// The cursor of the next page, if there is one.
    pub fn next(&self) -> Option<String> {
        self.next_page_cursor
            .clone()
            .filter(|c| !c.is_empty() && !self.list.is_empty())
    }
}

/// POST /v5/order/create.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedOrder {
    pub order_id: String,
}

/// An order (REST and the `order` topic).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderRecord {
    pub order_id: String,
    #[serde(default)]
    pub order_link_id: String,
    pub symbol: String,
    pub side: String,
    pub order_status: String,
    #[serde(default)]
    pub avg_price: String,
    #[serde(default)]
    pub cum_exec_qty: String,
    #[serde(default)]
    pub reduce_only: bool,
    #[serde(default)]
    pub create_type: String,
    #[serde(default)]
    pub stop_order_type: String,
    #[serde(default)]
    pub reject_reason: String,
    #[serde(default)]
    pub category: String,
    pub updated_time: String,
}

/// An order's terminal states in which it may have executed.
const DONE: [&str; 4] = ["Filled", "PartiallyFilledCanceled", "Cancelled", "Rejected"];

impl OrderRecord {
    /// Whether the order will not change any more.
    pub fn is_done(&self) -> bool {
        DONE.contains(&self.order_status.as_str()) || self.order_status == "Deactivated"
    }

    pub fn side(&self) -> Result<Side, BybitHttpError> {
        side(&self.side)
    }

    pub fn executed_qty(&self) -> Result<Decimal, BybitHttpError> {
        opt_dec("cumExecQty", &self.cum_exec_qty)
    }

    pub fn avg_price(&self) -> Result<Decimal, BybitHttpError> {
        opt_dec("avgPrice", &self.avg_price)
    }

    pub fn ts_ms(&self) -> i64 {
        self.updated_time.parse().unwrap_or(0)
    }

    /// Why the order was created: by the client, or by a stop or the liquidation engine.
    pub fn close_reason(&self) -> CloseReason {
        match (self.stop_order_type.as_str(), self.create_type.as_str()) {
            ("StopLoss", _) | (_, "CreateByStopLoss") => CloseReason::StopLoss,
            ("TakeProfit", _) | (_, "CreateByTakeProfit") => CloseReason::TakeProfit,
            ("TrailingStop", _) | (_, "CreateByTrailingStop") => CloseReason::Trailing,
            (_, t) if t.starts_with("CreateByLiq") || t.starts_with("CreateByAdl") => {
                CloseReason::Liquidation
            }
            _ => CloseReason::Manual,
        }
    }
}

/// One row of GET /v5/position/closed-pnl.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClosedPnlRow {
    pub symbol: String,
    pub order_id: String,
    /// The closing order's side.
    pub side: String,
    pub closed_size: String,
    pub avg_entry_price: String,
    pub avg_exit_price: String,
    pub closed_pnl: String,
    #[serde(default)]
    pub exec_type: String,
    /// The opening fee of the closed quantity ("" where Bybit does not send it).
    #[serde(default)]
    pub open_fee: String,
    /// The closing fee ("" where Bybit does not send it).
    #[serde(default)]
    pub close_fee: String,
    pub updated_time: String,
}

impl ClosedPnlRow {
    /// The side of the position it closed.
    pub fn position_side(&self) -> Result<PositionSide, BybitHttpError> {
        Ok(side(&self.side)?.opposite().opens())
    }

    pub fn ts_ms(&self) -> i64 {
        self.updated_time.parse().unwrap_or(0)
    }
}

/// One execution of GET /v5/execution/list (and the `execution` topic). Its execFee is
/// where a linear order's fee is read: the order's cumExecFee is deprecated for linear.
/// A funding settlement is an execution too, execType `Funding` (enum.mdx: "`Funding`
/// Funding fee"), with no order behind it: never an order's fill.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionRecord {
    #[serde(default)]
    pub order_id: String,
    #[serde(default)]
    pub exec_id: String,
    #[serde(default)]
    pub exec_type: String,
    #[serde(default)]
    pub symbol: String,
    #[serde(default)]
    pub side: String,
    #[serde(default)]
    pub exec_qty: String,
    #[serde(default)]
    pub exec_price: String,
    #[serde(default)]
    pub fee_rate: String,
    #[serde(default)]
    pub exec_fee: String,
    #[serde(default)]
    pub exec_time: String,
}

impl ExecutionRecord {
    pub fn is_funding(&self) -> bool {
        self.exec_type == "Funding"
    }

    /// The settlement a `Funding` execution stands for. Bybit's docs give its execFee's sign
    /// by way of the transaction log: there, `funding` "Positive fee value means receive
    /// funding; negative fee value means pay funding. This is opposite to the `execFee` from
    /// Get Trade History" (account/transaction-log.mdx), so execFee is positive when paid.
    /// execQty (the position's size), execPrice (the mark price) and feeRate (the funding
    /// rate) are read as Bybit fills them for funding rows; execution.mdx does not spell
    /// that out. Bybit names only the symbol, not the position (one per symbol, one-way).
    pub fn to_funding(&self) -> Result<FundingPayment, BybitHttpError> {
        if self.exec_id.is_empty() {
            return Err(BybitHttpError::Decode(
                "a funding execution without execId".into(),
            ));
        }
        Ok(FundingPayment {
            funding_id: self.exec_id.clone(),
            position_id: String::new(),
            symbol: self.symbol.clone(),
            side: side(&self.side)?.opens(),
            qty: opt_dec("execQty", &self.exec_qty)?,
            mark_price: opt_dec("execPrice", &self.exec_price)?,
            rate: opt_dec("feeRate", &self.fee_rate)?,
            fee: dec("execFee", &self.exec_fee)?,
            ts_ms: dec("execTime", &self.exec_time)?
                .try_into()
                .map_err(|_| BybitHttpError::Decode("execTime out of range".into()))?,
        })
    }
}

/// One entry of GET /v5/position/list (and the `position` topic).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionRecord {
    /// 0 in one-way mode; 1 (buy side) or 2 (sell side) in hedge mode.
    #[serde(default)]
    pub position_idx: i64,
    pub symbol: String,
    pub side: String,
    pub size: String,
    #[serde(default)]
    pub avg_price: String,
    #[serde(default)]
    pub leverage: String,
    #[serde(default)]
    pub mark_price: String,
    #[serde(default)]
    pub liq_price: String,
    #[serde(default, rename = "positionIM")]
    pub position_im: String,
    #[serde(default)]
    pub unrealised_pnl: String,
    #[serde(default)]
    pub take_profit: String,
    #[serde(default)]
    pub stop_loss: String,
    #[serde(default)]
    pub trailing_stop: String,
    #[serde(default)]
    pub created_time: String,
    #[serde(default)]
    pub updated_time: String,
}

impl PositionRecord {
    /// Our position, or `None` for Bybit's empty entry (size 0, side "").
    pub fn to_position(&self) -> Result<Option<Position>, BybitHttpError> {
        let qty = opt_dec("size", &self.size)?;
        if qty.is_zero() || self.side.is_empty() {
            return Ok(None);
        }
        let leverage = opt_dec("leverage", &self.leverage)?;
        Ok(Some(Position {
            // Bybit's position list does not say which order opened the position.
            position_id: String::new(),
            symbol: self.symbol.clone(),
            side: side(&self.side)?.opens(),
            qty,
            entry_price: opt_dec("avgPrice", &self.avg_price)?,
            leverage: leverage.trunc().try_into().unwrap_or(1),
            margin: opt_dec("positionIM", &self.position_im)?,
            mark_price: opt_dec("markPrice", &self.mark_price)?,
            unrealized_pnl: opt_dec("unrealisedPnl", &self.unrealised_pnl)?,
            liquidation_price: opt_dec("liqPrice", &self.liq_price)?,
            stops: Stops {
                stop_loss: level("stopLoss", &self.stop_loss)?,
                take_profit: level("takeProfit", &self.take_profit)?,
                // Bybit reports the distance only; the activation price is not returned.
                trailing: level("trailingStop", &self.trailing_stop)?.map(|distance| Trailing {
                    distance,
                    activation_price: None,
                }),
            },
            trailing_stop_price: None,
            // createdTime is "the first time a position was created on this symbol"
            // (position/position.mdx), not when this one opened: a lower bound only, which
            // the venue replaces with its opening order's time where it finds that order.
            opened_at_ms: self.created_time.parse().unwrap_or(0),
            updated_at_ms: self.updated_time.parse().unwrap_or(0),
        }))
    }
}

/// The UNIFIED account of GET /v5/account/wallet-balance (and the `wallet` topic).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WalletRecord {
    #[serde(default)]
    pub account_type: String,
    pub total_equity: String,
    #[serde(default)]
    pub total_wallet_balance: String,
    #[serde(default)]
    pub total_margin_balance: String,
    #[serde(default)]
    pub total_available_balance: String,
    #[serde(default, rename = "totalPerpUPL")]
    pub total_perp_upl: String,
    #[serde(default)]
    pub total_initial_margin: String,
}

impl WalletRecord {
    pub fn to_wallet(&self) -> Result<Wallet, BybitHttpError> {
        Ok(Wallet {
            wallet_balance: opt_dec("totalWalletBalance", &self.total_wallet_balance)?,
            equity: dec("totalEquity", &self.total_equity)?,
            available_balance: opt_dec("totalAvailableBalance", &self.total_available_balance)?,
            margin_balance: opt_dec("totalMarginBalance", &self.total_margin_balance)?,
            position_margin: opt_dec("totalInitialMargin", &self.total_initial_margin)?,
            unrealized_pnl: opt_dec("totalPerpUPL", &self.total_perp_upl)?,
        })
    }
}

/// GET /v5/user/query-api (user/apikey-info.mdx): the key's own description. `readOnly`
/// "`0`: Read and Write. `1`: Read only"; `permissions` "The types of permission", each group
/// an array of the permissions granted in it; `ips` "IP bound" (`["*"]`: none).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyInfo {
    #[serde(default)]
    pub read_only: i64,
    #[serde(default)]
    pub permissions: serde_json::Value,
    #[serde(default)]
    pub ips: Vec<String>,
}

impl ApiKeyInfo {
    /// The key as Bybit reported it: every group whose value is an array, with its string
    /// entries.
    pub fn reported(&self) -> KeyPermissions {
        let groups = self
            .permissions
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(group, names)| {
                let names = names.as_array()?;
                Some((
                    group.clone(),
                    names
                        .iter()
                        .filter_map(|n| n.as_str().map(str::to_string))
                        .collect(),
                ))
            })
            .collect();
        KeyPermissions {
            read_only: self.read_only != 0,
            groups,
            ips: self.ips.clone(),
        }
    }
}

/// GET /v5/market/time.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTime {
    pub time_nano: String,
}

pub fn side(value: &str) -> Result<Side, BybitHttpError> {
    match value {
        "Buy" => Ok(Side::Buy),
        "Sell" => Ok(Side::Sell),
        other => Err(BybitHttpError::Decode(format!("unknown side {other:?}"))),
    }
}

pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Buy => "Buy",
        Side::Sell => "Sell",
    }
}

/// A decimal where Bybit may send "" for zero.
pub fn opt_dec(field: &str, value: &str) -> Result<Decimal, BybitHttpError> {
    if value.is_empty() {
        Ok(Decimal::ZERO)
    } else {
        dec(field, value)
    }
}

/// A stop level where "" and "0" mean none.
fn level(field: &str, value: &str) -> Result<Option<Decimal>, BybitHttpError> {
    let d = opt_dec(field, value)?;
    Ok((!d.is_zero()).then_some(d))
}
