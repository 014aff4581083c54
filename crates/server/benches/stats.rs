//! `/api/stats/?period=all` and `?period=month` over 1,000,000 closed trades of one user
//! (`Store::closed_rollup` brought up to date, then `Rollup::period_stats` in the user's zone),
//! on SQLite and, when `TEST_DATABASE_URL` is set, PostgreSQL.
//!
//! The SQLite history is seeded once into `target/bench-stats/stats.db` and reused; the
//! PostgreSQL one into a `bench_stats` schema of `TEST_DATABASE_URL`'s database, also kept.

use signaldesk_core::account::AccountVenue;
use std::path::PathBuf;
use std::time::Duration;

use chrono::Utc;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use signaldesk_core::stats::Period;
use signaldesk_store::Store;
use sqlx::any::AnyPoolOptions;
use sqlx::Row;

const TRADES: i64 = 1_000_000;
const PER_INSERT: i64 = 1_000;
const USER: &str = "bench-stats";

fn sqlite_url() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-stats");
    std::fs::create_dir_all(&dir).unwrap();
    format!("sqlite://{}/stats.db", dir.display())
}

/// The bench user's id, seeding its million trades the first time (one transaction,
/// multi-row INSERTs of literal values).
async fn seeded(url: &str, store: &Store) -> i64 {
    let user = match store.user_by_username(USER).await.unwrap() {
        Some(u) => u.id,
        None => store.create_user(USER, "not-a-hash", 0).await.unwrap().id,
    };
    sqlx::any::install_default_drivers();
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .connect(url)
        .await
        .unwrap();
    let have: i64 = sqlx::query("SELECT COUNT(*) AS n FROM trades WHERE user_id = $1")
        .bind(user)
        .fetch_one(&pool)
        .await
        .unwrap()
        .try_get("n")
        .unwrap();
    if have == TRADES {
        // The rollup may have been filled by migration 0007's backfill after the last
        // ANALYZE: without statistics PostgreSQL sorts 70,000 rows instead of hashing them.
        if url.starts_with("postgres") {
            sqlx::query("ANALYZE trade_rollup")
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
        return user;
    }
    let started = std::time::Instant::now();
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("DELETE FROM trades WHERE user_id = $1")
        .bind(user)
        .execute(&mut *tx)
        .await
        .unwrap();
    // Two years of closes, one every 63 s; pnl from -10.00 to +10.00.
    let start_ms: i64 = 1_700_000_000_000;
    for chunk in 0..TRADES / PER_INSERT {
        let mut sql = String::from(
            "INSERT INTO trades (user_id, symbol, side, status, client_order_id, leverage, \
             margin, qty, open_qty, closed_qty, exit_value, pnl, fees, volume, tp_step, \
             close_reason, created_at, opened_at, closed_at) VALUES ",
        );
        for k in 0..PER_INSERT {
            let i = chunk * PER_INSERT + k;
            let closed_at = start_ms + i * 63_000;
            let cents = (i * 7919) % 2001 - 1000;
            let pnl = format!(
                "{}{}.{:02}",
                if cents < 0 { "-" } else { "" },
                cents.abs() / 100,
                cents.abs() % 100
            );
            if k > 0 {
                sql.push(',');
            }
            sql.push_str(&format!(
                "({user},'BTCUSDT','long','CLOSED','bench-{user}-{i}',10,'100','0.01','0',\
                 '0.01','300','{pnl}','0.1','600',0,'stop_loss',{c},{c},{closed_at})",
                c = closed_at - 600_000
            ));
        }
        sqlx::query(&sql).execute(&mut *tx).await.unwrap();
    }
    tx.commit().await.unwrap();
    if url.starts_with("postgres") {
        sqlx::query("ANALYZE trades").execute(&pool).await.unwrap();
        sqlx::query("ANALYZE trade_rollup")
            .execute(&pool)
            .await
            .unwrap();
    } else {
        sqlx::query("ANALYZE").execute(&pool).await.unwrap();
    }
    eprintln!("seeded {TRADES} trades in {:?} ({url})", started.elapsed());
    pool.close().await;
    user
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut backends = vec![("sqlite", sqlite_url())];
    if let Ok(base) = std::env::var("TEST_DATABASE_URL") {
        rt.block_on(async {
            sqlx::any::install_default_drivers();
            let pool = AnyPoolOptions::new().connect(&base).await.unwrap();
            sqlx::query("CREATE SCHEMA IF NOT EXISTS bench_stats")
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        });
        let sep = if base.contains('?') { '&' } else { '?' };
        backends.push((
            "postgres",
            format!("{base}{sep}options=-c%20search_path%3Dbench_stats"),
        ));
    }
    let tz = chrono_tz::Europe::Moscow;
    let mut group = c.benchmark_group("stats_all_1m");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (name, url) in backends {
        let store = rt.block_on(Store::connect(&url)).unwrap();
        let user = rt.block_on(seeded(&url, &store));
        group.bench_function(BenchmarkId::new("whole", name), |b| {
            b.to_async(&rt).iter(|| async {
                let rollup = store
                    .closed_rollup(user, AccountVenue::Paper)
                    .await
                    .unwrap();
                let s = rollup.period_stats(Period::All, Utc::now(), tz);
                assert_eq!(s.total_trades, TRADES as u64);
            })
        });
        // A month of the history's last year (the history ends in 2025): a custom period.
        let month = Period::parse(Some("custom"), Some("2025-08-01"), Some("2025-08-31")).unwrap();
        group.bench_function(BenchmarkId::new("month", name), |b| {
            b.to_async(&rt).iter(|| async {
                let rollup = store
                    .closed_rollup(user, AccountVenue::Paper)
                    .await
                    .unwrap();
                rollup.period_stats(month, Utc::now(), tz)
            })
        });
        rt.block_on(store.close());
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
