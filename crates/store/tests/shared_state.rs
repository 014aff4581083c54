//! The state several instances share through PostgreSQL (migration 0010): the rate limit rows
//! and the master key check. PostgreSQL only, when `TEST_DATABASE_URL` is set.

use signaldesk_core::account::Exchange;
use signaldesk_store::repo::rate_limits::{Lockouts, Quota};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Backend, SecretCipher, Store, StoreError};

async fn postgres() -> Option<(TestDatabase, Store)> {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: PostgreSQL not tested");
        return None;
    };
    let store = Store::connect(&db.url).await.expect("postgres");
    Some((db, store))
}

const LOCKOUTS: Lockouts = Lockouts {
    first_ms: 1_000,
    max_ms: 60_000,
    kept_for_ms: 900_000,
};

#[tokio::test]
async fn a_quota_allows_the_minute_at_once_then_refuses_with_the_wait() {
    let Some((_db, store)) = postgres().await else {
        return;
    };
    let quota = Quota::per_minute(3);
    assert_eq!(store.rate_limit_count("k", quota).await.unwrap(), Ok(2));
    assert_eq!(store.rate_limit_count("k", quota).await.unwrap(), Ok(1));
    assert_eq!(store.rate_limit_count("k", quota).await.unwrap(), Ok(0));
    let wait = store
        .rate_limit_count("k", quota)
        .await
        .unwrap()
        .unwrap_err();
    assert!((19_000..=20_000).contains(&wait), "{wait}");
    // Refusals count nothing, and other keys have their own quota.
    let again = store
        .rate_limit_count("k", quota)
        .await
        .unwrap()
        .unwrap_err();
    assert!(again <= wait);
    assert_eq!(store.rate_limit_count("other", quota).await.unwrap(), Ok(2));
    // Nothing to sweep while the quotas are in use.
    assert_eq!(store.sweep_rate_limits(900_000).await.unwrap(), 0);
}

#[tokio::test]
async fn failures_past_the_quota_lock_out_longer_each_time_until_cleared() {
    let Some((_db, store)) = postgres().await else {
        return;
    };
    let quota = Quota::per_minute(2);
    store
        .rate_limit_failure("p", quota, LOCKOUTS)
        .await
        .unwrap();
    assert!(store.rate_limit_lockout(&["p"]).await.unwrap() <= 0);
    // The second failure uses the quota up: 1 s; the next ones 2 s, 4 s.
    for expected in [1_000, 2_000, 4_000] {
        store
            .rate_limit_failure("p", quota, LOCKOUTS)
            .await
            .unwrap();
        let wait = store.rate_limit_lockout(&["p", "none"]).await.unwrap();
        assert!(
            wait > expected - 500 && wait <= expected,
            "{wait} for {expected}"
        );
    }
    store.rate_limit_clear_strikes("p").await.unwrap();
    assert!(store.rate_limit_lockout(&["p"]).await.unwrap() <= 0);
    store
        .rate_limit_failure("p", quota, LOCKOUTS)
        .await
        .unwrap();
    let wait = store.rate_limit_lockout(&["p"]).await.unwrap();
    assert!(
        wait > 500 && wait <= 1_000,
        "back to the first delay: {wait}"
    );
    // A quota of one: the first failure locks out already.
    store
        .rate_limit_failure("q", Quota::per_minute(1), LOCKOUTS)
        .await
        .unwrap();
    assert!(store.rate_limit_lockout(&["q"]).await.unwrap() > 500);
}

#[tokio::test]
async fn the_master_key_check_refuses_another_key() {
    let Some((_db, store)) = postgres().await else {
        return;
    };
    let key = SecretCipher::random();
    store.check_master_key(&key).await.unwrap();
    store.check_master_key(&key).await.unwrap();
    let other = store.check_master_key(&SecretCipher::random()).await;
    assert!(matches!(other, Err(StoreError::Corrupt(_))), "{other:?}");
}

/// A database from before the check: its exchange keys tell whether the key is right.
#[tokio::test]
async fn the_first_master_key_check_opens_a_stored_exchange_key() {
    let Some((_db, store)) = postgres().await else {
        return;
    };
    let key = SecretCipher::random();
    let user = store.create_user("alice", "hash", 0).await.unwrap();
    store
        .create_api_key(&key, user.id, ("k", "s"), Exchange::Paper, true, 0)
        .await
        .unwrap();
    let other = store.check_master_key(&SecretCipher::random()).await;
    assert!(matches!(other, Err(StoreError::Corrupt(_))), "{other:?}");
    store.check_master_key(&key).await.unwrap();
}

/// A rolling upgrade: an instance of the old version starts (or restarts) on a database the
/// new version has already migrated further, instead of refusing it.
#[tokio::test]
async fn an_older_version_opens_a_database_migrated_further() {
    for db in TestDatabase::all().await {
        let store = Store::connect(&db.url).await.unwrap();
        let checksum = match store.backend() {
            Backend::Sqlite => "X'00'",
            Backend::Postgres => "decode('00', 'hex')",
        };
        let newer = format!(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES (99999, 'from a newer version', TRUE, {checksum}, 0)"
        );
        store.close().await;
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url)
            .await
            .unwrap();
        sqlx::Executor::execute(&mut conn, newer.as_str())
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", db.label));
        sqlx::Connection::close(conn).await.unwrap();
        let again = Store::connect(&db.url).await;
        assert!(again.is_ok(), "{}: {:?}", db.label, again.err());
    }
}
