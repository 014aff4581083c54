//! `signaldesk audit`'s comparison: a paper account whose books match finds nothing, and each
//! kind of lie in the books is named.

#[allow(dead_code)] // the trading scenarios use the rest
mod desk_support;

use std::sync::Arc;

use desk_support::{classic, instrument, store_with_trader, trades};
use rust_decimal_macros::dec;
use signaldesk_core::market::{PositionSide, Side};
use signaldesk_engine::audit::{differences, VenueAccount};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, Trade, TradeStatus};
use signaldesk_venue::market::funding::{next_settlement, FundingRates};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::{OrderRequest, Stops, Venue, VenueEvent};

const START: i64 = 1_795_000_000_000;

fn order(id: &str, side: Side, reduce_only: bool) -> OrderRequest {
    OrderRequest {
        client_order_id: id.into(),
        symbol: "BTCUSDT".into(),
        side,
        qty: dec!(0.01),
        reduce_only,
    }
}

fn trade(user: i64, id: &str, status: TradeStatus) -> Trade {
    Trade {
        id: 0,
        user_id: user,
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        status,
        client_order_id: id.into(),
        leverage: 10,
        margin: dec!(30),
        qty: dec!(0.01),
        open_qty: dec!(0.01),
        entry_price: Some(dec!(30000)),
        exit_price: None,
        closed_qty: dec!(0),
        exit_value: dec!(0),
        pnl: dec!(0),
        fees: dec!(0),
        funding: dec!(0),
        volume: dec!(0),
        stop_loss: None,
        tp_step: 0,
        close_reason: None,
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: START,
        opened_at: Some(START),
        closed_at: None,
        venue: None,
    }
}

/// A closed trade "a" (bought at 30,000, sold at 31,000) and an open one "b" with its stop,
/// booked exactly as the paper account did them.
async fn matching_books() -> (TestDatabase, Store, i64, PaperExchange) {
    let (db, store, user) = store_with_trader(&classic()).await;
    let market = Arc::new(
        ManualMarket::new(vec![instrument("BTCUSDT")], START)
            .with_funding(FundingRates::Simulated { seed: 1 }),
    );
    let paper = PaperConfig {
        slippage_bps: dec!(0),
        ..PaperConfig::default()
    };
    let exchange = PaperExchange::new(market.clone(), paper, Arc::new(NoJournal))
        .await
        .unwrap();
    exchange.on_tick("BTCUSDT", dec!(30000), START);
    let venue = exchange.account(user);
    venue
        .submit_market_order(order("a", Side::Buy, false))
        .await
        .unwrap();
    exchange.on_tick("BTCUSDT", dec!(31000), START + 1);
    let close = venue
        .submit_market_order(order("a-close", Side::Sell, true))
        .await
        .unwrap();
    venue
        .submit_market_order(order("b", Side::Buy, false))
        .await
        .unwrap();
    let stops = Stops {
        stop_loss: Some(dec!(30000)),
        ..Stops::default()
    };
    venue.set_stops("BTCUSDT", stops).await.unwrap();

    let mut a = trade(user, "a", TradeStatus::Closed);
    a.open_qty = dec!(0);
    a.closed_qty = dec!(0.01);
    a.exit_price = Some(dec!(31000));
    a.pnl = close.realized_pnl;
    store.insert_trade(&a).await.unwrap();
    let mut b = trade(user, "b", TradeStatus::Open);
    b.entry_price = Some(dec!(31000));
    b.stop_loss = Some(dec!(30000));
    store.insert_trade(&b).await.unwrap();
    (db, store, user, exchange)
}

async fn audit(store: &Store, user: i64, exchange: &PaperExchange) -> Vec<String> {
    let snapshot = exchange.snapshot(user).unwrap();
    let account = VenueAccount::paper(&snapshot, dec!(10000));
    differences(store, user, &account).await.unwrap()
}

