//! What a restart of the simulated market costs: generating the warm-up history of the
//! default universe, and that plus replaying 30 market hours of live ticks (a 10-minute run
//! at speed 180) the way `SimulatedMarket::resume` does after a restart. docs/benchmarks.md
//! has the figures.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use signaldesk_venue::market::sim::{SimAnchor, SimConfig, SimulatedMarket};
use signaldesk_venue::market::MarketData;

const WALL: i64 = 1_760_000_000_000;

fn bench(c: &mut Criterion) {
    let config = SimConfig {
        speed: 180.0,
        start_ms: None,
        ..SimConfig::default()
    };
    let anchor = SimAnchor::fresh(&config, WALL);
    let mut group = c.benchmark_group("sim_restart");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("history_default_universe", |b| {
        b.iter(|| SimulatedMarket::resume(config.clone(), &anchor, WALL).now_ms())
    });
    // 10 minutes of wall time at speed 180: 30 market hours, 54,000 ticks of 20 symbols.
    let ten_minutes_later = WALL + 600_000;
    group.bench_function("history_and_30_hours_replayed", |b| {
        b.iter(|| SimulatedMarket::resume(config.clone(), &anchor, ten_minutes_later).now_ms())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
