//! What the backtest tests share.

use signaldesk_store::Trade;

/// Trades without the opening orders' ids, which are unique by design (a random part).
pub fn comparable(trades: &[Trade]) -> Vec<Trade> {
    trades
        .iter()
        .map(|t| Trade {
            client_order_id: String::new(),
            ..t.clone()
        })
        .collect()
}
