//! `signaldesk history import` on the real binary, on a SQLite file and on PostgreSQL when
//! `TEST_DATABASE_URL` is set (the two write differently: multi-row INSERTs and COPY): a
//! history is written whole (trades, fills, chain, snapshots, the statistics rollup and
//! running figures); a bad file or a second import writes nothing.

use signaldesk_core::account::AccountVenue;
use std::path::Path;

use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{ChainStatus, Store};

use crate::cli::{create_user_command, signaldesk};

fn import(dir: &Path, url: &str, history: &Value) -> std::process::Output {
    let file = dir.join("history.json");
    std::fs::write(&file, history.to_string()).unwrap();
    signaldesk(dir)
        .env("SIGNALDESK_DATABASE_URL", url)
        .args(["history", "import", "--username", "trader", "--file"])
        .arg(&file)
        .output()
        .unwrap()
}

fn history() -> Value {
    json!({
        "chains": [{"key": "c1", "symbol": "ETHUSDT", "status": "CLOSED",
                    "created_at": "2026-11-02T09:00:00Z", "closed_at": "2026-11-02T12:00:00Z"}],
        "trades": [
            {"symbol": "ETHUSDT", "side": "long", "leverage": 10, "margin": "20", "qty": "0.1",
             "entry_price": "2000", "exit_price": "1900", "pnl": "-10.2", "fees": "0.2",
             "opened_at": "2026-11-02T09:00:00Z", "closed_at": "2026-11-02T10:00:00Z",
             "chain": "c1", "chain_step": 1},
            {"symbol": "ethusdt", "side": "short", "leverage": 10, "margin": "40", "qty": "0.2",
             "entry_price": "1900", "exit_price": "1800", "pnl": "19.6", "funding": "-0.015",
             "opened_at": "2026-11-02T10:00:00Z", "closed_at": "2026-11-02T12:00:00Z",
             "chain": "c1", "chain_step": 2},
            {"symbol": "BTCUSDT", "side": "long", "leverage": 5, "margin": "100", "qty": "0.01",
             "entry_price": "50000", "exit_price": "50500", "pnl": "4.5",
             "opened_at": "2026-11-03T08:00:00Z", "closed_at": "2026-11-03T08:20:00Z"}
        ],
        "balance_snapshots": [{"taken_at": "2026-11-03T00:00:00Z", "equity": "10014",
                               "available_balance": "10014", "margin_balance": "10014"}]
    })
}

#[tokio::test]
async fn a_history_file_is_imported_whole_and_only_once() {
    for db in TestDatabase::all().await {
        imported_whole_and_only_once(&db.url).await;
    }
}

async fn imported_whole_and_only_once(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let created = create_user_command(dir.path(), "trader")
        .env("SIGNALDESK_DATABASE_URL", url)
        .output()
        .unwrap();
    assert!(created.status.success(), "{url}");

    // A bad trade anywhere in the file: refused with where and why, nothing written.
    let mut bad = history();
    bad["trades"][2]["status"] = json!("OPEN");
    let out = import(dir.path(), url, &bad);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("trades[2].status must be CLOSED"),
        "{stderr}"
    );
    let mut unknown_chain = history();
    unknown_chain["trades"][0]["chain"] = json!("c9");
    let out = import(dir.path(), url, &unknown_chain);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("trades[0].chain \"c9\" is not in chains")
    );

    let store = Store::connect(url).await.unwrap();
    let user = store.user_by_username("trader").await.unwrap().unwrap().id;
    let everything = |store: Store| async move {
        (
            store
                .closed_rollup(user, AccountVenue::Paper)
                .await
                .unwrap()
                .quarters_between(i64::MIN, i64::MAX)
                .to_vec(),
            store
                .chains_with_trades(user, AccountVenue::Paper, i64::MIN, i64::MAX)
                .await
                .unwrap(),
        )
    };
    let (rollup, chains) = everything(store.clone()).await;
    assert!(rollup.is_empty() && chains.is_empty());

    let out = import(dir.path(), url, &history());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Imported 3 trades, 1 chains and 1 balance snapshots for \"trader\"."
    );
    let (rollup, chains) = everything(store.clone()).await;
    let pnl: Decimal = rollup.iter().map(|t| t.pnl).sum();
    assert_eq!(pnl, "13.9".parse::<Decimal>().unwrap());
    assert_eq!(rollup.iter().map(|t| t.wins).sum::<u64>(), 2);
    assert_eq!(chains.len(), 1);
    assert_eq!(chains[0].status, ChainStatus::Closed);
    let steps: Vec<String> = chains[0].trades.iter().map(|t| t.pnl.to_string()).collect();
    assert_eq!(steps, ["-10.2", "19.6"]);
    let funding: Vec<String> = store
        .all_trades(user)
        .await
        .unwrap()
        .iter()
        .map(|t| t.funding.to_string())
        .collect();
    assert!(
        funding.contains(&"-0.015".to_string())
            && funding.iter().filter(|f| *f == "0").count() == 2,
        "{funding:?}"
    );
    // Fills: entry and exit of each trade.
    let volume = store
        .fill_volume_between(user, AccountVenue::Paper, i64::MIN, i64::MAX)
        .await
        .unwrap();
    // 200 + 190, 380 + 360, 500 + 505.
    assert_eq!(volume, "2135".parse::<Decimal>().unwrap());
    let snapshot = store
        .balance_snapshot_at(user, AccountVenue::Paper, i64::MAX)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(snapshot.equity.to_string(), "10014");

    let again = import(dir.path(), url, &history());
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already imported"));
    // The running figures were rebuilt by the import: current, and equal to the trades.
    assert_eq!(
        store.running_statistics_agree(user).await.unwrap(),
        Some(true)
    );
    let figures = store
        .running_statistics(user, AccountVenue::Paper)
        .await
        .unwrap();
    assert_eq!((figures.trades, figures.wins), (3, 2));
    assert_eq!(figures.pnl, "13.9".parse::<Decimal>().unwrap());
    assert_eq!(
        everything(store.clone()).await.1.len(),
        1,
        "no second chain"
    );
    store.close().await;
}
