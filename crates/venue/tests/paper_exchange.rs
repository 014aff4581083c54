//! The paper exchange on scripted price paths: every fill price, fee and pnl below was
//! computed by hand from the rules in docs/paper-exchange.md (taker fee 0.055%, maintenance
//! margin 0.5%, no slippage unless a test says otherwise).
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::market::{Instrument, PositionSide, Side};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{AccountSnapshot, PaperConfig, PaperExchange, PaperJournal, UserId};
use signaldesk_venue::{CloseReason, OrderRequest, Stops, Trailing, Venue, VenueError, VenueEvent};
use tokio::sync::broadcast;

const USER: UserId = 7;
const T0: i64 = 1_750_000_000_000;

#[derive(Default)]
struct Recorder {
    saved: Mutex<Vec<(UserId, AccountSnapshot)>>,
}

impl Recorder {
    fn count(&self) -> usize {
        self.saved.lock().unwrap().len()
    }
    fn latest(&self, user: UserId) -> AccountSnapshot {
        let saved = self.saved.lock().unwrap();
        saved
            .iter()
            .rev()
            .find(|(u, _)| *u == user)
            .unwrap()
            .1
            .clone()
    }
}

impl PaperJournal for Recorder {
    fn save(&self, user_id: UserId, snapshot: &AccountSnapshot) {
        self.saved.lock().unwrap().push((user_id, snapshot.clone()));
    }
}

fn instruments() -> Vec<Instrument> {
    vec![
        Instrument {
            symbol: "BTCUSDT".into(),
            tick_size: dec!(0.1),
            qty_step: dec!(0.001),
            min_qty: dec!(0.001),
            min_notional: dec!(5),
            max_leverage: 100,
        },
        Instrument {
            symbol: "XRPUSDT".into(),
            tick_size: dec!(0.0001),
            qty_step: dec!(1),
            min_qty: dec!(1),
            min_notional: dec!(5),
            max_leverage: 75,
        },
    ]
}

fn no_slippage() -> PaperConfig {
    PaperConfig {
        slippage_bps: Decimal::ZERO,
        ..PaperConfig::default()
    }
}

struct World {
    market: Arc<ManualMarket>,
    exchange: PaperExchange,
    journal: Arc<Recorder>,
}

impl World {
    async fn new(config: PaperConfig) -> World {
        let market = Arc::new(ManualMarket::new(instruments(), T0));
        market.set_price("BTCUSDT", dec!(50000));
        market.set_price("XRPUSDT", dec!(2));
        let journal = Arc::new(Recorder::default());
        let exchange = PaperExchange::new(market.clone(), config, journal.clone())
            .await
            .unwrap();
        World {
            market,
            exchange,
            journal,
        }
    }

    /// Moves BTC to `price` one second later and lets the exchange see it.
    fn btc(&self, price: Decimal) {
        self.market.advance(1000);
        self.market.set_price("BTCUSDT", price);
        self.exchange.process_pending();
    }

    fn venue(&self) -> impl Venue {
        self.exchange.account(USER)
    }
}

fn order(id: &str, side: Side, qty: Decimal, reduce_only: bool) -> OrderRequest {
    OrderRequest {
        client_order_id: id.into(),
        symbol: "BTCUSDT".into(),
        side,
        qty,
        reduce_only,
    }
}

fn closes(rx: &mut broadcast::Receiver<VenueEvent>) -> Vec<signaldesk_venue::PositionClose> {
    let mut out = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let VenueEvent::PositionClosed(c) = ev {
            out.push(c);
        }
    }
    out
}

