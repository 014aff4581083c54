//! The webhook's kept alerts (`webhook_deliveries` as an outbox), on SQLite always and
//! PostgreSQL when `TEST_DATABASE_URL` is set: a claimed alert waits until acted on, is acted
//! on exactly once (its signal and its mark in one write), survives the duplicate window's
//! clean-up while waiting, and a claim acted on is not given back.

use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{AlertTaken, StoredSignal, WebhookAlert};

const WINDOW: i64 = 10_000;

fn alert(rating: &str, expires_at: i64) -> WebhookAlert {
    WebhookAlert {
        symbol: "BTCUSDT".into(),
        rating: rating.into(),
        expires_at,
    }
}

fn signal(user_id: i64, rating: &str, at: i64) -> StoredSignal {
    StoredSignal {
        id: 0,
        user_id,
        symbol: "BTCUSDT".into(),
        rating: rating.into(),
        total: None,
        ma: None,
        osc: None,
        candle_time: at,
        source: "webhook".into(),
        created_at: at,
    }
}

#[tokio::test]
async fn a_kept_alert_waits_until_acted_on_once() {
    for (_db, store) in TestDatabase::all_connected().await {
        let user = store.create_user("u", "h", 0).await.unwrap().id;
        let t0 = 1_000_000;
        assert!(store
            .claim_webhook_delivery(user, "h1", t0, WINDOW, &alert("BUY", t0 + 300_000))
            .await
            .unwrap());
        assert!(store
            .claim_webhook_delivery(user, "h2", t0 + 1, WINDOW, &alert("SELL", t0 + 1))
            .await
            .unwrap());
        let kept = store.pending_webhook_alerts(user).await.unwrap();
        assert_eq!(
            kept.iter()
                .map(|k| k.body_hash.as_str())
                .collect::<Vec<_>>(),
            ["h1", "h2"],
            "oldest first"
        );
        assert_eq!(kept[0].alert, alert("BUY", t0 + 300_000));
        assert_eq!(kept[0].at, t0);

        // Long after the window, another alert's claim cleans up: the waiting ones stay.
        let later = t0 + 5 * WINDOW;
        assert!(store
            .claim_webhook_delivery(user, "h3", later, WINDOW, &alert("NEUTRAL", later + 1))
            .await
            .unwrap());
        assert_eq!(store.pending_webhook_alerts(user).await.unwrap().len(), 3);

        // Acted on: the signal and the mark together, once.
        let taken = store
            .take_webhook_alert(user, "h1", t0, later, Some(&signal(user, "BUY", later)))
            .await
            .unwrap();
        let AlertTaken::Stored(stored) = taken else {
            panic!("not stored: {taken:?}");
        };
        assert_eq!(stored.rating, "BUY");
        assert!(stored.id > 0);
        let again = store
            .take_webhook_alert(user, "h1", t0, later, Some(&signal(user, "BUY", later)))
            .await
            .unwrap();
        assert_eq!(again, AlertTaken::Gone);
        // A claim time that is not the row's (claimed again since) acts on nothing.
        let stale = store
            .take_webhook_alert(
                user,
                "h3",
                later - 1,
                later,
                Some(&signal(user, "X", later)),
            )
            .await
            .unwrap();
        assert_eq!(stale, AlertTaken::Gone);
        // Expired: only the mark.
        let expired = store
            .take_webhook_alert(user, "h2", t0 + 1, later, None)
            .await
            .unwrap();
        assert_eq!(expired, AlertTaken::Expired);
        let signals = store.recent_signals(user, 10).await.unwrap();
        assert_eq!(signals.len(), 1, "{signals:?}");
        let left = store.pending_webhook_alerts(user).await.unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].body_hash, "h3");

        // A claim acted on is not given back (its copy stays a duplicate within the window),
        // one waiting is.
        store
            .release_webhook_delivery(user, "h1", t0)
            .await
            .unwrap();
        store
            .release_webhook_delivery(user, "h3", later)
            .await
            .unwrap();
        assert!(store.pending_webhook_alerts(user).await.unwrap().is_empty());
        assert!(
            !store
                .claim_webhook_delivery(user, "h1", t0 + 1_000, WINDOW, &alert("BUY", 0))
                .await
                .unwrap(),
            "a copy within the window of one acted on"
        );
        // Past the window the same body is a new alert again.
        assert!(store
            .claim_webhook_delivery(user, "h1", later + 2 * WINDOW, WINDOW, &alert("BUY", 0))
            .await
            .unwrap());
    }
}
