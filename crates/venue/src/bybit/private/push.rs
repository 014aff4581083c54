//! What the private websocket's topic pushes hold, read without I/O: the `order`, `execution`
//! (order executions and funding settlements) and `wallet` items [`BybitVenue`](super::BybitVenue) acts on. Pure, so the fuzz target
//! `bybit_ws` reads pushes exactly as the venue does.

use serde_json::Value;

use super::models::{ExecutionRecord, OrderRecord, WalletRecord};
use crate::venue::{FundingPayment, Wallet};

/// One item of a private push.
#[derive(Debug, Clone)]
pub enum PushItem {
    /// An order changed (`order` topic).
    Order(OrderRecord),
    /// An order executed (`execution` topic); the order itself is read over REST when its
    /// own push is missing. `symbol` is "" when the push left it out.
    Execution { order_id: String, symbol: String },
    /// A funding settlement (`execution` topic, execType `Funding`): no order behind it.
    Funding(FundingPayment),
    /// The UNIFIED account's balances (`wallet` topic).
    Wallet(Wallet),
}

/// The items of one push of `topic` (`data` is an array of them, or one). Items of other
/// topics, executions (other than funding) without an order id and accounts other than
/// UNIFIED are left out; an
/// unreadable item is an error naming the topic.
pub fn read_push_items(topic: &str, data: Value) -> Vec<Result<PushItem, String>> {
    push_items(data)
        .into_iter()
        .filter_map(|item| read_item(topic, item))
        .collect()
}

/// The items of a push's `data`: an array of them, or one.
pub fn push_items(data: Value) -> Vec<Value> {
    match data {
        Value::Array(items) => items,
        other => vec![other],
    }
}

fn read_item(topic: &str, item: Value) -> Option<Result<PushItem, String>> {
    let unreadable = |e: &dyn std::fmt::Display| format!("unreadable bybit {topic} push: {e}");
    match topic {
        "order" => Some(
            serde_json::from_value::<OrderRecord>(item)
                .map(PushItem::Order)
                .map_err(|e| unreadable(&e)),
        ),
        "execution" if item.get("execType").and_then(Value::as_str) == Some("Funding") => Some(
            serde_json::from_value::<ExecutionRecord>(item)
                .map_err(|e| unreadable(&e))
                .and_then(|e| e.to_funding().map_err(|e| unreadable(&e)))
                .map(PushItem::Funding),
        ),
        "execution" => {
            let order_id = item.get("orderId").and_then(Value::as_str)?;
            if order_id.is_empty() {
                return None;
            }
            let symbol = item.get("symbol").and_then(Value::as_str).unwrap_or("");
            Some(Ok(PushItem::Execution {
                order_id: order_id.to_string(),
                symbol: symbol.to_string(),
            }))
        }
        "wallet" => {
            let record = match serde_json::from_value::<WalletRecord>(item) {
                Ok(record) => record,
                Err(e) => return Some(Err(unreadable(&e))),
            };
            if !(record.account_type.is_empty() || record.account_type == "UNIFIED") {
                return None;
            }
            Some(
                record
                    .to_wallet()
                    .map(PushItem::Wallet)
                    .map_err(|e| unreadable(&e)),
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn orders_executions_and_the_unified_wallet_are_read() {
        let order = json!([{"orderId": "o1", "symbol": "BTCUSDT", "side": "Buy",
            "orderStatus": "Filled", "cumExecQty": "0.01", "avgPrice": "30000",
            "category": "linear", "updatedTime": "1672364262457"}]);
        let items = read_push_items("order", order);
        assert!(
            matches!(&items[..], [Ok(PushItem::Order(o))] if o.order_id == "o1" && o.is_done())
        );

        let executions = json!([{"orderId": "o2", "symbol": "ETHUSDT"}, {"symbol": "X"},
            {"orderId": "", "symbol": "Y", "execType": "Trade"}]);
        let items = read_push_items("execution", executions);
        let [Ok(PushItem::Execution { order_id, symbol })] = &items[..] else {
            panic!("{items:?}");
        };
        assert_eq!((order_id.as_str(), symbol.as_str()), ("o2", "ETHUSDT"));

        // A funding settlement is no order's execution: orderId is "".
        let funding = json!([{"category": "linear", "symbol": "BTCUSDT", "execId": "f1",
            "execType": "Funding", "orderId": "", "orderLinkId": "", "side": "Sell",
            "execQty": "0.5", "execPrice": "30000", "feeRate": "0.0001", "execFee": "-1.5",
            "execTime": "1672364262457"}]);
        let items = read_push_items("execution", funding);
        let [Ok(PushItem::Funding(f))] = &items[..] else {
            panic!("{items:?}");
        };
        assert_eq!(f.funding_id, "f1");
        assert_eq!(f.side, signaldesk_core::market::PositionSide::Short);
        assert_eq!(f.fee.to_string(), "-1.5");
        assert_eq!(f.ts_ms, 1_672_364_262_457);
        let unreadable = json!([{"execType": "Funding", "execId": "f2", "side": "Buy"}]);
        assert!(read_push_items("execution", unreadable)[0].is_err());

        let wallets = json!([{"accountType": "UNIFIED", "totalEquity": "100.5"},
            {"accountType": "CONTRACT", "totalEquity": "1"},
            {"accountType": "UNIFIED", "totalEquity": "lots"}]);
        let items = read_push_items("wallet", wallets);
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0], Ok(PushItem::Wallet(w)) if w.equity.to_string() == "100.5"));
        assert!(items[1].as_ref().unwrap_err().contains("wallet"));

        assert!(read_push_items("position", json!([{}])).is_empty());
        assert!(read_push_items("order", json!({"orderId": 5}))[0].is_err());
    }
}