#[tokio::test]
async fn opening_charges_fee_and_holds_margin() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    v.set_leverage("BTCUSDT", 10).await.unwrap();
    let fill = v
        .submit_market_order(order("open-1", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    // 0.1 x 50000 = 5000 notional; fee 5000 x 0.00055 = 2.75; margin 5000 / 10 = 500.
    assert_eq!(fill.price, dec!(50000));
    assert_eq!(fill.fee, dec!(2.75));
    assert_eq!(fill.realized_pnl, dec!(0));
    let wallet = v.wallet().await.unwrap();
    assert_eq!(wallet.wallet_balance, dec!(9997.25));
    assert_eq!(wallet.position_margin, dec!(500));
    assert_eq!(wallet.available_balance, dec!(9497.25));
    assert_eq!(wallet.equity, dec!(9997.25));

    w.btc(dec!(51000));
    let wallet = v.wallet().await.unwrap();
    // Unrealized (51000 - 50000) x 0.1 = 100 counts in equity, not in the available balance.
    assert_eq!(wallet.unrealized_pnl, dec!(100));
    assert_eq!(wallet.equity, dec!(10097.25));
    assert_eq!(wallet.margin_balance, dec!(10097.25));
    assert_eq!(wallet.available_balance, dec!(9497.25));
    let pos = &v.positions().await.unwrap()[0];
    assert_eq!(
        (pos.side, pos.qty, pos.entry_price),
        (PositionSide::Long, dec!(0.1), dec!(50000))
    );
    assert_eq!(pos.liquidation_price, dec!(45250));
    assert_eq!(pos.mark_price, dec!(51000));

    // Adding re-averages: 0.1 more at 51000 -> entry (5000 + 5100) / 0.2 = 50500.
    v.submit_market_order(order("add-1", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    let pos = &v.positions().await.unwrap()[0];
    assert_eq!(pos.qty, dec!(0.2));
    assert_eq!(pos.entry_price, dec!(50500));
    assert_eq!(pos.margin, dec!(1010));
    // Fees 2.75 + 2.805.
    assert_eq!(v.wallet().await.unwrap().wallet_balance, dec!(9994.445));
}

#[tokio::test]
async fn slippage_moves_market_fills_against_the_taker() {
    let w = World::new(PaperConfig::default()).await; // 2 bps
    let v = w.venue();
    let buy = v
        .submit_market_order(order("b", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    // 50000 x 1.0002 = 50010.
    assert_eq!(buy.price, dec!(50010));
    let sell = v
        .submit_market_order(order("s", Side::Sell, dec!(0.1), true))
        .await
        .unwrap();
    // 50000 x 0.9998 = 49990; pnl -2 - fee 2.74945 - opening fee 2.75055.
    assert_eq!(sell.price, dec!(49990));
    assert_eq!(sell.fee, dec!(2.74945));
    assert_eq!(sell.realized_pnl, dec!(-7.5));
}

#[tokio::test]
async fn stop_loss_fills_at_its_level() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    v.set_stops(
        "BTCUSDT",
        Stops {
            stop_loss: Some(dec!(49000)),
            ..Stops::default()
        },
    )
    .await
    .unwrap();
    w.btc(dec!(49500));
    assert_eq!(v.positions().await.unwrap().len(), 1);
    w.btc(dec!(49000));
    assert!(v.positions().await.unwrap().is_empty());
    let c = closes(&mut events);
    assert_eq!(c.len(), 1);
    let c = &c[0];
    // Price pnl -100; closing fee 49000 x 0.1 x 0.00055 = 2.695; opening fee 2.75.
    assert_eq!(c.reason, CloseReason::StopLoss);
    assert_eq!(c.exit_price, dec!(49000));
    assert_eq!(c.fee, dec!(2.695));
    assert_eq!(c.realized_pnl, dec!(-105.445));
    assert_eq!(c.remaining_qty, dec!(0));
    let wallet = v.wallet().await.unwrap();
    assert_eq!(wallet.wallet_balance, dec!(9894.555));
    assert_eq!(wallet.available_balance, dec!(9894.555));
    assert_eq!(
        c.position_id, "o",
        "a close names the order that opened its position"
    );
    assert_eq!(
        v.position_closes("BTCUSDT", "o").await.unwrap(),
        vec![c.clone()]
    );
    assert!(v
        .position_closes("BTCUSDT", "other")
        .await
        .unwrap()
        .is_empty());
    assert!(v.position_closes("ETHUSDT", "o").await.unwrap().is_empty());
}

#[tokio::test]
async fn a_gap_through_the_stop_fills_at_the_gap_price() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    let stops = Stops {
        stop_loss: Some(dec!(49000)),
        ..Stops::default()
    };
    v.set_stops("BTCUSDT", stops).await.unwrap();
    w.btc(dec!(48900));
    let c = &closes(&mut events)[0];
    assert_eq!(c.exit_price, dec!(48900));
    // -110 - 48900 x 0.1 x 0.00055 (2.6895) - 2.75.
    assert_eq!(c.realized_pnl, dec!(-115.4395));
}

#[tokio::test]
async fn take_profit_fills_at_its_level() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.submit_market_order(order("o", Side::Sell, dec!(0.2), false))
        .await
        .unwrap();
    v.set_stops(
        "BTCUSDT",
        Stops {
            stop_loss: Some(dec!(51000)),
            take_profit: Some(dec!(48000)),
            trailing: None,
        },
    )
    .await
    .unwrap();
    w.btc(dec!(48500));
    assert!(closes(&mut events).is_empty());
    // The price jumps past the take profit: it fills at its level, 48000.
    w.btc(dec!(47900));
    let c = &closes(&mut events)[0];
    // Short 0.2: pnl (50000 - 48000) x 0.2 = 400; fee 48000 x 0.2 x 0.00055 = 5.28;
    // opening fee 10000 x 0.00055 = 5.5.
    assert_eq!(c.reason, CloseReason::TakeProfit);
    assert_eq!(c.side, PositionSide::Short);
    assert_eq!(c.exit_price, dec!(48000));
    assert_eq!(c.fee, dec!(5.28));
    assert_eq!(c.realized_pnl, dec!(389.22));
    assert_eq!(v.wallet().await.unwrap().wallet_balance, dec!(10389.22));
}

#[tokio::test]
async fn partial_close_then_full_close_never_flips() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    v.submit_market_order(order("o", Side::Buy, dec!(0.2), false))
        .await
        .unwrap();
    w.btc(dec!(52000));
    let half = v
        .submit_market_order(order("half", Side::Sell, dec!(0.1), true))
        .await
        .unwrap();
    // pnl 200, closing fee 5200 x 0.00055 = 2.86, half the opening fee 5.5 = 2.75.
    assert_eq!(half.qty, dec!(0.1));
    assert_eq!(half.fee, dec!(2.86));
    assert_eq!(half.realized_pnl, dec!(194.39));
    let pos = &v.positions().await.unwrap()[0];
    assert_eq!(pos.qty, dec!(0.1));
    assert_eq!(pos.margin, dec!(500));
    assert_eq!(v.wallet().await.unwrap().wallet_balance, dec!(10191.64));

    // A reduce-only order bigger than the position closes it and stops there.
    let rest = v
        .submit_market_order(order("rest", Side::Sell, dec!(0.5), true))
        .await
        .unwrap();
    assert_eq!(rest.qty, dec!(0.1));
    assert_eq!(rest.realized_pnl, dec!(194.39));
    assert!(v.positions().await.unwrap().is_empty());
    let wallet = v.wallet().await.unwrap();
    assert_eq!(wallet.wallet_balance, dec!(10388.78));
    assert_eq!(wallet.position_margin, dec!(0));

    let err = v
        .submit_market_order(order("again", Side::Sell, dec!(0.1), true))
        .await
        .unwrap_err();
    assert_eq!(err, VenueError::NoPosition("BTCUSDT".into()));

    // An order against an open position must be reduce-only.
    v.submit_market_order(order("long", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    let err = v
        .submit_market_order(order("flip", Side::Sell, dec!(0.3), false))
        .await
        .unwrap_err();
    assert!(matches!(err, VenueError::InvalidRequest(_)), "{err}");
}

#[tokio::test]
async fn trailing_stop_activates_tightens_and_fills_at_its_level() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    v.set_stops(
        "BTCUSDT",
        Stops {
            stop_loss: Some(dec!(48000)),
            take_profit: None,
            trailing: Some(Trailing {
                distance: dec!(500),
                activation_price: Some(dec!(51000)),
            }),
        },
    )
    .await
    .unwrap();
    let trail = |v: &Vec<signaldesk_venue::Position>| v[0].trailing_stop_price;
    w.btc(dec!(50800));
    assert_eq!(trail(&v.positions().await.unwrap()), None);
    w.btc(dec!(51000)); // activates: best 51000, stop 50500
    assert_eq!(trail(&v.positions().await.unwrap()), Some(dec!(50500)));
    w.btc(dec!(51800));
    assert_eq!(trail(&v.positions().await.unwrap()), Some(dec!(51300)));
    // Trailing progress is journaled as it happens.
    let saved = w.journal.latest(USER);
    let saved = saved.positions["BTCUSDT"].trailing.as_ref().unwrap();
    assert_eq!(
        (saved.best_price, saved.stop_price),
        (Some(dec!(51800)), Some(dec!(51300)))
    );
    w.btc(dec!(51500)); // a lower price never loosens it
    assert_eq!(trail(&v.positions().await.unwrap()), Some(dec!(51300)));
    w.btc(dec!(52000));
    assert_eq!(trail(&v.positions().await.unwrap()), Some(dec!(51500)));
    w.btc(dec!(51600));
    assert!(closes(&mut events).is_empty());
    w.btc(dec!(51500));
    let c = &closes(&mut events)[0];
    // pnl 150; fee 51500 x 0.1 x 0.00055 = 2.8325; opening fee 2.75.
    assert_eq!(c.reason, CloseReason::Trailing);
    assert_eq!(c.exit_price, dec!(51500));
    assert_eq!(c.realized_pnl, dec!(144.4175));
    assert_eq!(v.wallet().await.unwrap().wallet_balance, dec!(10144.4175));
}

#[tokio::test]
async fn short_trailing_stop_follows_the_low() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.submit_market_order(order("o", Side::Sell, dec!(0.1), false))
        .await
        .unwrap();
    // No activation price: active at once at 50000, stop 50300.
    let stops = Stops {
        trailing: Some(Trailing {
            distance: dec!(300),
            activation_price: None,
        }),
        ..Stops::default()
    };
    v.set_stops("BTCUSDT", stops).await.unwrap();
    assert_eq!(
        v.positions().await.unwrap()[0].trailing_stop_price,
        Some(dec!(50300))
    );
    w.btc(dec!(49000));
    assert_eq!(
        v.positions().await.unwrap()[0].trailing_stop_price,
        Some(dec!(49300))
    );
    w.btc(dec!(49350));
    let c = &closes(&mut events)[0];
    // Gap above the stop: fills at 49350. pnl 65; fee 4935 x 0.00055 = 2.71425.
    assert_eq!(c.exit_price, dec!(49350));
    assert_eq!(c.realized_pnl, dec!(59.53575));
}

#[tokio::test]
async fn liquidation_loses_the_whole_margin() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.set_leverage("BTCUSDT", 10).await.unwrap();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    // 50000 x (1 + 0.005) - 500 / 0.1 = 45250.
    assert_eq!(
        v.positions().await.unwrap()[0].liquidation_price,
        dec!(45250)
    );
    w.btc(dec!(45300));
    assert!(closes(&mut events).is_empty());
    w.btc(dec!(45250));
    let c = &closes(&mut events)[0];
    // Price loss 475, the remaining 25 of the 500 margin forfeited, opening fee 2.75.
    assert_eq!(c.reason, CloseReason::Liquidation);
    assert_eq!(c.exit_price, dec!(45250));
    assert_eq!(c.fee, dec!(25));
    assert_eq!(c.realized_pnl, dec!(-502.75));
    let wallet = v.wallet().await.unwrap();
    assert_eq!(wallet.wallet_balance, dec!(9497.25));
    assert!(v.positions().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_symbol_s_own_maintenance_rate_sets_its_liquidation_price() {
    let config = PaperConfig {
        maintenance_margin_rates: [("BTCUSDT".to_string(), dec!(0.02))].into(),
        ..no_slippage()
    };
    assert_eq!(config.maintenance_margin_rate_of("XRPUSDT"), dec!(0.005));
    let w = World::new(config).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.set_leverage("BTCUSDT", 10).await.unwrap();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    // 50000 x (1 + 0.02) - 500 / 0.1 = 46000 (45250 at the common 0.5 %).
    assert_eq!(
        v.positions().await.unwrap()[0].liquidation_price,
        dec!(46000)
    );
    // A stop at or below it is refused; the quiet band ends there.
    let stops = Stops {
        stop_loss: Some(dec!(46000)),
        ..Stops::default()
    };
    assert!(v.set_stops("BTCUSDT", stops).await.is_err());
    assert!(!w
        .exchange
        .quiet_band(USER, "BTCUSDT")
        .holds(dec!(46000), dec!(50000)));
    assert!(w
        .exchange
        .quiet_band(USER, "BTCUSDT")
        .holds(dec!(46000.1), dec!(50000)));
    w.btc(dec!(46100));
    assert!(closes(&mut events).is_empty());
    w.btc(dec!(46000));
    let c = &closes(&mut events)[0];
    assert_eq!(c.reason, CloseReason::Liquidation);
    assert_eq!(c.exit_price, dec!(46000));
}

#[tokio::test]
async fn short_liquidation_and_a_stop_gapping_past_it() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.set_leverage("BTCUSDT", 20).await.unwrap();
    v.submit_market_order(order("o", Side::Sell, dec!(0.1), false))
        .await
        .unwrap();
    // 50000 x (1 - 0.005) + 250 / 0.1 = 52250.
    assert_eq!(
        v.positions().await.unwrap()[0].liquidation_price,
        dec!(52250)
    );
    let stops = Stops {
        stop_loss: Some(dec!(52000)),
        ..Stops::default()
    };
    v.set_stops("BTCUSDT", stops).await.unwrap();
    // One tick jumps over both the stop (52000) and the liquidation price: the stop would
    // fill at 53000, beyond the liquidation price, so the position is liquidated at 52250.
    w.btc(dec!(53000));
    let c = &closes(&mut events)[0];
    assert_eq!(c.reason, CloseReason::Liquidation);
    assert_eq!(c.exit_price, dec!(52250));
    // Margin 250 lost, plus the opening fee 2.75.
    assert_eq!(c.realized_pnl, dec!(-252.75));
    assert_eq!(v.wallet().await.unwrap().wallet_balance, dec!(9747.25));
}

#[tokio::test]
async fn client_order_id_is_idempotent() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let first = v
        .submit_market_order(order("entry-42", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    let saves = w.journal.count();
    w.btc(dec!(50500));
    let again = v
        .submit_market_order(order("entry-42", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(v.positions().await.unwrap()[0].qty, dec!(0.1));
    assert_eq!(v.wallet().await.unwrap().wallet_balance, dec!(9997.25));
    assert_eq!(w.journal.count(), saves);
    let err = v
        .submit_market_order(order("entry-42", Side::Sell, dec!(0.1), false))
        .await
        .unwrap_err();
    assert!(matches!(err, VenueError::InvalidRequest(_)), "{err}");
    let err = v
        .submit_market_order(order("not a valid id!", Side::Buy, dec!(0.1), false))
        .await
        .unwrap_err();
    assert!(matches!(err, VenueError::InvalidRequest(_)), "{err}");
}

#[tokio::test]
async fn rejected_orders_change_nothing() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    let before = w.exchange.snapshot(USER).unwrap();
    let saves = w.journal.count();

    // 10 BTC at 10x needs 50000 margin + 275 fee; 9497.25 is available.
    let err = v
        .submit_market_order(order("big", Side::Buy, dec!(10), false))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        VenueError::InsufficientBalance {
            needed: dec!(50275),
            available: dec!(9497.25)
        }
    );
    // 2 XRP at 2 USDT is 4 USDT, under the 5 USDT minimum order value.
    let small = OrderRequest {
        client_order_id: "small".into(),
        symbol: "XRPUSDT".into(),
        side: Side::Buy,
        qty: dec!(2),
        reduce_only: false,
    };
    let err = v.submit_market_order(small).await.unwrap_err();
    assert_eq!(
        err,
        VenueError::QtyBelowMinimum {
            symbol: "XRPUSDT".into(),
            qty: dec!(2),
            min_qty: dec!(1),
            min_notional: dec!(5)
        }
    );
    let err = v
        .submit_market_order(order("odd", Side::Buy, dec!(0.0015), false))
        .await
        .unwrap_err();
    assert!(matches!(err, VenueError::InvalidRequest(_)), "{err}");
    let mut unknown = order("u", Side::Buy, dec!(1), false);
    unknown.symbol = "FOOUSDT".into();
    assert_eq!(
        v.submit_market_order(unknown).await.unwrap_err(),
        VenueError::UnknownSymbol("FOOUSDT".into())
    );
    // Stops on the wrong side, leverage out of range or changed under an open position.
    let wrong = Stops {
        stop_loss: Some(dec!(50100)),
        ..Stops::default()
    };
    assert!(matches!(
        v.set_stops("BTCUSDT", wrong).await.unwrap_err(),
        VenueError::InvalidRequest(_)
    ));
    let beyond_liq = Stops {
        stop_loss: Some(dec!(45000)),
        ..Stops::default()
    };
    assert!(matches!(
        v.set_stops("BTCUSDT", beyond_liq).await.unwrap_err(),
        VenueError::InvalidRequest(_)
    ));
    assert!(matches!(
        v.set_leverage("BTCUSDT", 101).await.unwrap_err(),
        VenueError::LeverageNotAllowed { .. }
    ));
    assert!(matches!(
        v.set_leverage("BTCUSDT", 5).await.unwrap_err(),
        VenueError::LeverageNotAllowed { .. }
    ));
    assert_eq!(
        v.set_stops("XRPUSDT", Stops::default()).await.unwrap_err(),
        VenueError::NoPosition("XRPUSDT".into())
    );

    assert_eq!(w.exchange.snapshot(USER).unwrap(), before);
    assert_eq!(w.journal.count(), saves);
}

#[tokio::test]
async fn a_restart_from_the_journal_loses_nothing() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    v.submit_market_order(order("o", Side::Buy, dec!(0.2), false))
        .await
        .unwrap();
    v.set_stops(
        "BTCUSDT",
        Stops {
            stop_loss: Some(dec!(48000)),
            take_profit: Some(dec!(60000)),
            trailing: Some(Trailing {
                distance: dec!(500),
                activation_price: Some(dec!(51000)),
            }),
        },
    )
    .await
    .unwrap();
    w.btc(dec!(52000)); // trailing active, stop 51500
    v.submit_market_order(order("half", Side::Sell, dec!(0.1), true))
        .await
        .unwrap();
    let positions_before = v.positions().await.unwrap();
    let wallet_before = v.wallet().await.unwrap();

    // Everything the engine would have stored, through JSON as a database would.
    let json = serde_json::to_string(&w.journal.latest(USER)).unwrap();
    let restored: AccountSnapshot = serde_json::from_str(&json).unwrap();

    let market = Arc::new(ManualMarket::new(instruments(), T0 + 60_000));
    market.set_price("BTCUSDT", dec!(52000));
    let journal = Arc::new(Recorder::default());
    let exchange = PaperExchange::new(market.clone(), no_slippage(), journal)
        .await
        .unwrap();
    exchange.restore([(USER, restored)]);
    let v2 = exchange.account(USER);
    let mut events = v2.subscribe();
    assert_eq!(v2.positions().await.unwrap(), positions_before);
    assert_eq!(v2.wallet().await.unwrap(), wallet_before);
    assert_eq!(positions_before[0].trailing_stop_price, Some(dec!(51500)));

    // The processed client order id survived: a retry does not open again.
    let retry = v2
        .submit_market_order(order("o", Side::Buy, dec!(0.2), false))
        .await
        .unwrap();
    assert_eq!(retry.order_id, "paper-1");
    assert_eq!(v2.positions().await.unwrap()[0].qty, dec!(0.1));

    // The trailing stop carries on from its saved best price.
    market.set_price("BTCUSDT", dec!(52400));
    exchange.process_pending();
    assert_eq!(
        v2.positions().await.unwrap()[0].trailing_stop_price,
        Some(dec!(51900))
    );
    market.set_price("BTCUSDT", dec!(51900));
    exchange.process_pending();
    let c = &closes(&mut events)[0];
    assert_eq!(c.reason, CloseReason::Trailing);
    assert_eq!(c.exit_price, dec!(51900));
    // pnl 190; fee 5190 x 0.00055 = 2.8545; the other half of the opening fee 2.75.
    assert_eq!(c.realized_pnl, dec!(184.3955));
}

#[tokio::test]
async fn accounts_are_separate() {
    let w = World::new(no_slippage()).await;
    let a = w.exchange.account(1);
    let b = w.exchange.account(2);
    a.submit_market_order(order("same-id", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    b.submit_market_order(order("same-id", Side::Sell, dec!(0.2), false))
        .await
        .unwrap();
    assert_eq!(a.positions().await.unwrap()[0].side, PositionSide::Long);
    assert_eq!(b.positions().await.unwrap()[0].side, PositionSide::Short);
    assert_eq!(a.wallet().await.unwrap().wallet_balance, dec!(9997.25));
    assert_eq!(b.wallet().await.unwrap().wallet_balance, dec!(9994.5));
}

#[tokio::test]
async fn spawned_exchange_follows_the_feed_on_its_own() {
    let w = World::new(no_slippage()).await;
    let v = w.venue();
    let mut events = v.subscribe();
    v.submit_market_order(order("o", Side::Buy, dec!(0.1), false))
        .await
        .unwrap();
    let stops = Stops {
        take_profit: Some(dec!(50500)),
        ..Stops::default()
    };
    v.set_stops("BTCUSDT", stops).await.unwrap();
    let task = w.exchange.spawn();
    w.market.set_price("BTCUSDT", dec!(50600));
    let close = loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
            .await
            .expect("a close within 10 s")
            .unwrap();
        if let VenueEvent::PositionClosed(c) = event {
            break c;
        }
    };
    task.abort();
    assert_eq!(close.reason, CloseReason::TakeProfit);
    assert_eq!(close.exit_price, dec!(50500));
    // After the close the exchange publishes the new wallet: 10000 - 2.75 + 50 - 2.7775.
    let wallet = loop {
        if let VenueEvent::Wallet(w) = events.recv().await.unwrap() {
            break w;
        }
    };
    assert_eq!(wallet.wallet_balance, dec!(10044.4725));
}

#[tokio::test]
async fn funding_settles_at_each_settlement_time_crossed_and_survives_a_restart() {
    use signaldesk_venue::market::funding::{next_settlement, FundingRates, FUNDING_INTERVAL_MS};
    let b = next_settlement(T0);
    let rates = [
        ("BTCUSDT", b, dec!(0.0001)),
        ("BTCUSDT", b + FUNDING_INTERVAL_MS, dec!(-0.0002)),
        ("BTCUSDT", b + 2 * FUNDING_INTERVAL_MS, dec!(0.0003)),
        ("XRPUSDT", b, dec!(0.0002)),
    ];
    let mut table = std::collections::BTreeMap::<String, std::collections::BTreeMap<_, _>>::new();
    for (symbol, at, rate) in rates {
        table.entry(symbol.into()).or_default().insert(at, rate);
    }
    let funding = FundingRates::Table(Arc::new(table));
    let market = Arc::new(ManualMarket::new(instruments(), T0).with_funding(funding.clone()));
    market.set_price("BTCUSDT", dec!(50000));
    market.set_price("XRPUSDT", dec!(2));
    let journal = Arc::new(Recorder::default());
    let exchange = PaperExchange::new(market.clone(), no_slippage(), journal.clone())
        .await
        .unwrap();
    let v = exchange.account(USER);
    let mut events = v.subscribe();
    v.submit_market_order(order("long", Side::Buy, dec!(0.2), false))
        .await
        .unwrap();
    let xrp_short = OrderRequest {
        symbol: "XRPUSDT".into(),
        ..order("short", Side::Sell, dec!(100), false)
    };
    v.submit_market_order(xrp_short).await.unwrap();
    let before = v.wallet().await.unwrap().wallet_balance;
    let tick = |symbol: &str, at: i64, price: Decimal| {
        market.set_time(at);
        market.set_price(symbol, price);
        exchange.process_pending();
    };
    tick("BTCUSDT", b - 1_000, dec!(50100));
    assert!(v.funding_since("BTCUSDT", 0).await.unwrap().is_empty());
    // The ticks straddle the settlement time: the price at it is the one before.
    tick("BTCUSDT", b + 1_000, dec!(50200));
    // A tick on the settlement time itself settles at its own price.
    tick("XRPUSDT", b, dec!(2.1));
    // Two settlement times at once, both at the price before them.
    tick("BTCUSDT", b + 2 * FUNDING_INTERVAL_MS + 5, dec!(50300));

    let paid: Vec<_> = std::iter::from_fn(|| events.try_recv().ok())
        .filter_map(|e| match e {
            VenueEvent::Funding(f) => Some(f),
            _ => None,
        })
        .collect();
    let summary: Vec<_> = paid
        .iter()
        .map(|f| {
            (
                f.symbol.as_str(),
                f.side,
                f.ts_ms,
                f.mark_price,
                f.rate,
                f.fee,
            )
        })
        .collect();
    let (long, short) = (PositionSide::Long, PositionSide::Short);
    let day = FUNDING_INTERVAL_MS;
    assert_eq!(
        summary,
        vec![
            // 0.2 x 50100 x 0.0001: the long pays.
            ("BTCUSDT", long, b, dec!(50100), dec!(0.0001), dec!(1.002)),
            // 100 x 2.1 x 0.0002: the short receives.
            ("XRPUSDT", short, b, dec!(2.1), dec!(0.0002), dec!(-0.042)),
            // A negative rate: the long receives 0.2 x 50200 x 0.0002.
            (
                "BTCUSDT",
                long,
                b + day,
                dec!(50200),
                dec!(-0.0002),
                dec!(-2.008)
            ),
            (
                "BTCUSDT",
                long,
                b + 2 * day,
                dec!(50200),
                dec!(0.0003),
                dec!(3.012)
            ),
        ]
    );
    assert_eq!(paid[0].funding_id, format!("fund-long-{b}"));
    assert_eq!(paid[1].position_id, "short");
    assert_eq!(paid[0].qty, dec!(0.2));
    let after = v.wallet().await.unwrap().wallet_balance;
    assert_eq!(
        after - before,
        -(dec!(1.002) - dec!(0.042) - dec!(2.008) + dec!(3.012))
    );
    // Nothing is settled twice.
    tick("BTCUSDT", b + 2 * day + 10, dec!(50300));
    assert_eq!(v.funding_since("BTCUSDT", 0).await.unwrap().len(), 3);
    assert_eq!(
        v.funding_since("BTCUSDT", b + 1).await.unwrap(),
        paid[2..].to_vec()
    );

    // A restart from the journal answers the same, and settles on from where it was.
    let json = serde_json::to_string(&journal.latest(USER)).unwrap();
    let restored: AccountSnapshot = serde_json::from_str(&json).unwrap();
    let market2 =
        Arc::new(ManualMarket::new(instruments(), b + 2 * day + 20).with_funding(funding));
    market2.set_price("BTCUSDT", dec!(50300));
    market2.set_price("XRPUSDT", dec!(2.1));
    let exchange2 = PaperExchange::new(
        market2.clone(),
        no_slippage(),
        Arc::new(Recorder::default()),
    )
    .await
    .unwrap();
    exchange2.restore([(USER, restored)]);
    let v2 = exchange2.account(USER);
    assert_eq!(
        v2.funding_since("BTCUSDT", 0).await.unwrap(),
        v.funding_since("BTCUSDT", 0).await.unwrap()
    );
    assert_eq!(
        v2.funding_since("XRPUSDT", 0).await.unwrap(),
        vec![paid[1].clone()]
    );
    assert_eq!(v2.wallet().await.unwrap().wallet_balance, after);
    exchange2.process_pending();
    assert_eq!(v2.funding_since("BTCUSDT", 0).await.unwrap().len(), 3);
}
