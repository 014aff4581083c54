//! Stored 1-minute candles in their binary day rows (migration 0029): every value comes back
//! exactly (odd ticks, scales of their own, gaps), a save merges into the stored days, and
//! 0016's text rows are moved into day rows when the store connects. SQLite always,
//! PostgreSQL too when `TEST_DATABASE_URL` is set.

use std::borrow::Cow;
use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::market::Candle;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Backend, Store, StoreError};
use sqlx::migrate::Migrator;
use sqlx::Connection;

const MINUTE: i64 = 60_000;
const DAY: i64 = 86_400_000;
/// 2026-01-01 00:00 UTC.
const START: i64 = 1_767_225_600_000;

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn candle(at: i64, o: &str, h: &str, l: &str, c: &str, v: &str) -> Candle {
    Candle {
        open_time_ms: at,
        open: d(o),
        high: d(h),
        low: d(l),
        close: d(c),
        volume: d(v),
    }
}

/// The candles as text: equal text means equal value and scale.
fn text(candles: &[Candle]) -> Vec<String> {
    candles
        .iter()
        .map(|c| {
            format!(
                "{},{},{},{},{},{}",
                c.open_time_ms, c.open, c.high, c.low, c.close, c.volume
            )
        })
        .collect()
}

/// Two days and a bit, with gaps, odd ticks and values whose scales differ.
fn history() -> Vec<Candle> {
    let mut out = Vec::new();
    for m in 0..(2 * 1_440 + 30) {
        if m % 7 == 3 || (100..160).contains(&m) {
            continue; // gaps, one of an hour
        }
        let at = START + m * MINUTE;
        let base = 60_000 + (m * 37 % 500);
        let c = match m % 5 {
            0 => candle(
                at,
                &format!("{base}.1"),
                &format!("{base}.5"),
                &format!("{}", base - 1),
                &format!("{base}.10"),
                "12.345",
            ),
            // not a whole number of 0.1 ticks
            1 => candle(
                at,
                &format!("{base}.1234567"),
                &format!("{base}.9"),
                &format!("{base}"),
                &format!("{base}.25"),
                "0",
            ),
            2 => candle(
                at,
                "0.000001",
                "0.0000010",
                "0.0000009",
                "0.000001",
                "1000000000",
            ),
            _ => candle(
                at,
                &format!("{base}"),
                &format!("{base}"),
                &format!("{base}"),
                &format!("{base}"),
                &format!("{}", m * 11),
            ),
        };
        out.push(c);
    }
    out
}

