//! Bot leases on SQLite always and PostgreSQL when `TEST_DATABASE_URL` is set: one owner at a
//! time, renewals, expiry on the database's clock, and a fencing token that grows with every
//! new tenure.

use std::time::Duration;

use signaldesk_store::test_support::TestDatabase;

#[tokio::test]
async fn one_owner_at_a_time_and_every_new_tenure_gets_a_larger_token() {
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let label = db.label;

        let a = store
            .acquire_lease(user, "a", 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(a.token, 1, "{label}");
        assert_eq!(
            store.acquire_lease(user, "b", 60_000).await.unwrap(),
            None,
            "{label}"
        );
        // The owner taking it again keeps its tenure.
        let again = store
            .acquire_lease(user, "a", 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.token, 1, "{label}");
        assert!(store
            .renew_lease(user, "a", 1, 60_000)
            .await
            .unwrap()
            .is_some());
        assert!(store
            .renew_lease(user, "b", 1, 60_000)
            .await
            .unwrap()
            .is_none());
        assert!(store.lease_holds(user, 1).await.unwrap(), "{label}");

        // Run out: another instance takes it with the next token; the old tenure is fenced off.
        assert!(store.renew_lease(user, "a", 1, 50).await.unwrap().is_some());
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!store.lease_holds(user, 1).await.unwrap(), "{label}");
        assert!(
            store
                .renew_lease(user, "a", 1, 60_000)
                .await
                .unwrap()
                .is_none(),
            "{label}"
        );
        let b = store
            .acquire_lease(user, "b", 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(b.token, 2, "{label}");
        assert!(!store.lease_holds(user, 1).await.unwrap(), "{label}");
        assert!(
            store
                .renew_lease(user, "a", 1, 60_000)
                .await
                .unwrap()
                .is_none(),
            "{label}"
        );
        assert_eq!(
            store.acquire_lease(user, "a", 60_000).await.unwrap(),
            None,
            "{label}"
        );

        // A clean release lets the other take it at once, with the next token again.
        store.release_lease(user, "a", 1).await.unwrap();
        assert!(
            store.lease_holds(user, 2).await.unwrap(),
            "a stale release is ignored ({label})"
        );
        store.release_lease(user, "b", 2).await.unwrap();
        let a = store
            .acquire_lease(user, "a", 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(a.token, 3, "{label}");

        // Leases are per user.
        let other = store.create_user("v", "h", 0).await.unwrap().id;
        let b = store
            .acquire_lease(other, "b", 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(b.token, 1, "{label}");
    }
}

/// Many instances racing for one free lease: exactly one wins each round.
#[tokio::test]
async fn racing_instances_get_one_lease() {
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        for round in 0..5 {
            let racers = (0..8).map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .acquire_lease(user, &format!("i{round}-{i}"), 60_000)
                        .await
                        .unwrap()
                })
            });
            let won: Vec<_> = futures::future::join_all(racers)
                .await
                .into_iter()
                .filter_map(Result::unwrap)
                .collect();
            assert_eq!(won.len(), 1, "{}: round {round}: {won:?}", db.label);
            assert_eq!(won[0].token, round + 1, "{}", db.label);
            let owner_token = won[0].token;
            // Hand it back so the next round races for a free lease.
            let owner = store.lease_owner(user).await.unwrap().unwrap();
            store
                .release_lease(user, &owner, owner_token)
                .await
                .unwrap();
        }
    }
}
