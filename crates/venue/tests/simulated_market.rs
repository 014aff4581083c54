//! The simulated market, stepped by hand: determinism, candle aggregation from the very
//! ticks it published, regimes, and prices that stay positive and on tick.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::market::{Candle, Side};
use signaldesk_venue::market::candles::aggregate;
use signaldesk_venue::market::sim::{
    default_symbols, Resumption, SimAnchor, SimConfig, SimSymbol, SimulatedMarket,
};
use signaldesk_venue::market::{MarketData, MarketEvent};
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::{OrderRequest, Stops, Venue, VenueEvent};

const START: i64 = 1_750_000_500_000; // not on a 15-minute boundary on purpose

fn pick(names: &[&str]) -> Vec<SimSymbol> {
    default_symbols()
        .into_iter()
        .filter(|s| names.contains(&s.instrument.symbol.as_str()))
        .collect()
}

fn small(seed: u64) -> SimConfig {
    SimConfig {
        seed,
        symbols: pick(&["BTCUSDT", "ETHUSDT", "DOGEUSDT"]),
        history_candles: 60,
        start_ms: Some(START),
        ..SimConfig::default()
    }
}

#[tokio::test]
async fn same_seed_same_market() {
    let a = SimulatedMarket::new(small(7));
    let b = SimulatedMarket::new(small(7));
    let c = SimulatedMarket::new(small(8));
    for s in ["BTCUSDT", "ETHUSDT", "DOGEUSDT"] {
        let ha = a.history(s, 15, 60).await.unwrap();
        assert_eq!(ha.len(), 60);
        assert_eq!(ha, b.history(s, 15, 60).await.unwrap());
        assert_ne!(ha, c.history(s, 15, 60).await.unwrap());
    }
    for _ in 0..300 {
        assert_eq!(a.step(), b.step());
    }
    assert_eq!(a.now_ms(), b.now_ms());
    assert_eq!(
        a.history("BTCUSDT", 1, 500).await.unwrap(),
        b.history("BTCUSDT", 1, 500).await.unwrap()
    );
    // A symbol's series does not depend on which other symbols are simulated.
    let alone = SimulatedMarket::new(SimConfig {
        symbols: pick(&["ETHUSDT"]),
        ..small(7)
    });
    assert_eq!(
        alone.history("ETHUSDT", 15, 60).await.unwrap().len(),
        a.history("ETHUSDT", 15, 60).await.unwrap().len()
    );
}

#[tokio::test]
async fn history_is_closed_candles_oldest_first_ending_now() {
    let m = SimulatedMarket::new(small(1));
    let h = m.history("BTCUSDT", 15, 1000).await.unwrap();
    assert!(h.len() >= 60, "{} candles", h.len());
    for pair in h.windows(2) {
        assert_eq!(pair[1].open_time_ms - pair[0].open_time_ms, 900_000);
    }
    let last = h.last().unwrap();
    assert!(last.open_time_ms + 900_000 <= m.now_ms());
    assert!(last.open_time_ms + 2 * 900_000 > m.now_ms());
    assert_eq!(last.open_time_ms % 900_000, 0);
    assert!(m.history("FOOUSDT", 15, 10).await.is_err());
}

