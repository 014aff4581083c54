//! Books in memory (`Store::in_memory`, a backtest's scratch books): migrated like a file,
//! each store its own database, and still whole after a statement the database refused.

use signaldesk_store::{Store, StoreError};

#[tokio::test]
async fn each_in_memory_store_is_a_database_of_its_own() {
    let first = Store::in_memory().await.unwrap();
    let second = Store::in_memory().await.unwrap();
    let alice = first.create_user("alice", "h", 1).await.unwrap();
    // The same name in the other store is no conflict: nothing is shared between them.
    second.create_user("alice", "h", 2).await.unwrap();
    second.create_user("bob", "h", 3).await.unwrap();
    assert_eq!(first.user_count().await.unwrap(), 1);
    assert_eq!(second.user_count().await.unwrap(), 2);
    assert!(first.user_by_username("bob").await.unwrap().is_none());

    let again = first.create_user("alice", "h", 4).await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
    // The refusal closed nothing: the one connection, which is the database, still holds it.
    assert_eq!(first.user_by_username("alice").await.unwrap(), Some(alice));
    let settings = first.settings_or_default(1, 5).await.unwrap();
    assert_eq!(settings.user_id, 1);
}
