//! Settings, API keys and bot logs on SQLite always and PostgreSQL when `TEST_DATABASE_URL`
//! is set.

use serde_json::json;
use signaldesk_core::account::Exchange;
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_core::settings::{BotMode, BotSettings};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{LogLevel, RunFlags, SecretCipher, Store, StoreError};

async fn stores() -> Vec<(TestDatabase, Store)> {
    TestDatabase::all_connected().await
}

#[tokio::test]
async fn settings_are_created_with_defaults_once_and_scoped_to_their_user() {
    for (db, store) in stores().await {
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        let first = store.settings_or_default(a.id, 1).await.unwrap();
        assert_eq!(first.settings, BotSettings::default(), "{}", db.label);
        assert!(!first.is_bot_running && !first.is_signals_fetching_active);
        let again = store.settings_or_default(a.id, 2).await.unwrap();
        assert_eq!(again.id, first.id, "one record per user");
        assert!(matches!(
            store
                .create_settings(a.id, &BotSettings::default(), 3)
                .await,
            Err(StoreError::Conflict(_))
        ));
        assert!(store
            .settings_by_id(b.id, first.id)
            .await
            .unwrap()
            .is_none());
        assert!(matches!(
            store
                .update_settings(b.id, first.id, &BotSettings::default(), 3)
                .await,
            Err(StoreError::NotFound)
        ));

        let changed = BotSettings::default()
            .apply(
                json!({"bot_mode": "martingale", "max_total_usdt": "2500.55",
                          "initial_stop_loss_pct": 0.01, "forbidden_hours": [[23, 1]]})
                .as_object()
                .unwrap(),
            )
            .unwrap();
        let saved = store
            .update_settings(a.id, first.id, &changed, 4)
            .await
            .unwrap();
        assert_eq!(saved.settings, changed, "decimals survive storage exactly");
        assert_eq!(saved.settings.bot_mode, BotMode::Martingale);
    }
}

#[tokio::test]
async fn run_flags_persist_and_list_active_bots() {
    for (db, store) in stores().await {
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        store.settings_or_default(a.id, 0).await.unwrap();
        store.settings_or_default(b.id, 0).await.unwrap();
        store
            .set_run_flags(
                a.id,
                RunFlags {
                    bot_running: Some(true),
                    signals_active: Some(true),
                    started_at: Some(77),
                },
            )
            .await
            .unwrap();
        let active = store.active_bots().await.unwrap();
        assert_eq!(active.len(), 1, "{}", db.label);
        assert_eq!(active[0].user_id, a.id);
        assert_eq!(active[0].bot_started_at, Some(77));
        store
            .set_run_flags(
                a.id,
                RunFlags {
                    bot_running: Some(false),
                    ..RunFlags::default()
                },
            )
            .await
            .unwrap();
        let rec = store.settings_of_user(a.id).await.unwrap().unwrap();
        assert!(!rec.is_bot_running && rec.is_signals_fetching_active);
        assert_eq!(rec.bot_started_at, None);
    }
}

#[tokio::test]
async fn api_keys_are_encrypted_scoped_and_singly_active() {
    for (db, store) in stores().await {
        let cipher = SecretCipher::random();
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        let k1 = store
            .create_api_key(
                &cipher,
                a.id,
                ("KEY-ONE", "SECRET-ONE"),
                Exchange::Bybit,
                true,
                1,
            )
            .await
            .unwrap();
        let k2 = store
            .create_api_key(
                &cipher,
                a.id,
                ("KEY-TWO", "SECRET-TWO"),
                Exchange::Bybit,
                false,
                2,
            )
            .await
            .unwrap();
        assert!(!k1.is_active && k1.is_demo && !k2.is_demo, "{}", db.label);
        let listed = store.api_keys_of_user(a.id).await.unwrap();
        assert_eq!(
            listed.iter().map(|k| k.id).collect::<Vec<_>>(),
            vec![k2.id, k1.id]
        );
        assert!(store.api_keys_of_user(b.id).await.unwrap().is_empty());

        store.set_active_api_key(a.id, k1.id).await.unwrap();
        store.set_active_api_key(a.id, k2.id).await.unwrap();
        let active: Vec<_> = store
            .api_keys_of_user(a.id)
            .await
            .unwrap()
            .into_iter()
            .filter(|k| k.is_active)
            .collect();
        assert_eq!(active.len(), 1);
        assert_eq!(active[0].id, k2.id);
        let creds = store
            .active_credentials(&cipher, a.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (creds.api_key.as_str(), creds.api_secret.as_str()),
            ("KEY-TWO", "SECRET-TWO")
        );
        assert!(
            !format!("{creds:?}").contains("SECRET"),
            "Debug hides the secret"
        );

        assert!(matches!(
            store.set_active_api_key(b.id, k1.id).await,
            Err(StoreError::NotFound)
        ));
        assert!(matches!(
            store.delete_api_key(b.id, k1.id).await,
            Err(StoreError::NotFound)
        ));
        store.delete_api_key(a.id, k1.id).await.unwrap();
        assert_eq!(store.api_keys_of_user(a.id).await.unwrap().len(), 1);
        assert!(store
            .active_credentials(&cipher, b.id)
            .await
            .unwrap()
            .is_none());
    }
}