#[tokio::test]
async fn candles_come_back_exactly_with_their_gaps_and_ranges() {
    for (db, store) in TestDatabase::all_connected().await {
        let all = history();
        store.save_candles("BTCUSDT", &all).await.unwrap();
        let end = START + 3 * DAY;
        let read = store.candles_between("BTCUSDT", START, end).await.unwrap();
        assert_eq!(text(&read), text(&all), "{}", db.label);
        // Ranges that cut days, gaps and nothing.
        for (from, to) in [
            (START + 5 * MINUTE, START + DAY + 7 * MINUTE),
            (START + 100 * MINUTE, START + 160 * MINUTE),
            (START + DAY - MINUTE, START + DAY + MINUTE),
            (START - DAY, START + 1),
            (end, end + DAY),
        ] {
            let want: Vec<Candle> = all
                .iter()
                .filter(|c| (from..to).contains(&c.open_time_ms))
                .cloned()
                .collect();
            let got = store.candles_between("BTCUSDT", from, to).await.unwrap();
            assert_eq!(text(&got), text(&want), "{} {from} {to}", db.label);
            let times: Vec<i64> = want.iter().map(|c| c.open_time_ms).collect();
            assert_eq!(
                store.candle_times("BTCUSDT", from, to).await.unwrap(),
                times
            );
            let bounds = times.first().copied().zip(times.last().copied());
            assert_eq!(
                store.candle_bounds("BTCUSDT", from, to).await.unwrap(),
                bounds,
                "{} {from} {to}",
                db.label
            );
            let before = all.iter().rev().find(|c| c.open_time_ms < from).cloned();
            assert_eq!(
                text(&Vec::from_iter(
                    store.candle_before("BTCUSDT", from).await.unwrap()
                )),
                text(&Vec::from_iter(before)),
                "{} {from}",
                db.label
            );
        }
        // A symbol of its own.
        assert!(store
            .candles_between("ETHUSDT", START, end)
            .await
            .unwrap()
            .is_empty());
        assert_eq!(
            store.candle_bounds("ETHUSDT", START, end).await.unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn a_save_replaces_its_minutes_and_keeps_the_rest_of_the_day() {
    for (db, store) in TestDatabase::all_connected().await {
        let first: Vec<Candle> = (0..10)
            .map(|m| candle(START + m * MINUTE, "1", "2", "0.5", "1.5", "10"))
            .collect();
        store.save_candles("WIFUSDT", &first).await.unwrap();
        // Minutes 5..15 again with other prices, plus one the day after.
        let mut second: Vec<Candle> = (5..15)
            .map(|m| candle(START + m * MINUTE, "3.25", "4", "3", "3.5", "20.5"))
            .collect();
        second.push(candle(START + DAY + 3 * MINUTE, "9", "9", "9", "9", "9"));
        store.save_candles("WIFUSDT", &second).await.unwrap();
        // Saved twice: nothing changes.
        store.save_candles("WIFUSDT", &second).await.unwrap();
        let mut want = first[..5].to_vec();
        want.extend(second.iter().cloned());
        let got = store
            .candles_between("WIFUSDT", START, START + 2 * DAY)
            .await
            .unwrap();
        assert_eq!(text(&got), text(&want), "{}", db.label);

        // A candle off the minute stores nothing of its save.
        let off = vec![
            candle(START + 20 * MINUTE, "1", "1", "1", "1", "1"),
            candle(START + 21 * MINUTE + 1, "1", "1", "1", "1", "1"),
        ];
        let refused = store.save_candles("WIFUSDT", &off).await;
        assert!(
            matches!(refused, Err(StoreError::Invalid(_))),
            "{refused:?}"
        );
        let again = store
            .candles_between("WIFUSDT", START, START + 2 * DAY)
            .await
            .unwrap();
        assert_eq!(text(&again), text(&want), "{}", db.label);
    }
}

/// A database migrated up to 0028, with text candle rows as 0016 stored them.
async fn migrated_to_0028(db: &TestDatabase) -> String {
    let (url, source) = if db.url.starts_with("sqlite:") {
        let path = db.url.trim_start_matches("sqlite://");
        std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
        (
            format!("{}?mode=rwc", db.url),
            sqlx::migrate!("./migrations/sqlite"),
        )
    } else {
        (db.url.clone(), sqlx::migrate!("./migrations/postgres"))
    };
    let before: Vec<_> = source
        .migrations
        .iter()
        .filter(|m| m.version <= 28)
        .cloned()
        .collect();
    let migrator = Migrator {
        migrations: Cow::Owned(before),
        ..source
    };
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    migrator.run(&mut conn).await.unwrap();
    url
}

#[tokio::test]
async fn the_text_rows_of_0016_move_into_day_rows() {
    for db in TestDatabase::all().await {
        let url = migrated_to_0028(&db).await;
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        let old = history();
        let mut rows: Vec<(String, i64, [String; 5])> = old
            .iter()
            .map(|c| {
                let v = [c.open, c.high, c.low, c.close, c.volume].map(|x| x.to_string());
                ("BTCUSDT".to_string(), c.open_time_ms, v)
            })
            .collect();
        // Text as written by hand: trailing zeros kept.
        rows.push((
            "XRPUSDT".into(),
            START,
            [
                "0.50".into(),
                "0.5100".into(),
                "0.49".into(),
                "0.5".into(),
                "100.0".into(),
            ],
        ));
        // No place in a day: left where it is.
        rows.push((
            "XRPUSDT".into(),
            START + 1,
            ["1".into(), "1".into(), "1".into(), "1".into(), "1".into()],
        ));
        for (symbol, at, v) in &rows {
            sqlx::query("INSERT INTO candles (symbol, open_time, open, high, low, close, volume) VALUES ($1, $2, $3, $4, $5, $6, $7)")
                .bind(symbol)
                .bind(*at)
                .bind(&v[0])
                .bind(&v[1])
                .bind(&v[2])
                .bind(&v[3])
                .bind(&v[4])
                .execute(&mut conn)
                .await
                .unwrap();
        }
        conn.close().await.unwrap();

        let store = Store::connect(&db.url).await.unwrap();
        let moved = store
            .candles_between("BTCUSDT", START, START + 3 * DAY)
            .await
            .unwrap();
        assert_eq!(text(&moved), text(&old), "{}", db.label);
        let xrp = store
            .candles_between("XRPUSDT", START, START + DAY)
            .await
            .unwrap();
        assert_eq!(text(&xrp), [format!("{START},0.50,0.5100,0.49,0.5,100.0")]);
        let left: Vec<i64> = {
            let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
            let rows = sqlx::query("SELECT open_time FROM candles")
                .fetch_all(&mut conn)
                .await
                .unwrap();
            rows.iter()
                .map(|r| sqlx::Row::try_get(r, "open_time").unwrap())
                .collect()
        };
        assert_eq!(left, [START + 1], "{}", db.label);
        // Connecting again moves nothing twice.
        drop(store);
        let again = Store::connect(&db.url).await.unwrap();
        assert_eq!(again.backend() == Backend::Sqlite, db.label == "sqlite");
        let still = again
            .candles_between("BTCUSDT", START, START + 3 * DAY)
            .await
            .unwrap();
        assert_eq!(text(&still), text(&old), "{}", db.label);
    }
}
