//! Degraded mode in the store: an unreachable database (SQLite out of pages or read-only,
//! PostgreSQL refusing connections) fails with `StoreError::Unavailable` and turns the health
//! flag down; the next successful statement turns it up, without reconnecting by hand. A
//! constraint violation stays a conflict and leaves the flag alone.

use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{LogLevel, Store, StoreError};

/// A message longer than a page, so storing it needs new pages.
fn long_message() -> String {
    "x".repeat(20_000)
}

async fn sqlite_store() -> (TestDatabase, Store) {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.expect("connect");
    (db, store)
}

#[tokio::test]
async fn sqlite_out_of_pages_is_unavailable_until_a_write_succeeds() {
    let (_db, store) = sqlite_store().await;
    let user = store.create_user("ann", "h", 0).await.unwrap();
    // No free pages left, and the file may not grow: the next new page is SQLITE_FULL.
    store.on_every_connection("VACUUM").await.unwrap();
    store
        .on_every_connection("PRAGMA max_page_count = 1")
        .await
        .unwrap();

    let err = store
        .append_log(user.id, LogLevel::Info, &long_message(), 1)
        .await
        .expect_err("the file is full");
    assert!(err.is_unavailable(), "SQLITE_FULL is an outage: {err:?}");
    assert!(err.to_string().contains("full"), "{err}");
    assert!(!store.health().is_up());
    assert_eq!(store.health().episodes(), 1);

    // Reading works on a full disk, but proves nothing about writes: still degraded.
    assert!(store
        .recent_logs(user.id, None, 10)
        .await
        .unwrap()
        .is_empty());
    assert!(!store.check_health(std::time::Duration::from_secs(2)).await);

    store
        .on_every_connection("PRAGMA max_page_count = 1073741823")
        .await
        .unwrap();
    store
        .append_log(user.id, LogLevel::Info, &long_message(), 2)
        .await
        .expect("room again");
    assert!(store.health().is_up(), "a successful write ends the outage");
    assert_eq!(store.health().episodes(), 1);
}

#[tokio::test]
async fn sqlite_read_only_is_unavailable_and_a_conflict_is_not() {
    let (_db, store) = sqlite_store().await;
    store.create_user("ann", "h", 0).await.unwrap();
    assert!(matches!(
        store.create_user("ann", "h", 0).await,
        Err(StoreError::Conflict(_))
    ));
    assert!(store.health().is_up(), "a conflict is not an outage");

    store
        .on_every_connection("PRAGMA query_only = 1")
        .await
        .unwrap();
    let err = store
        .create_user("bob", "h", 0)
        .await
        .expect_err("read-only");
    assert!(
        err.is_unavailable(),
        "SQLITE_READONLY is an outage: {err:?}"
    );
    assert!(!store.health().is_up());

    store
        .on_every_connection("PRAGMA query_only = 0")
        .await
        .unwrap();
    store.create_user("bob", "h", 0).await.unwrap();
    assert!(store.health().is_up());
}

#[tokio::test]
async fn postgres_refusing_connections_is_unavailable_until_it_accepts_again() {
    let Some(db) = TestDatabase::postgres_database().await else {
        eprintln!("TEST_DATABASE_URL is unset: the PostgreSQL outage test did not run");
        return;
    };
    let store = Store::connect(&db.url).await.expect("connect");
    let user = store.create_user("ann", "h", 0).await.unwrap();

    db.allow_connections(false).await;
    let err = store
        .append_log(user.id, LogLevel::Info, "during", 1)
        .await
        .expect_err("the database refuses connections");
    assert!(err.is_unavailable(), "{err:?}");
    assert!(!store.health().is_up());
    let started = std::time::Instant::now();
    assert!(!store.check_health(std::time::Duration::from_secs(2)).await);
    assert!(started.elapsed() < std::time::Duration::from_secs(3));

    db.allow_connections(true).await;
    assert!(store.check_health(std::time::Duration::from_secs(2)).await);
    store
        .append_log(user.id, LogLevel::Info, "after", 2)
        .await
        .expect("reconnected by itself");
    assert_eq!(store.health().episodes(), 1);
    store.close().await;
}
