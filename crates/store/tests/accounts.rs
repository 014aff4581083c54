//! The store's account repositories, run against SQLite always and PostgreSQL when
//! `TEST_DATABASE_URL` is set.

use signaldesk_store::repo::sessions::Credential;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{Store, StoreError};

async fn stores() -> Vec<(TestDatabase, Store)> {
    TestDatabase::all_connected().await
}

#[tokio::test]
async fn users_are_unique_and_found_by_name_and_id() {
    for (db, store) in stores().await {
        assert_eq!(store.user_count().await.unwrap(), 0, "{}", db.label);
        let alice = store.create_user("alice", "hash-a", 1_000).await.unwrap();
        assert_eq!(alice.username, "alice");
        assert_eq!(alice.created_at, 1_000);
        let again = store.create_user("alice", "hash-b", 2_000).await;
        assert!(
            matches!(again, Err(StoreError::Conflict(_))),
            "{}: {again:?}",
            db.label
        );
        assert_eq!(store.user_count().await.unwrap(), 1);
        let by_name = store.user_by_username("alice").await.unwrap().unwrap();
        assert_eq!(by_name, alice);
        assert_eq!(store.user_by_id(alice.id).await.unwrap().unwrap(), alice);
        assert!(store.user_by_username("bob").await.unwrap().is_none());
    }
}

#[tokio::test]
async fn sessions_resolve_by_token_or_cookie_and_end_on_password_change() {
    for (db, store) in stores().await {
        let user = store.create_user("carol", "h", 1).await.unwrap();
        let session = store
            .create_session(user.id, "tok", Some("cook"), 10)
            .await
            .unwrap();
        let (by_token, u) = store
            .session_by_credential(Credential::TokenHash("tok"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(by_token, session, "{}", db.label);
        assert_eq!(u.username, "carol");
        let (by_cookie, _) = store
            .session_by_credential(Credential::CookieHash("cook"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(by_cookie.id, session.id);
        assert!(store
            .session_by_credential(Credential::TokenHash("cook"))
            .await
            .unwrap()
            .is_none());

        store.touch_session(session.id, 99).await.unwrap();
        let (touched, _) = store
            .session_by_credential(Credential::TokenHash("tok"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(touched.last_used_at, 99);

        store.set_password("carol", "h2").await.unwrap();
        assert!(store
            .session_by_credential(Credential::TokenHash("tok"))
            .await
            .unwrap()
            .is_none());
        assert_eq!(
            store
                .user_by_username("carol")
                .await
                .unwrap()
                .unwrap()
                .password_hash,
            "h2"
        );
        assert!(matches!(
            store.set_password("nobody", "x").await,
            Err(StoreError::NotFound)
        ));
    }
}

#[tokio::test]
async fn stale_sessions_are_deleted_and_logout_deletes_one() {
    for (db, store) in stores().await {
        let user = store.create_user("dave", "h", 1).await.unwrap();
        let old = store
            .create_session(user.id, "old", None, 10)
            .await
            .unwrap();
        let fresh = store
            .create_session(user.id, "new", None, 500)
            .await
            .unwrap();
        assert_eq!(
            store.delete_sessions_unused_since(100).await.unwrap(),
            1,
            "{}",
            db.label
        );
        assert!(store
            .session_by_credential(Credential::TokenHash("old"))
            .await
            .unwrap()
            .is_none());
        assert!(old.id < fresh.id);
        store.delete_session(fresh.id).await.unwrap();
        assert!(store
            .session_by_credential(Credential::TokenHash("new"))
            .await
            .unwrap()
            .is_none());
    }
}

#[tokio::test]
async fn sqlite_file_is_created_with_its_folder_and_uses_wal() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let path = db.url.trim_start_matches("sqlite://");
    assert!(std::path::Path::new(path).exists());
    store.create_user("erin", "h", 1).await.unwrap();
    store.close().await;
    // Reopening the same file keeps the data and re-running migrations is a no-op.
    let again = Store::connect(&db.url).await.unwrap();
    assert!(again.user_by_username("erin").await.unwrap().is_some());
    again.close().await;
    let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    let (mode,): (String,) = sqlx::query_as("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
}
