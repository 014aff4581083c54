//! `candles fetch` against the fake Bybit (which pages, refuses and fails as its docs say),
//! on every database: paging backwards in 1,000s, a resumed fetch asks only for what is
//! missing, a stored day is not fetched again, minutes Bybit lacks are counted, a passing
//! fault is retried and a refusal is not.

use std::time::Duration;

use chrono::{TimeZone, Utc};
use rust_decimal::Decimal;
use signaldesk_backtest::fetch::fetch_candles;
use signaldesk_core::market::Candle;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, Fault};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::Store;
use signaldesk_venue::bybit::http::BybitHttpClient;
use signaldesk_venue::market::sim::default_symbols;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 1440 * MINUTE_MS;
const KLINE: &str = "/v5/market/kline";

fn start_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis()
}

/// Three days of BTC minutes, but for the ten Bybit has no trade in (minutes 1,000 to 1,009).
fn history() -> Vec<Candle> {
    (0..3 * 1440)
        .filter(|m| !(1000..1010).contains(m))
        .map(|m| {
            let price = Decimal::from(30_000 + m % 97);
            Candle {
                open_time_ms: start_ms() + m * MINUTE_MS,
                open: price,
                high: price + Decimal::ONE,
                low: price - Decimal::ONE,
                close: price,
                volume: Decimal::from(m),
            }
        })
        .collect()
}

async fn fake() -> FakeBybit {
    let instruments = default_symbols()
        .into_iter()
        .map(|s| s.instrument)
        .collect();
    let fake = FakeBybit::start(FakeConfig::new(instruments))
        .await
        .unwrap();
    fake.add_klines("BTCUSDT", &history());
    fake
}

async fn databases() -> Vec<TestDatabase> {
    let mut all = vec![TestDatabase::sqlite()];
    all.extend(TestDatabase::postgres().await);
    all
}

fn kline_requests(fake: &FakeBybit) -> u32 {
    fake.stats().requests.get(KLINE).copied().unwrap_or(0)
}

async fn fetch(
    fake: &FakeBybit,
    store: &Store,
    from_ms: i64,
    to_ms: i64,
) -> Result<signaldesk_backtest::fetch::Fetched, signaldesk_backtest::BacktestError> {
    let client = BybitHttpClient::new(&fake.rest_url(), Duration::from_secs(5)).unwrap();
    let mut seen = Vec::new();
    let done = fetch_candles(
        &client,
        store,
        "BTCUSDT",
        from_ms,
        to_ms,
        Duration::ZERO,
        |have, total| {
            seen.push((have, total));
        },
    )
    .await;
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    done
}

#[tokio::test]
async fn a_fetch_pages_back_stores_every_minute_once_and_resumes_with_what_is_missing() {
    for db in databases().await {
        let store = Store::connect(&db.url).await.unwrap();
        let fake = fake().await;
        let (from, to) = (start_ms(), start_ms() + 3 * DAY_MS);

        let first = fetch(&fake, &store, from, to).await.unwrap();
        assert_eq!(first.stored_before, 0);
        assert_eq!(first.stored_now, 3 * 1440 - 10);
        assert_eq!(first.missing, 10, "the minutes Bybit has no candle for");
        // 4,310 candles newest first in pages of 1,000: the fifth reaches the first minute.
        assert_eq!(first.requests, 5);
        assert_eq!(kline_requests(&fake) as usize, first.requests);
        assert_eq!(
            store.candles_between("BTCUSDT", from, to).await.unwrap(),
            history()
        );

        // Resumed: only the ten missing minutes are asked for, once.
        let again = fetch(&fake, &store, from, to).await.unwrap();
        assert_eq!(
            (again.stored_before, again.stored_now, again.missing),
            (4310, 0, 10)
        );
        assert_eq!(again.requests, 1);
    }
}

#[tokio::test]
async fn a_stored_day_is_not_fetched_again_and_gaps_around_it_are_filled() {
    for db in databases().await {
        let store = Store::connect(&db.url).await.unwrap();
        let fake = fake().await;
        let day_two: Vec<Candle> = history()
            .into_iter()
            .filter(|c| {
                c.open_time_ms >= start_ms() + DAY_MS && c.open_time_ms < start_ms() + 2 * DAY_MS
            })
            .collect();
        store.save_candles("BTCUSDT", &day_two).await.unwrap();

        let done = fetch(&fake, &store, start_ms(), start_ms() + 3 * DAY_MS)
            .await
            .unwrap();
        assert_eq!(done.stored_before, 1440);
        assert_eq!(done.stored_now, 2 * 1440 - 10);
        // Day three: 1,440 in two pages; day one: 1,430 in two pages. Nothing of day two.
        assert_eq!(done.requests, 4);
        let stored = store
            .candles_between("BTCUSDT", start_ms(), start_ms() + 3 * DAY_MS)
            .await
            .unwrap();
        assert_eq!(stored, history());
    }
}