#[tokio::test]
async fn fifteen_minute_candles_aggregate_the_published_ticks() {
    let m = SimulatedMarket::new(small(3));
    let mut ticks: Vec<(i64, Decimal)> = Vec::new();
    let first_live_ms = m.now_ms() + 2000;
    let mut checked = 0;
    for _ in 0..2000 {
        for event in m.step() {
            match event {
                MarketEvent::Tick {
                    symbol,
                    price,
                    ts_ms,
                } if symbol == "ETHUSDT" => ticks.push((ts_ms, price)),
                MarketEvent::CandleClosed {
                    symbol,
                    interval_minutes,
                    candle,
                } if symbol == "ETHUSDT" => {
                    assert_eq!(interval_minutes, 15);
                    let end = candle.open_time_ms + 900_000;
                    if candle.open_time_ms < first_live_ms {
                        continue; // began before the live ticks
                    }
                    let inside: Vec<Decimal> = ticks
                        .iter()
                        .filter(|(t, _)| *t >= candle.open_time_ms && *t < end)
                        .map(|(_, p)| *p)
                        .collect();
                    assert_eq!(inside.len(), 450); // one tick every 2 s
                    assert_eq!(candle.open, inside[0]);
                    assert_eq!(candle.close, *inside.last().unwrap());
                    assert_eq!(candle.high, inside.iter().copied().max().unwrap());
                    assert_eq!(candle.low, inside.iter().copied().min().unwrap());
                    // The same candle from the 1-minute history, aggregated.
                    let ones = m.history("ETHUSDT", 1, 15).await.unwrap();
                    assert_eq!(ones[0].open_time_ms, candle.open_time_ms);
                    let agg = aggregate(&ones, 1, 15);
                    assert_eq!(agg, vec![candle.clone()]);
                    let volume: Decimal = ones.iter().map(|c| c.volume).sum();
                    assert_eq!(candle.volume, volume);
                    assert_eq!(m.history("ETHUSDT", 15, 1).await.unwrap(), vec![candle]);
                    checked += 1;
                }
                _ => {}
            }
        }
    }
    assert!(checked >= 3, "checked {checked} candles");
}

/// Kaufman's efficiency ratio: net move over the sum of the moves (1 = a straight line).
fn efficiency(closes: &[Decimal]) -> f64 {
    let net = (closes[closes.len() - 1] - closes[0]).abs();
    let path: Decimal = closes.windows(2).map(|w| (w[1] - w[0]).abs()).sum();
    if path.is_zero() {
        return 0.0;
    }
    (net / path).try_into().unwrap_or(0.0)
}

#[tokio::test]
async fn regimes_give_trending_and_ranging_stretches() {
    // About 10 days of 15-minute candles for three symbols, cut in 6-hour windows.
    let m = SimulatedMarket::new(SimConfig {
        seed: 11,
        symbols: pick(&["BTCUSDT", "SOLUSDT", "LINKUSDT"]),
        history_candles: 1000,
        history_tick_seconds: 15,
        start_ms: Some(START),
        ..SimConfig::default()
    });
    let (mut trending, mut ranging, mut total) = (0, 0, 0);
    for s in ["BTCUSDT", "SOLUSDT", "LINKUSDT"] {
        let closes: Vec<Decimal> = m
            .history(s, 15, 1000)
            .await
            .unwrap()
            .iter()
            .map(|c| c.close)
            .collect();
        for w in closes.chunks_exact(24) {
            let er = efficiency(w);
            total += 1;
            if er >= 0.5 {
                trending += 1;
            }
            if er <= 0.15 {
                ranging += 1;
            }
        }
    }
    // For a driftless random walk a 24-step window has ER >= 0.5 about 5% of the time.
    let (t, r) = (
        trending as f64 / total as f64,
        ranging as f64 / total as f64,
    );
    assert!(t >= 0.15, "trending share {t:.2} of {total}");
    assert!(r >= 0.15, "ranging share {r:.2} of {total}");
}

fn check_candle(c: &Candle, tick: Decimal, step: Decimal) {
    for p in [c.open, c.high, c.low, c.close] {
        assert!(p > Decimal::ZERO);
        assert!((p % tick).is_zero(), "{p} not on tick {tick}");
    }
    assert!(c.low <= c.open.min(c.close) && c.high >= c.open.max(c.close));
    assert!(c.volume >= Decimal::ZERO && (c.volume % step).is_zero());
}

