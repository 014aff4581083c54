//! The Telegram poller's row on SQLite always and PostgreSQL when `TEST_DATABASE_URL` is set:
//! one poller at a time, an update claimed once whoever asks, and the offset kept across
//! processes.

use std::time::Duration;

use signaldesk_core::settings::BotSettings;
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::LeaseHolder;

#[tokio::test]
async fn one_poller_at_a_time_and_each_update_is_claimed_once() {
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let (a, b) = (LeaseHolder::new("a"), LeaseHolder::new("b"));
        let first = store.take_telegram_poller(&a, 60_000).await.unwrap();
        assert_eq!(first.map(|t| t.next_offset), Some(0), "{label}");
        assert_eq!(
            store.take_telegram_poller(&b, 60_000).await.unwrap(),
            None,
            "{label}: another instance polls"
        );
        assert!(store.claim_telegram_update(&a, 500, 60_000).await.unwrap());
        assert!(
            !store.claim_telegram_update(&a, 500, 60_000).await.unwrap(),
            "{label}: claimed twice"
        );
        assert!(
            !store.claim_telegram_update(&a, 499, 60_000).await.unwrap(),
            "{label}: an older update after a newer one"
        );
        assert!(
            !store.claim_telegram_update(&b, 501, 60_000).await.unwrap(),
            "{label}: a process without the lease claims nothing"
        );
        assert!(store.claim_telegram_update(&a, 501, 60_000).await.unwrap());

        // A later process of the same instance id (the first one died) takes over at once
        // and goes on from the stored offset; the dead one's claims are refused from then on.
        let a2 = LeaseHolder::new("a");
        let tenure = store.take_telegram_poller(&a2, 60_000).await.unwrap();
        assert_eq!(tenure.map(|t| t.next_offset), Some(502), "{label}");
        assert!(!store.claim_telegram_update(&a, 502, 60_000).await.unwrap());
        assert!(!store.renew_telegram_poller(&a, 60_000).await.unwrap());
        assert!(store.renew_telegram_poller(&a2, 60_000).await.unwrap());

        // A clean stop lets another instance in at once; so does a lease run out.
        store.release_telegram_poller(&a2).await.unwrap();
        let taken = store.take_telegram_poller(&b, 50).await.unwrap();
        assert_eq!(taken.map(|t| t.next_offset), Some(502), "{label}");
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!store.renew_telegram_poller(&b, 60_000).await.unwrap());
        assert!(store
            .take_telegram_poller(&a2, 60_000)
            .await
            .unwrap()
            .is_some());

        store.reset_telegram_offset(&a2).await.unwrap();
        assert!(
            store.claim_telegram_update(&a2, 7, 60_000).await.unwrap(),
            "{label}: after a reset any update id is new"
        );
    }
}

#[tokio::test]
async fn a_chat_id_finds_the_users_whose_settings_name_it() {
    for (db, store) in TestDatabase::all_connected().await {
        let label = db.label;
        let mut ids = Vec::new();
        for (name, chat) in [("ann", "1001"), ("bob", " 1002 "), ("cat", "")] {
            let user = store.create_user(name, "h", 0).await.unwrap().id;
            let record = store.settings_or_default(user, 0).await.unwrap();
            let settings = BotSettings {
                telegram_id: chat.into(),
                ..BotSettings::default()
            };
            store
                .update_settings(user, record.id, &settings, 0)
                .await
                .unwrap();
            ids.push(user);
        }
        let find = |chat: &'static str| {
            let store = store.clone();
            async move { store.users_with_telegram_id(chat).await.unwrap() }
        };
        assert_eq!(find("1001").await, vec![ids[0]], "{label}");
        assert_eq!(find("1002").await, vec![ids[1]], "{label}");
        assert_eq!(find("999").await, Vec::<i64>::new(), "{label}");
        assert_eq!(
            find("").await,
            Vec::<i64>::new(),
            "{label}: blank is nobody"
        );
    }
}
