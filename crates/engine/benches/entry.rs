//! The whole entry path in process: a signal into a running worker's state machine until
//! the position is open on the paper venue with its stops, the trade stored in SQLite. This
//! is the decision plus its two store writes (PENDING, then OPEN) and the venue's calls;
//! docs/benchmarks.md sets it beside the pure decision of `core/benches/decision.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use criterion::{criterion_group, criterion_main, Criterion};
use rust_decimal_macros::dec;
use signaldesk_core::market::Instrument;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::signal::TradeSignal;
use signaldesk_engine::journal::BotJournal;
use signaldesk_engine::trading::{TradingDeps, TradingWorker};
use signaldesk_engine::EventBus;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, StoredSignal};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};

fn signal(rating: &str) -> StoredSignal {
    StoredSignal {
        id: 1,
        user_id: 1,
        symbol: "BTCUSDT".into(),
        rating: rating.into(),
        total: None,
        ma: None,
        osc: None,
        candle_time: 0,
        source: "ratings".into(),
        created_at: Utc::now().timestamp_millis(),
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (_db, store, user, mut worker) = rt.block_on(async {
        let db = TestDatabase::sqlite();
        let store = Store::connect(&db.url).await.unwrap();
        let user = store.create_user("bench", "h", 0).await.unwrap().id;
        let record = store.settings_or_default(user, 0).await.unwrap();
        let settings = BotSettings {
            use_trailing_stop: true,
            ..BotSettings::default()
        };
        store
            .update_settings(user, record.id, &settings, 0)
            .await
            .unwrap();
        let market = Arc::new(ManualMarket::new(
            vec![Instrument {
                symbol: "BTCUSDT".into(),
                tick_size: dec!(0.1),
                qty_step: dec!(0.001),
                min_qty: dec!(0.001),
                min_notional: dec!(5),
                max_leverage: 100,
            }],
            0,
        ));
        market.set_price("BTCUSDT", dec!(30000));
        // Fees of thousands of round trips must not empty the wallet.
        let config = PaperConfig {
            starting_balance: dec!(1_000_000_000),
            ..PaperConfig::default()
        };
        let exchange = PaperExchange::new(market.clone(), config, Arc::new(NoJournal))
            .await
            .unwrap();
        let bus = EventBus::new();
        let deps = TradingDeps {
            account_venue: signaldesk_core::account::AccountVenue::Paper,
            store: store.clone(),
            ledger: Arc::new(store.clone()),
            journal: BotJournal::new(store.clone(), bus.clone()),
            bus,
            venue: Arc::new(exchange.account(user)),
            market,
            notices: signaldesk_engine::Notifications::disabled(),
            alerts: signaldesk_engine::Alerts::disabled(),
            feed_stale_after: signaldesk_engine::trading::DEFAULT_FEED_STALE_AFTER,
        };
        let worker =
            TradingWorker::new(user, deps, [("BTCUSDT".to_string(), TradeSignal::Neutral)])
                .await
                .unwrap();
        (db, store, user, worker)
    });
    let mut samples = Vec::new();
    c.bench_function("signal_to_open_position_paper_sqlite", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let started = Instant::now();
                    worker.on_signal(&signal("STRONG_BUY"), Utc::now()).await;
                    let took = started.elapsed();
                    total += took;
                    samples.push(took.as_nanos());
                    // Reset outside the measurement: close it and go back to NEUTRAL.
                    let Some(id) = worker.open_trades().next().map(|t| t.id) else {
                        let log = store.recent_logs(user, None, 3).await.unwrap();
                        panic!("no entry: {log:?}");
                    };
                    worker.close_trade(id, Utc::now()).await.unwrap();
                    worker.on_signal(&signal("NEUTRAL"), Utc::now()).await;
                }
                total
            })
        })
    });
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize] / 1000;
    println!(
        "signal_to_open_position_paper_sqlite: {} entries, p50 {} us, p99 {} us",
        samples.len(),
        at(0.5),
        at(0.99)
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(10));
    targets = bench
}
criterion_main!(benches);