#[tokio::test]
async fn default_universe_prices_stay_positive_and_on_tick() {
    let m = SimulatedMarket::new(SimConfig {
        start_ms: Some(START),
        ..SimConfig::default()
    });
    let instruments = m.instruments().await.unwrap();
    assert!(instruments.len() >= 20);
    let btc = instruments.iter().find(|i| i.symbol == "BTCUSDT").unwrap();
    assert_eq!((btc.tick_size, btc.qty_step), (dec!(0.1), dec!(0.001)));
    for i in &instruments {
        // Warm enough for a 200-period indicator from the start.
        let h = m.history(&i.symbol, 15, 250).await.unwrap();
        assert!(h.len() >= 250, "{}: {} candles", i.symbol, h.len());
        for c in &h {
            check_candle(c, i.tick_size, i.qty_step);
        }
        let start = m.last_price(&i.symbol).await.unwrap();
        assert!(start > Decimal::ZERO);
    }
    for _ in 0..200 {
        for e in m.step() {
            if let MarketEvent::Tick { symbol, price, .. } = e {
                let i = instruments.iter().find(|i| i.symbol == symbol).unwrap();
                assert!(
                    price > Decimal::ZERO && i.is_on_tick(price),
                    "{symbol} {price}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_paper_exchange_follows_the_simulated_market() {
    let sim = Arc::new(SimulatedMarket::new(small(5)));
    let config = PaperConfig {
        slippage_bps: Decimal::ZERO,
        ..PaperConfig::default()
    };
    let exchange = PaperExchange::new(sim.clone(), config, Arc::new(NoJournal))
        .await
        .unwrap();
    let venue = exchange.account(1);
    let mut events = venue.subscribe();
    let fill = venue
        .submit_market_order(OrderRequest {
            client_order_id: "sim-1".into(),
            symbol: "BTCUSDT".into(),
            side: Side::Buy,
            qty: dec!(0.01),
            reduce_only: false,
        })
        .await
        .unwrap();
    assert_eq!(fill.price, sim.last_price("BTCUSDT").await.unwrap());
    // A tight bracket: 0.2% either way, on tick.
    let i = venue.instrument("BTCUSDT").await.unwrap();
    let sl = i.round_price(fill.price * dec!(0.998));
    let tp = i.round_price(fill.price * dec!(1.002));
    venue
        .set_stops(
            "BTCUSDT",
            Stops {
                stop_loss: Some(sl),
                take_profit: Some(tp),
                trailing: None,
            },
        )
        .await
        .unwrap();
    let mut close = None;
    for _ in 0..20_000 {
        sim.step();
        exchange.process_pending();
        while let Ok(e) = events.try_recv() {
            if let VenueEvent::PositionClosed(c) = e {
                close = Some(c);
            }
        }
        if close.is_some() {
            break;
        }
    }
    let c = close.expect("the bracket closes within the simulated hours");
    // Either level, or a gap beyond the stop loss.
    assert!(
        c.exit_price == tp || c.exit_price <= sl,
        "exit {}",
        c.exit_price
    );
    let fees = fill.fee + c.fee;
    let wallet = venue.wallet().await.unwrap();
    assert_eq!(
        wallet.wallet_balance,
        dec!(10000) + (c.exit_price - fill.price) * dec!(0.01) - fees
    );
    assert_eq!(
        c.realized_pnl,
        (c.exit_price - fill.price) * dec!(0.01) - fees
    );
}

#[tokio::test]
async fn spawned_market_runs_on_its_own() {
    let sim = Arc::new(SimulatedMarket::new(SimConfig {
        speed: 600.0,
        ..small(2)
    }));
    let mut rx = sim.subscribe();
    let handle = sim.spawn();
    let event = tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv()).await;
    handle.abort();
    assert!(matches!(event, Ok(Ok(MarketEvent::Tick { .. }))));
}

/// Every symbol's last price and 1- and 15-minute candles.
async fn snapshot(m: &SimulatedMarket) -> Vec<(Decimal, Vec<Candle>, Vec<Candle>)> {
    let mut out = Vec::new();
    for i in m.instruments().await.unwrap() {
        out.push((
            m.last_price(&i.symbol).await.unwrap(),
            m.history(&i.symbol, 1, 2000).await.unwrap(),
            m.history(&i.symbol, 15, 200).await.unwrap(),
        ));
    }
    out
}

const WALL: i64 = 1_760_000_000_000;

#[tokio::test]
async fn a_restarted_market_continues_the_path_of_the_first_run() {
    let config = SimConfig {
        speed: 180.0,
        start_ms: None,
        ..small(21)
    };
    let (anchor, how) = SimAnchor::resume(None, &config, WALL);
    assert_eq!(how, Resumption::Fresh);
    let first = SimulatedMarket::resume(config.clone(), &anchor, WALL);
    assert_eq!(first.now_ms(), anchor.origin_ms);
    // The first run lives 7 minutes and 13 seconds of wall time: about 21.6 market hours.
    let restart_wall = WALL + 433_000;
    let t = anchor.clock.market_at(restart_wall);
    first.advance_to(t);

    let (recorded, how) = SimAnchor::resume(Some(anchor.clone()), &config, restart_wall);
    assert_eq!((&recorded, how), (&anchor, Resumption::Continued));
    let second = SimulatedMarket::resume(config, &recorded, restart_wall);
    assert_eq!(second.now_ms(), first.now_ms());
    assert_eq!(snapshot(&second).await, snapshot(&first).await);
    // And they go on together, candle closes included.
    for _ in 0..1000 {
        assert_eq!(second.step(), first.step());
    }
}

#[tokio::test]
async fn a_new_speed_keeps_market_time_continuous() {
    let slow = SimConfig {
        speed: 60.0,
        start_ms: None,
        ..small(22)
    };
    let (anchor, _) = SimAnchor::resume(None, &slow, WALL);
    let first = SimulatedMarket::resume(slow.clone(), &anchor, WALL);
    let restart_wall = WALL + 300_000;
    first.advance_to(anchor.clock.market_at(restart_wall));

    let fast = SimConfig {
        speed: 180.0,
        ..slow
    };
    let (rebased, how) = SimAnchor::resume(Some(anchor.clone()), &fast, restart_wall);
    assert_eq!(
        how,
        Resumption::SpeedChanged {
            from: 60.0,
            to: 180.0
        }
    );
    assert_eq!(rebased.origin_ms, anchor.origin_ms);
    // At the restart the market time is the old clock's; from then on it runs at 180.
    assert_eq!(
        rebased.clock.market_at(restart_wall),
        anchor.clock.market_at(restart_wall)
    );
    assert_eq!(
        rebased.clock.market_at(restart_wall + 10_000),
        anchor.clock.market_at(restart_wall) + 1_800_000
    );
    let second = SimulatedMarket::resume(fast.clone(), &rebased, restart_wall);
    assert_eq!(second.now_ms(), first.now_ms());
    assert_eq!(snapshot(&second).await, snapshot(&first).await);
    // A third start at the new speed continues the re-based clock.
    let later = restart_wall + 20_000;
    let (again, how) = SimAnchor::resume(Some(rebased.clone()), &fast, later);
    assert_eq!((&again, how), (&rebased, Resumption::Continued));
    first.advance_to(rebased.clock.market_at(later));
    let third = SimulatedMarket::resume(fast, &again, later);
    assert_eq!(snapshot(&third).await, snapshot(&first).await);
}

#[tokio::test]
async fn another_seed_universe_or_interval_or_a_too_old_path_starts_a_new_market() {
    let config = SimConfig {
        start_ms: None,
        ..small(23)
    };
    let (anchor, _) = SimAnchor::resume(None, &config, WALL);
    let later = WALL + 60_000;
    let reseeded = SimConfig {
        seed: 24,
        ..config.clone()
    };
    let (fresh, how) = SimAnchor::resume(Some(anchor.clone()), &reseeded, later);
    assert_eq!(how, Resumption::Replaced { changed: "seed" });
    assert_eq!(fresh.clock.wall_ms, later);
    assert_eq!(fresh.origin_ms, fresh.clock.market_ms);
    let fewer = SimConfig {
        symbols: pick(&["BTCUSDT"]),
        ..config.clone()
    };
    let (_, how) = SimAnchor::resume(Some(anchor.clone()), &fewer, later);
    assert_eq!(how, Resumption::Replaced { changed: "symbols" });
    let hourly = SimConfig {
        interval_minutes: 60,
        ..config.clone()
    };
    let (_, how) = SimAnchor::resume(Some(anchor.clone()), &hourly, later);
    assert_eq!(
        how,
        Resumption::Replaced {
            changed: "interval_minutes"
        }
    );
    // A path older than a start replays: 31 market days at speed 1.
    let much_later = WALL + 31 * 86_400_000;
    let (fresh, how) = SimAnchor::resume(Some(anchor), &config, much_later);
    assert_eq!(how, Resumption::Expired { market_days: 31 });
    assert_eq!(fresh.clock.wall_ms, much_later);
}
