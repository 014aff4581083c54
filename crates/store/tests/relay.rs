//! Live events between instances (PostgreSQL; skipped without `TEST_DATABASE_URL`): every
//! event another process sends is handed on once and in its order, a large one included,
//! and a listener whose connection is cut off hears what was sent while it was down.

use std::time::Duration;

use signaldesk_store::repo::relay::{EventListener, RelayedEvent};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::Store;

async fn next(listener: &mut EventListener) -> RelayedEvent {
    tokio::time::timeout(Duration::from_secs(10), listener.recv())
        .await
        .expect("an event within 10 s")
        .expect("the listener answers")
}

async fn nothing_more(listener: &mut EventListener) {
    let more = tokio::time::timeout(Duration::from_millis(500), listener.recv()).await;
    assert!(more.is_err(), "no more events: {more:?}");
}

#[tokio::test]
async fn each_event_is_heard_once_in_order_also_across_a_cut_connection() {
    let Some(db) = TestDatabase::postgres().await else {
        eprintln!("TEST_DATABASE_URL is not set: the relay is not tested");
        return;
    };
    let store = Store::connect(&db.url).await.unwrap();
    let mut listener = store.event_listener("me#1").await.unwrap();
    let mut own = store.event_sender("me#1").await.unwrap();
    let mut other = store.event_sender("them#2").await.unwrap();

    own.send("mine").await.unwrap();
    other.send("e1").await.unwrap();
    let big = "x".repeat(20_000);
    other.send(&big).await.unwrap();
    let heard = next(&mut listener).await;
    assert_eq!((heard.origin.as_str(), heard.seq), ("them#2", 1));
    assert_eq!(heard.payload, "e1", "this process's own events are skipped");
    let heard = next(&mut listener).await;
    assert_eq!(
        (heard.seq, heard.payload.len()),
        (2, big.len()),
        "a large event is read from its row"
    );

    // The listening connection dies; events are sent before it is made again.
    let pid = listener.backend_pid().await.unwrap();
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    sqlx::query("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .execute(&mut admin)
        .await
        .unwrap();
    for i in 3..=7 {
        other.send(&format!("e{i}")).await.unwrap();
    }
    own.send("mine again").await.unwrap();
    for i in 3..=7 {
        let heard = next(&mut listener).await;
        assert_eq!((heard.seq, heard.payload), (i, format!("e{i}")));
    }
    other.send("e8").await.unwrap();
    let heard = next(&mut listener).await;
    assert_eq!(
        (heard.seq, heard.payload.as_str()),
        (8, "e8"),
        "nothing twice"
    );
    assert_ne!(
        listener.backend_pid().await.unwrap(),
        pid,
        "a new connection"
    );
    nothing_more(&mut listener).await;

    // A new process's events start from 1; old rows are deleted after the keep time only.
    let mut restarted = store.event_sender("them#3").await.unwrap();
    restarted.send("after a restart").await.unwrap();
    let heard = next(&mut listener).await;
    assert_eq!((heard.origin.as_str(), heard.seq), ("them#3", 1));
    assert_eq!(store.prune_event_outbox().await.unwrap(), 0);
}
