//! Bot leases on SQLite always and PostgreSQL when `TEST_DATABASE_URL` is set: one owner at a
//! time, renewals, expiry on the database's clock, and a fencing token that grows with every
//! new tenure.

use std::time::Duration;

use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{LeaseHolder, ProcessPlace, Store, StoreError};

fn place() -> ProcessPlace {
    ProcessPlace {
        host: "test-host".into(),
        pid: i64::from(std::process::id()),
    }
}

/// A new process of instance `name`, registered (only a registered process takes leases).
async fn registered(store: &Store, name: &str) -> LeaseHolder {
    let holder = LeaseHolder::new(name);
    let other = store
        .register_instance(&holder, &place(), 60_000)
        .await
        .unwrap();
    assert_eq!(other, None, "instance {name} is free");
    holder
}

/// Whether renewing `holder`'s leases renewed tenure `token` of `user`'s.
async fn renewed(store: &Store, holder: &LeaseHolder, user: i64, token: i64, ttl_ms: i64) -> bool {
    store
        .renew_leases(holder, ttl_ms)
        .await
        .unwrap()
        .contains(&(user, token))
}

#[tokio::test]
async fn one_owner_at_a_time_and_every_new_tenure_gets_a_larger_token() {
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let label = db.label;
        let (a, b) = (registered(&store, "a").await, registered(&store, "b").await);

        let held = store
            .acquire_lease(user, &a, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(held.token, 1, "{label}");
        assert_eq!(
            store.acquire_lease(user, &b, 60_000).await.unwrap(),
            None,
            "{label}"
        );
        // The owner taking it again keeps its tenure.
        let again = store
            .acquire_lease(user, &a, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.token, 1, "{label}");
        assert!(renewed(&store, &a, user, 1, 60_000).await);
        assert!(!renewed(&store, &b, user, 1, 60_000).await);
        assert!(store.fence(user, 1, "check").await.unwrap(), "{label}");

        // Run out: another instance takes it with the next token; the old tenure is fenced off.
        assert!(renewed(&store, &a, user, 1, 50).await);
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!store.fence(user, 1, "check").await.unwrap(), "{label}");
        assert!(!renewed(&store, &a, user, 1, 60_000).await, "{label}");
        let taken = store
            .acquire_lease(user, &b, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(taken.token, 2, "{label}");
        assert!(!store.fence(user, 1, "check").await.unwrap(), "{label}");
        assert!(!renewed(&store, &a, user, 1, 60_000).await, "{label}");
        assert_eq!(
            store.acquire_lease(user, &a, 60_000).await.unwrap(),
            None,
            "{label}"
        );

        // A clean release lets the other take it at once, with the next token again.
        store.release_lease(user, &a, 1).await.unwrap();
        assert!(
            store.fence(user, 2, "check").await.unwrap(),
            "a stale release is ignored ({label})"
        );
        store.release_lease(user, &b, 2).await.unwrap();
        let again = store
            .acquire_lease(user, &a, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.token, 3, "{label}");

        // Leases are per user.
        let other = store.create_user("v", "h", 0).await.unwrap().id;
        let first = store
            .acquire_lease(other, &b, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.token, 1, "{label}");
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
                        .acquire_lease(
                            user,
                            &registered(&store, &format!("i{round}-{i}")).await,
                            60_000,
                        )
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
            // Let it run out so the next round races for a free lease.
            let (owner, live) = store.lease_owner(user).await.unwrap().unwrap();
            assert!(live && owner.starts_with(&format!("i{round}-")), "{owner}");
            let instance = owner.split('#').next().unwrap();
            let holder = LeaseHolder {
                instance: instance.to_string(),
                process: owner.clone(),
            };
            store
                .release_lease(user, &holder, owner_token)
                .await
                .unwrap();
            assert_eq!(store.lease_owner(user).await.unwrap(), Some((owner, false)));
        }
    }
}