#[tokio::test]
async fn books_that_match_the_paper_account_have_no_difference() {
    let (_db, store, user, exchange) = matching_books().await;
    assert_eq!(audit(&store, user, &exchange).await, Vec::<String>::new());
}

#[tokio::test]
async fn each_lie_in_the_books_is_named() {
    let (_db, store, user, exchange) = matching_books().await;
    let all = trades(&store, user).await;
    let (mut a, mut b) = (all[0].clone(), all[1].clone());
    // A closed trade booked with another result, an open trade's stop that is not the
    // venue's, and an OPEN trade whose position does not exist.
    a.pnl += dec!(1);
    store.save_trade(&a).await.unwrap();
    b.stop_loss = Some(dec!(29000));
    store.save_trade(&b).await.unwrap();
    store
        .insert_trade(&trade(user, "ghost", TradeStatus::Open))
        .await
        .unwrap();
    let found = audit(&store, user, &exchange).await;
    let said = |needle: &str| found.iter().any(|d| d.contains(needle));
    assert!(said(&format!("trade #{}: booked pnl", a.id)), "{found:#?}");
    assert!(said(&format!("trade #{}: stop loss", b.id)), "{found:#?}");
    assert!(
        said("is OPEN but the venue has no position for it"),
        "{found:#?}"
    );
    assert!(said("the paper wallet holds"), "{found:#?}");
    assert_eq!(found.len(), 4, "{found:#?}");
}

#[tokio::test]
async fn a_venue_position_no_trade_holds_is_named() {
    let (_db, store, user, exchange) = matching_books().await;
    let mut b = trades(&store, user).await.remove(1);
    b.status = TradeStatus::Cancelled;
    store.save_trade(&b).await.unwrap();
    let found = audit(&store, user, &exchange).await;
    assert!(
        found.iter().any(|d| d.contains("that no OPEN trade holds")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|d| d.contains("is CANCELLED but its opening order executed")),
        "{found:#?}"
    );
}

#[tokio::test]
async fn funding_booked_as_the_paper_account_settled_it_keeps_the_audit_exact() {
    let (_db, store, user, exchange) = matching_books().await;
    let mut events = exchange.account(user).subscribe();
    let settled_at = next_settlement(START);
    exchange.on_tick("BTCUSDT", dec!(31500), settled_at + 1_000);
    let payment = std::iter::from_fn(|| events.try_recv().ok())
        .find_map(|e| match e {
            VenueEvent::Funding(f) => Some(f),
            _ => None,
        })
        .unwrap();
    // The open long "b" paid 0.01 x 31,000 (the price at the settlement) x the rate.
    assert_eq!(payment.position_id, "b");
    assert_eq!(payment.fee, dec!(0.01) * dec!(31000) * payment.rate);
    assert_ne!(payment.fee, dec!(0));
    // Not booked yet: the wallet moved and the books did not.
    let found = audit(&store, user, &exchange).await;
    assert!(
        found.iter().any(|d| d.contains("booked funding 0")),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|d| d.contains("the paper wallet holds")),
        "{found:#?}"
    );
    assert_eq!(found.len(), 2, "{found:#?}");

    // Booked as the worker books it: funding and pnl move by what the position received.
    let mut b = trades(&store, user).await.remove(1);
    b.funding -= payment.fee;
    b.pnl -= payment.fee;
    store.save_trade(&b).await.unwrap();
    store
        .book_funding(&b, &payment.funding_id, payment.ts_ms)
        .await
        .unwrap();
    assert_eq!(audit(&store, user, &exchange).await, Vec::<String>::new());

    // Booked twice over, it is named.
    b.funding -= payment.fee;
    b.pnl -= payment.fee;
    store.save_trade(&b).await.unwrap();
    let found = audit(&store, user, &exchange).await;
    assert!(
        found
            .iter()
            .any(|d| d.contains(&format!("trade #{}: booked funding", b.id))),
        "{found:#?}"
    );
}