#[tokio::test]
async fn a_keys_reported_permissions_are_kept_for_its_owner_only() {
    for (db, store) in stores().await {
        let cipher = SecretCipher::random();
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        let key = store
            .create_api_key(&cipher, a.id, ("K", "S"), Exchange::Bybit, true, 1)
            .await
            .unwrap();
        assert_eq!(key.permissions, None, "{}: never checked", db.label);
        assert_eq!(key.permissions_checked_at, None);

        let reported = KeyPermissions {
            read_only: false,
            groups: [
                (
                    "ContractTrade".to_string(),
                    vec!["Order".into(), "Position".into()],
                ),
                ("Wallet".to_string(), vec![]),
            ]
            .into_iter()
            .collect(),
            ips: vec!["1.2.3.4".into()],
        };
        store
            .record_key_permissions(a.id, key.id, &reported, 50)
            .await
            .unwrap();
        // Another user's check of the same id changes nothing.
        store
            .record_key_permissions(b.id, key.id, &KeyPermissions::default(), 60)
            .await
            .unwrap();
        let kept = store.api_key(a.id, key.id).await.unwrap().unwrap();
        assert_eq!(kept.permissions.as_ref(), Some(&reported), "{}", db.label);
        assert_eq!(kept.permissions_checked_at, Some(50));
        let listed = store.api_keys_of_user(a.id).await.unwrap();
        assert_eq!(listed[0].permissions.as_ref(), Some(&reported));
    }
}

#[tokio::test]
async fn secrets_are_not_in_the_sqlite_file_in_plaintext() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let cipher = SecretCipher::random();
    let a = store.create_user("a", "h", 0).await.unwrap();
    store
        .create_api_key(
            &cipher,
            a.id,
            ("PLAIN-KEY-123", "PLAIN-SECRET-456"),
            Exchange::Bybit,
            true,
            1,
        )
        .await
        .unwrap();
    store.close().await;
    let path = db.url.trim_start_matches("sqlite://");
    let mut bytes = std::fs::read(path).unwrap();
    if let Ok(wal) = std::fs::read(format!("{path}-wal")) {
        bytes.extend(wal);
    }
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("bot_settings"), "read the real database file");
    assert!(!text.contains("PLAIN-SECRET-456"));
    assert!(!text.contains("PLAIN-KEY-123"));
}

#[tokio::test]
async fn logs_are_newest_first_filtered_and_pruned() {
    for (db, store) in stores().await {
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        for i in 0..5 {
            let level = if i % 2 == 0 {
                LogLevel::Info
            } else {
                LogLevel::Error
            };
            store
                .append_log(a.id, level, &format!("m{i}"), i)
                .await
                .unwrap();
        }
        store
            .append_log(b.id, LogLevel::Info, "other", 9)
            .await
            .unwrap();
        let all = store.recent_logs(a.id, None, 100).await.unwrap();
        assert_eq!(
            all.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(),
            ["m4", "m3", "m2", "m1", "m0"],
            "{}",
            db.label
        );
        let errors = store
            .recent_logs(a.id, Some(LogLevel::Error), 100)
            .await
            .unwrap();
        assert_eq!(
            errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>(),
            ["m3", "m1"]
        );
        assert_eq!(store.recent_logs(a.id, None, 2).await.unwrap().len(), 2);
        assert_eq!(store.prune_logs(a.id, 3).await.unwrap(), 2);
        let kept = store.recent_logs(a.id, None, 100).await.unwrap();
        assert_eq!(
            kept.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(),
            ["m4", "m3", "m2"]
        );
        assert_eq!(store.recent_logs(b.id, None, 100).await.unwrap().len(), 1);
    }
}

#[tokio::test]
async fn paper_accounts_upsert_the_latest_snapshot() {
    for (db, store) in stores().await {
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        store
            .save_paper_account(a.id, "{\"v\":1}", 1)
            .await
            .unwrap();
        store
            .save_paper_account(b.id, "{\"v\":9}", 1)
            .await
            .unwrap();
        store
            .save_paper_account(a.id, "{\"v\":2}", 2)
            .await
            .unwrap();
        assert_eq!(
            store.paper_accounts().await.unwrap(),
            vec![
                (a.id, "{\"v\":2}".to_string()),
                (b.id, "{\"v\":9}".to_string())
            ],
            "{}",
            db.label
        );
    }
}

#[tokio::test]
async fn signals_latest_per_symbol_and_recent() {
    for (db, store) in stores().await {
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        let signal =
            |user_id: i64, symbol: &str, rating: &str, t: i64| signaldesk_store::StoredSignal {
                id: 0,
                user_id,
                symbol: symbol.into(),
                rating: rating.into(),
                total: Some(0.25),
                ma: Some(0.5),
                osc: None,
                candle_time: t,
                source: "ratings".into(),
                created_at: t,
            };
        store
            .insert_signal(&signal(a.id, "ETHUSDT", "BUY", 1))
            .await
            .unwrap();
        store
            .insert_signal(&signal(a.id, "BTCUSDT", "NEUTRAL", 1))
            .await
            .unwrap();
        store
            .insert_signal(&signal(a.id, "ETHUSDT", "STRONG_SELL", 2))
            .await
            .unwrap();
        store
            .insert_signal(&signal(b.id, "BTCUSDT", "STRONG_BUY", 3))
            .await
            .unwrap();
        let latest = store.latest_signal_per_symbol(a.id).await.unwrap();
        let got: Vec<(&str, &str)> = latest
            .iter()
            .map(|s| (s.symbol.as_str(), s.rating.as_str()))
            .collect();
        assert_eq!(
            got,
            [("BTCUSDT", "NEUTRAL"), ("ETHUSDT", "STRONG_SELL")],
            "{}",
            db.label
        );
        assert_eq!(latest[0].total, Some(0.25));
        assert_eq!(latest[0].osc, None);
        let recent = store.recent_signals(a.id, 2).await.unwrap();
        assert_eq!(recent[0].candle_time, 2);
        assert_eq!(recent.len(), 2);
    }
}
