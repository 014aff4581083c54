//! The supervisor against a real SQLite store: flags, tasks, restart and the bot log.

use signaldesk_core::account::{AccountVenue, Exchange};
use std::sync::Arc;

use signaldesk_engine::signals::RatingHub;
mod common;

use signaldesk_engine::{Engine, WorkerState};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{SecretCipher, Store};
use signaldesk_venue::market::manual::ManualMarket;

async fn setup() -> (TestDatabase, Store, i64) {
    let db = TestDatabase::sqlite();
    let store = Store::connect(&db.url).await.unwrap();
    let user = store.create_user("u", "h", 0).await.unwrap();
    (db, store, user.id)
}

/// An engine whose rating hub follows an empty universe (these tests are about control).
async fn supervisor(store: &Store) -> Arc<Engine> {
    let market = Arc::new(ManualMarket::new(Vec::new(), 0));
    let (hub, _task) = RatingHub::start(market.clone(), Vec::new(), 15)
        .await
        .unwrap();
    common::engine(store, market, hub).await
}

async fn messages(store: &Store, user_id: i64) -> Vec<String> {
    let mut logs = store.recent_logs(user_id, None, 100).await.unwrap();
    logs.reverse();
    logs.into_iter().map(|e| e.message).collect()
}

#[tokio::test]
async fn trading_starts_signals_first_on_the_keys_account() {
    let (_db, store, user) = setup().await;
    let sup = supervisor(&store).await;
    let status = sup.supervisor().status(user).await.unwrap();
    assert!(!status.is_bot_running && !status.is_signals_fetching_active);

    let cipher = SecretCipher::random();
    let key = store
        .create_api_key(&cipher, user, ("k", "s"), Exchange::Paper, true, 0)
        .await
        .unwrap();
    store.set_active_api_key(user, key.id).await.unwrap();
    let status = sup.supervisor().start_trading(user).await.unwrap();
    assert!(status.is_bot_running && status.is_signals_fetching_active);
    assert_eq!(status.venue, AccountVenue::Paper);
    assert_eq!(status.signal_worker, WorkerState::Running);
    assert_eq!(status.trading_worker, WorkerState::Running);
    assert!(status.started_at.is_some());

    let status = sup.supervisor().stop_trading(user).await.unwrap();
    assert!(!status.is_bot_running && status.is_signals_fetching_active);
    assert_eq!(status.trading_worker, WorkerState::Stopped);
    assert_eq!(status.signal_worker, WorkerState::Running);
    let status = sup.supervisor().stop_signals(user).await.unwrap();
    assert_eq!(status.signal_worker, WorkerState::Stopped);
    assert_eq!(
        messages(&store, user).await,
        [
            "Signal worker started",
            "Trading worker started",
            "Trading worker stopped",
            "Signal worker stopped"
        ]
    );
}

#[tokio::test]
async fn starting_twice_runs_one_task() {
    let (_db, store, user) = setup().await;
    let sup = supervisor(&store).await;
    sup.supervisor().start_signals(user).await.unwrap();
    sup.supervisor().start_signals(user).await.unwrap();
    sup.shutdown().await;
    let started = messages(&store, user)
        .await
        .iter()
        .filter(|m| *m == "Signal worker started")
        .count();
    assert_eq!(started, 1);
}

#[tokio::test]
async fn a_restart_resumes_what_was_running() {
    let (_db, store, user) = setup().await;
    let cipher = SecretCipher::random();
    let key = store
        .create_api_key(&cipher, user, ("k", "s"), Exchange::Paper, true, 0)
        .await
        .unwrap();
    store.set_active_api_key(user, key.id).await.unwrap();
    let first = supervisor(&store).await;
    first.supervisor().start_trading(user).await.unwrap();
    first.shutdown().await;
    // The flags survive the shutdown.
    let rec = store.settings_of_user(user).await.unwrap().unwrap();
    assert!(rec.is_bot_running && rec.is_signals_fetching_active);

    let second = supervisor(&store).await;
    assert_eq!(second.supervisor().resume().await.unwrap(), 2);
    let status = second.supervisor().status(user).await.unwrap();
    assert_eq!(status.signal_worker, WorkerState::Running);
    assert_eq!(status.trading_worker, WorkerState::Running);
    second.shutdown().await;
}

#[tokio::test]
async fn a_bot_whose_key_went_resumes_on_its_paper_account() {
    let (_db, store, user) = setup().await;
    let cipher = SecretCipher::random();
    let key = store
        .create_api_key(&cipher, user, ("k", "s"), Exchange::Paper, true, 0)
        .await
        .unwrap();
    store.set_active_api_key(user, key.id).await.unwrap();
    let first = supervisor(&store).await;
    first.supervisor().start_trading(user).await.unwrap();
    first.shutdown().await;
    store.delete_api_key(user, key.id).await.unwrap();

    let second = supervisor(&store).await;
    second.supervisor().resume().await.unwrap();
    let status = second.supervisor().status(user).await.unwrap();
    assert!(status.is_bot_running);
    assert_eq!(status.trading_worker, WorkerState::Running);
    assert_eq!(status.venue, AccountVenue::Paper);
    second.shutdown().await;
}
