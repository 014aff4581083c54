//! Signal-to-order decision time: what the trading worker computes between hearing a signal
//! and sending the order (transition, side, trading window, sizing against every limit,
//! stop loss and trailing stop). Criterion gives the mean; the p50/p99 of single decisions,
//! measured one by one, are printed after it for docs/benchmarks.md.

use std::hint::black_box;
use std::time::Instant;

use chrono::{TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::market::{Instrument, PositionSide};
use signaldesk_core::settings::BotSettings;
use signaldesk_core::signal::TradeSignal;
use signaldesk_core::trading::{
    entry_forbidden, entry_side, is_entry_transition, plan_entry, stop_loss_price, trailing_plan,
    AccountView, EntryPlan,
};

fn decide(
    settings: &BotSettings,
    instrument: &Instrument,
    account: &AccountView,
    price: Decimal,
    now: chrono::DateTime<Utc>,
) -> Option<(EntryPlan, Decimal)> {
    if !is_entry_transition(Some(TradeSignal::Neutral), TradeSignal::StrongBuy) {
        return None;
    }
    let side = entry_side(TradeSignal::StrongBuy, settings.reverse_mode)?;
    if entry_forbidden(settings, now).is_some() {
        return None;
    }
    let plan = plan_entry(
        settings,
        instrument,
        account,
        side,
        settings.max_trade_usdt,
        price,
    )
    .ok()?;
    let stop = stop_loss_price(
        PositionSide::Long,
        price,
        settings.initial_stop_loss_pct,
        instrument,
    );
    black_box(trailing_plan(side, price, settings, instrument));
    Some((plan, stop))
}

fn fixtures() -> (BotSettings, Instrument, AccountView) {
    let settings = BotSettings {
        // The slowest realistic case: both windows on, in a zone with daylight saving.
        user_timezone: "America/New_York".into(),
        forbidden_hours_enabled: true,
        forbidden_hours: vec![[23, 1], [6, 8]],
        forbidden_days_enabled: true,
        forbidden_days: vec![5],
        ..BotSettings::default()
    };
    let instrument = Instrument {
        symbol: "BTCUSDT".into(),
        tick_size: dec!(0.1),
        qty_step: dec!(0.001),
        min_qty: dec!(0.001),
        min_notional: dec!(5),
        max_leverage: 100,
    };
    let account = AccountView {
        open_trades: 1,
        margin_in_use: dec!(100),
        symbol_has_position: false,
        available_balance: dec!(9800),
        max_slippage: dec!(0.0002),
    };
    (settings, instrument, account)
}

fn bench(c: &mut Criterion) {
    let (settings, instrument, account) = fixtures();
    let now = Utc.with_ymd_and_hms(2026, 11, 23, 15, 0, 0).unwrap();
    let price = dec!(91234.5);
    assert!(decide(&settings, &instrument, &account, price, now).is_some());
    c.bench_function("signal_to_order_decision", |b| {
        b.iter(|| {
            decide(
                black_box(&settings),
                &instrument,
                &account,
                black_box(price),
                now,
            )
        })
    });

    // One decision at a time, for the tail.
    let mut samples: Vec<u128> = (0..200_000)
        .map(|i| {
            let p = price + Decimal::from(i % 100);
            let started = Instant::now();
            black_box(decide(&settings, &instrument, &account, p, now));
            started.elapsed().as_nanos()
        })
        .collect();
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize];
    println!(
        "signal_to_order_decision single decisions: p50 {} ns, p99 {} ns, p99.9 {} ns, max {} ns",
        at(0.5),
        at(0.99),
        at(0.999),
        samples[samples.len() - 1]
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