#[tokio::test]
async fn a_passing_fault_is_tried_again_and_a_refusal_stops_the_fetch() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let fake = fake().await;
    let (from, to) = (start_ms(), start_ms() + DAY_MS);

    fake.fault_next(KLINE, Fault::Status(502));
    fake.fault_next(KLINE, Fault::RetCode(10006, "Too many visits!".into()));
    let done = fetch(&fake, &store, from, to).await.unwrap();
    assert_eq!(done.stored_now, 1430);
    assert_eq!(kline_requests(&fake), 2 + done.requests as u32);

    fake.fault_next(KLINE, Fault::RetCode(10001, "params error: symbol".into()));
    let refused = fetch(&fake, &store, from, start_ms() + 2 * DAY_MS).await;
    let error = refused.expect_err("a refusal is not retried").to_string();
    assert!(
        error.contains("BTCUSDT") && error.contains("10001"),
        "{error}"
    );
}

#[tokio::test]
async fn the_fake_refuses_what_bybit_refuses() {
    let fake = fake().await;
    let client = reqwest::Client::new();
    for (query, code) in [
        // market/kline defaults a missing category to linear; a wrong one is refused.
        ("category=futures&symbol=BTCUSDT&interval=1", 10001),
        ("category=linear&interval=1", 10001),
        ("category=linear&symbol=BTCUSDT&interval=7", 10001),
        ("category=linear&symbol=NOPEUSDT&interval=1", 10001),
        ("category=linear&symbol=BTCUSDT&interval=1&limit=x", 10001),
    ] {
        let url = format!("{}{KLINE}?{query}", fake.rest_url());
        let body: serde_json::Value = client.get(url).send().await.unwrap().json().await.unwrap();
        assert_eq!(body["retCode"], code, "{query}: {body}");
    }
    // limit above 1,000 gives 1,000, newest first.
    let url = format!(
        "{}{KLINE}?category=linear&symbol=BTCUSDT&interval=1&limit=5000",
        fake.rest_url()
    );
    let body: serde_json::Value = client.get(url).send().await.unwrap().json().await.unwrap();
    let list = body["result"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 1000);
    let first: i64 = list[0][0].as_str().unwrap().parse().unwrap();
    let second: i64 = list[1][0].as_str().unwrap().parse().unwrap();
    assert!(first > second, "newest first");
}

const FUNDING: &str = "/v5/market/funding/history";

#[tokio::test]
async fn funding_history_is_paged_back_in_200s_stored_once_and_resumed_with_what_is_missing() {
    use signaldesk_backtest::fetch::fetch_funding;
    use signaldesk_venue::market::funding::FUNDING_INTERVAL_MS;
    let start = Utc
        .with_ymd_and_hms(2026, 6, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis();
    // 100 days of settlements but for two Bybit has none of.
    let rates: Vec<(i64, Decimal)> = (0..300)
        .filter(|n| !(150..152).contains(n))
        .map(|n| (start + n * FUNDING_INTERVAL_MS, Decimal::new(n - 100, 6)))
        .collect();
    for db in databases().await {
        let store = Store::connect(&db.url).await.unwrap();
        let fake = fake().await;
        fake.add_funding_history("BTCUSDT", &rates);
        let client = BybitHttpClient::new(&fake.rest_url(), Duration::from_secs(5)).unwrap();
        let requests = || fake.stats().requests.get(FUNDING).copied().unwrap_or(0) as usize;
        let to = start + 100 * DAY_MS;

        // The last 30 days first: 90 settlements in one request.
        let recent = fetch_funding(
            &client,
            &store,
            "BTCUSDT",
            to - 30 * DAY_MS,
            to,
            Duration::ZERO,
        )
        .await
        .unwrap();
        assert_eq!(
            (recent.stored_before, recent.stored_now, recent.requests),
            (0, 90, 1)
        );

        // The whole period: only the 70 days before them, newest first, 200 then 8.
        let all = fetch_funding(&client, &store, "BTCUSDT", start, to, Duration::ZERO)
            .await
            .unwrap();
        assert_eq!(
            (all.stored_before, all.stored_now, all.requests),
            (90, 208, 2)
        );
        assert_eq!(requests(), 3);
        assert_eq!(
            store
                .funding_rates_between("BTCUSDT", start, to)
                .await
                .unwrap(),
            rates
        );

        // Resumed: only the two settlements Bybit lacks are asked for, once.
        let again = fetch_funding(&client, &store, "BTCUSDT", start, to, Duration::ZERO)
            .await
            .unwrap();
        assert_eq!(
            (again.stored_before, again.stored_now, again.requests),
            (298, 0, 1)
        );
    }
}