/// A process restarted under the same instance id takes its dead predecessor's leases at once,
/// as a new tenure; another instance id still waits for them to run out.
#[tokio::test]
async fn a_restarted_instance_takes_its_own_leases_at_once() {
    for (db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let before = registered(&store, "a").await;
        let after = LeaseHolder::new("a");
        assert_ne!(before, after);
        let first = store
            .acquire_lease(user, &before, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            store
                .acquire_lease(user, &registered(&store, "b").await, 60_000)
                .await
                .unwrap(),
            None,
            "{}",
            db.label
        );
        // The predecessor is gone (killed): the new process takes its registration.
        assert!(
            store
                .take_over_instance(&after, &place(), &before.process, 60_000)
                .await
                .unwrap(),
            "{}",
            db.label
        );
        let second = store
            .acquire_lease(user, &after, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(second.token, first.token + 1, "{}", db.label);
        assert!(!renewed(&store, &before, user, first.token, 60_000).await);
    }
}

/// A fence records an action only while its tenure holds; the log keeps each tenure's actions
/// in the order they were taken.
#[tokio::test]
async fn fences_record_actions_only_under_the_current_tenure() {
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let (a, b) = (registered(&store, "a").await, registered(&store, "b").await);
        assert!(
            !store.fence(user, 1, "order").await.unwrap(),
            "no lease yet ({label})"
        );
        let first = store
            .acquire_lease(user, &a, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert!(
            store.fence(user, first.token, "order").await.unwrap(),
            "{label}"
        );
        store.release_lease(user, &a, first.token).await.unwrap();
        assert!(
            !store.fence(user, first.token, "late").await.unwrap(),
            "{label}"
        );
        let second = store
            .acquire_lease(user, &b, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert!(
            !store.fence(user, first.token, "stale").await.unwrap(),
            "{label}"
        );
        assert!(
            store.fence(user, second.token, "stops").await.unwrap(),
            "{label}"
        );

        let log = store.fence_log(user).await.unwrap();
        let seen: Vec<_> = log
            .iter()
            .map(|e| (e.token, e.owner.clone(), e.action.as_str()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (first.token, a.process.clone(), "order"),
                (second.token, b.process.clone(), "stops"),
            ],
            "{label}"
        );
        assert!(log[0].at <= log[1].at, "{label}");
    }
}

/// A worker's store under a lease (PostgreSQL): its writes and transactions go through while
/// the tenure holds and are refused, writing nothing, once it ended.
#[tokio::test]
async fn a_fenced_store_writes_only_under_its_tenure() {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: fenced writes not tested");
        return;
    };
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap().id;
    let holder = registered(&store, "a").await;
    let lease = store
        .acquire_lease(user, &holder, 60_000)
        .await
        .unwrap()
        .unwrap();
    let fenced = store.fenced(user, lease.token);
    fenced.set_password("u", "h2").await.unwrap();
    let flags = signaldesk_store::RunFlags {
        signals_active: Some(true),
        ..Default::default()
    };
    store.settings_or_default(user, 0).await.unwrap();
    fenced.set_run_flags(user, flags).await.unwrap();

    store
        .release_lease(user, &holder, lease.token)
        .await
        .unwrap();
    let late = signaldesk_store::RunFlags {
        signals_active: Some(false),
        ..Default::default()
    };
    assert!(matches!(
        fenced.set_run_flags(user, late).await,
        Err(StoreError::LeaseEnded)
    ));
    assert!(matches!(
        fenced.set_password("u", "h3").await,
        Err(StoreError::LeaseEnded)
    ));
    assert!(
        store
            .settings_or_default(user, 0)
            .await
            .unwrap()
            .is_signals_fetching_active
    );
    assert_eq!(
        store
            .user_by_username("u")
            .await
            .unwrap()
            .unwrap()
            .password_hash,
        "h2"
    );
    // Reads are not fenced.
    assert!(fenced.user_by_username("u").await.unwrap().is_some());
}

/// Two processes given one instance id: the second is refused its registration while the
/// first renews it, and takes no lease, neither a free one nor its namesake's. Once the
/// first stopped renewing, the second takes the id and the first can renew nothing.
#[tokio::test]
async fn a_second_process_with_an_instance_id_in_use_takes_no_lease() {
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let free = store.create_user("v", "h", 0).await.unwrap().id;
        let first = registered(&store, "a").await;
        let lease = store
            .acquire_lease(user, &first, 60_000)
            .await
            .unwrap()
            .unwrap();

        let second = LeaseHolder::new("a");
        let found = store
            .register_instance(&second, &place(), 60_000)
            .await
            .unwrap()
            .expect("the id is in use");
        assert_eq!(found.process, first.process, "{label}");
        assert_eq!(found.place, place(), "{label}");
        assert!(
            found.seen_ms_ago >= 0 && found.expires_in_ms > 50_000,
            "{label}: {found:?}"
        );
        assert_eq!(
            store.acquire_lease(user, &second, 60_000).await.unwrap(),
            None,
            "{label}"
        );
        assert_eq!(
            store.acquire_lease(free, &second, 60_000).await.unwrap(),
            None,
            "{label}"
        );
        assert!(store
            .renew_leases(&second, 60_000)
            .await
            .unwrap()
            .is_empty());
        assert!(
            renewed(&store, &first, user, lease.token, 60_000).await,
            "{label}"
        );

        assert!(store.renew_instance(&first, 50).await.unwrap(), "{label}");
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert_eq!(
            store
                .register_instance(&second, &place(), 60_000)
                .await
                .unwrap(),
            None,
            "{label}"
        );
        assert!(
            !store.renew_instance(&first, 60_000).await.unwrap(),
            "{label}"
        );
        assert!(
            !renewed(&store, &first, user, lease.token, 60_000).await,
            "{label}"
        );
        let taken = store
            .acquire_lease(user, &second, 60_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(taken.token, lease.token + 1, "{label}");

        // A clean stop frees the id at once.
        store.deregister_instance(&second).await.unwrap();
        registered(&store, "a").await;
    }
}
