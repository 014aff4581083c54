//! The paper exchange at run time: restored from the store at start, every account change
//! written back by one writer task, so a restart loses nothing.

use std::sync::Arc;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_store::Store;
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::{AccountSnapshot, PaperConfig, PaperExchange, PendingSnapshots};
use tokio::task::JoinHandle;

use crate::EngineError;

/// The `[paper]` section of the configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct PaperSettings {
    /// USDT in a new paper wallet.
    pub starting_balance: Decimal,
    /// Market orders fill this many basis points worse than the last price.
    pub slippage_bps: Decimal,
}

impl Default for PaperSettings {
    fn default() -> Self {
        let venue = PaperConfig::default();
        PaperSettings {
            starting_balance: venue.starting_balance,
            slippage_bps: venue.slippage_bps,
        }
    }
}

pub struct PaperRuntime {
    pub exchange: Arc<PaperExchange>,
    store: Store,
    pending: Arc<PendingSnapshots>,
    feed: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl PaperRuntime {
    pub async fn start(
        market: Arc<dyn MarketData>,
        settings: &PaperSettings,
        store: Store,
    ) -> Result<PaperRuntime, EngineError> {
        let pending = Arc::new(PendingSnapshots::default());
        let config = PaperConfig {
            starting_balance: settings.starting_balance,
            slippage_bps: settings.slippage_bps,
            ..PaperConfig::default()
        };
        let exchange = Arc::new(PaperExchange::new(market, config, pending.clone()).await?);
        let mut restored = Vec::new();
        for (user_id, json) in store.paper_accounts().await? {
            let snapshot: AccountSnapshot = serde_json::from_str(&json).map_err(|e| {
                EngineError::Config(format!(
                    "the stored paper account of user {user_id} is unreadable: {e}"
                ))
            })?;
            restored.push((user_id, snapshot));
        }
        if !restored.is_empty() {
            tracing::info!(accounts = restored.len(), "paper accounts restored");
        }
        exchange.restore(restored);
        let feed = exchange.spawn();
        let writer = tokio::spawn(write_snapshots(pending.clone(), store.clone()));
        Ok(PaperRuntime {
            exchange,
            store,
            pending,
            feed,
            writer,
        })
    }

    /// Stops following the market: no price moves an account any more.
    pub fn halt_feed(&self) {
        self.feed.abort();
    }

    /// Stops following the market and writes what is still pending.
    pub async fn stop(self) {
        self.feed.abort();
        self.writer.abort();
        flush(&self.pending, &self.store).await;
    }
}

async fn write_snapshots(pending: Arc<PendingSnapshots>, store: Store) {
    loop {
        pending.changed().await;
        if !flush(&pending, &store).await {
            // The database refused: try again shortly rather than spin.
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
    }
}

/// Writes every pending snapshot; returns false if any had to be put back. A batch written
/// whole makes its saves durable for the worker waiting on `Venue::persisted`.
async fn flush(pending: &PendingSnapshots, store: &Store) -> bool {
    let mut all_written = true;
    let batch = pending.take();
    for (user_id, snapshot) in batch.snapshots {
        let written = match serde_json::to_string(&snapshot) {
            Ok(json) => store
                .save_paper_account(user_id, &json, chrono::Utc::now().timestamp_millis())
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = written {
            tracing::error!(user_id, error = %e, "could not store a paper account");
            pending.put_back(user_id, snapshot);
            all_written = false;
        }
    }
    if all_written {
        pending.written(batch.up_to);
    }
    all_written
}
