//! The paper exchange at run time: accounts restored from the store, every account change
//! written back by one writer task, so a restart loses nothing. With leases (several
//! instances) an account lives only on the instance that holds its user's lease: taken in
//! from the store with the lease, written back only under it, forgotten when it ends; reads
//! elsewhere see the stored account ([`StoredPaperAccount`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_core::market::Instrument;
use signaldesk_store::Store;
use signaldesk_venue::paper::{
    AccountSnapshot, PaperConfig, PaperExchange, PaperJournal, PendingSnapshots,
};
use signaldesk_venue::{
    Fill, FundingPayment, OrderRequest, Position, PositionClose, Stops, Venue, VenueError,
    VenueEvent, Wallet,
};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::accounts::Market;
use crate::ownership::HeldLeases;
use crate::EngineError;

/// The `[paper]` section of the configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct PaperSettings {
    /// USDT in a new paper wallet.
    pub starting_balance: Decimal,
    /// Market orders fill this many basis points worse than the last price.
    pub slippage_bps: Decimal,
    /// The prices paper accounts trade on.
    pub market: PaperMarket,
}

/// `[paper] market`: the market every paper account trades on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaperMarket {
    /// The simulated market: offline, seeded (`[market] seed`, `speed`).
    #[default]
    Simulated,
    /// Bybit's public market (`[market] bybit_rest_url`, `bybit_ws_url`), the same one Bybit
    /// accounts read: paper trading on real prices.
    Bybit,
}

impl Default for PaperSettings {
    fn default() -> Self {
        let venue = PaperConfig::default();
        PaperSettings {
            starting_balance: venue.starting_balance,
            slippage_bps: venue.slippage_bps,
            market: PaperMarket::default(),
        }
    }
}

pub struct PaperRuntime {
    pub exchange: Arc<PaperExchange>,
    /// The market the exchange fills on.
    market: Arc<Market>,
    store: Store,
    pending: Arc<PendingSnapshots>,
    held: Arc<HeldLeases>,
    /// Held while a batch is being written, so that a flush waits for the writer's write in
    /// flight: a lease let go before it landed would have it refused, and the change lost.
    writing: Arc<tokio::sync::Mutex<()>>,
    /// Accounts whose tenure ended here without a release, with that tenure's token.
    retired: Mutex<HashMap<i64, (i64, AccountSnapshot)>>,
    feed: JoinHandle<()>,
    /// The writer task, taken by [`stop`](Self::stop) to wait for its last write.
    writer: Mutex<Option<JoinHandle<()>>>,
    stop_writer: CancellationToken,
}

impl PaperRuntime {
    /// The exchange on `market`; sole, it takes in every stored account, leased none (they
    /// come with their leases, [`adopt`](Self::adopt)).
    pub async fn start(
        market: Arc<Market>,
        settings: &PaperSettings,
        store: Store,
        held: Arc<HeldLeases>,
    ) -> Result<PaperRuntime, EngineError> {
        let pending = Arc::new(PendingSnapshots::default());
        let config = PaperConfig {
            starting_balance: settings.starting_balance,
            slippage_bps: settings.slippage_bps,
            ..PaperConfig::default()
        };
        let exchange =
            Arc::new(PaperExchange::new(market.data.clone(), config, pending.clone()).await?);
        if held.is_sole() {
            let mut restored = Vec::new();
            for (user_id, json) in store.paper_accounts().await? {
                restored.push((user_id, parse_account(user_id, &json)?));
            }
            if !restored.is_empty() {
                tracing::info!(accounts = restored.len(), "paper accounts restored");
            }
            exchange.restore(restored);
        }
        let feed = exchange.spawn();
        let stop_writer = CancellationToken::new();
        let writing = Arc::new(tokio::sync::Mutex::new(()));
        let writer = tokio::spawn(write_snapshots(
            pending.clone(),
            store.clone(),
            held.clone(),
            writing.clone(),
            stop_writer.clone(),
        ));
        Ok(PaperRuntime {
            exchange,
            market,
            store,
            pending,
            held,
            writing,
            retired: Mutex::default(),
            feed,
            writer: Mutex::new(Some(writer)),
            stop_writer,
        })
    }

    pub fn market(&self) -> &Arc<Market> {
        &self.market
    }

    /// This instance took tenure `token` of the user's lease. When it follows this instance's
    /// own tenure directly (the lease ran out while the database was away, and nobody else
    /// held it since), the account this instance kept is still the latest and comes back,
    /// to be written under the new tenure; otherwise the account comes in from the store as
    /// the last owner left it (a new user's is made on first use).
    pub async fn adopt(&self, user_id: i64, token: i64) -> Result<(), EngineError> {
        let kept = self.retired().remove(&user_id);
        self.pending.discard(user_id);
        self.exchange.evict(user_id);
        match kept {
            Some((previous, snapshot)) if previous + 1 == token => {
                self.exchange.restore([(user_id, snapshot.clone())]);
                self.pending.save(user_id, &snapshot);
            }
            _ => {
                if let Some(json) = self.store.paper_account(user_id).await? {
                    self.exchange
                        .restore([(user_id, parse_account(user_id, &json)?)]);
                }
            }
        }
        Ok(())
    }

    /// Before the user's lease is let go: the account stops moving and is written as it
    /// stands, with every other pending change, under the tenure still held; false (the
    /// account moving again here) when that write failed, so the lease is kept to try again.
    /// Nothing can change the account between this write and the release.
    pub async fn hand_back(&self, user_id: i64) -> bool {
        let _writing = self.writing.lock().await;
        let frozen = self.exchange.evict(user_id);
        if let Some(snapshot) = &frozen {
            self.pending.save(user_id, snapshot);
        }
        if flush(&self.pending, &self.store, &self.held).await {
            return true;
        }
        // Still pending (put back), for the writer to try again.
        if let Some(snapshot) = frozen {
            self.exchange.restore([(user_id, snapshot)]);
        }
        false
    }

    /// Tenure `token` of the user's lease ended here: the account stops moving and is no
    /// longer written from here. After a clean release its last changes were written first
    /// ([`flush`](Self::flush)); after a loss they are kept aside for [`adopt`](Self::adopt).
    pub fn retire(&self, user_id: i64, token: i64) {
        self.pending.discard(user_id);
        if let Some(snapshot) = self.exchange.evict(user_id) {
            self.retired().insert(user_id, (token, snapshot));
        }
    }

    fn retired(&self) -> std::sync::MutexGuard<'_, HashMap<i64, (i64, AccountSnapshot)>> {
        self.retired.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes what is pending now, after any write in flight has landed; false if something
    /// could not be written.
    pub async fn flush(&self) -> bool {
        let _writing = self.writing.lock().await;
        flush(&self.pending, &self.store, &self.held).await
    }

    /// Stops following the market: no price moves an account any more.
    pub fn halt_feed(&self) {
        self.feed.abort();
    }

    /// Stops following the market, lets the writer finish the write it is in (an aborted
    /// one could land after the last, newer write and put an older account back), then
    /// writes what is still pending.
    pub async fn stop(&self) {
        self.feed.abort();
        self.stop_writer.cancel();
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(writer) = writer {
            if let Err(e) = writer.await {
                tracing::error!(error = %e, "the paper account writer failed");
            }
        }
        self.flush().await;
    }
}

fn parse_account(user_id: i64, json: &str) -> Result<AccountSnapshot, EngineError> {
    serde_json::from_str(json).map_err(|e| {
        EngineError::Config(format!(
            "the stored paper account of user {user_id} is unreadable: {e}"
        ))
    })
}

async fn write_snapshots(
    pending: Arc<PendingSnapshots>,
    store: Store,
    held: Arc<HeldLeases>,
    writing: Arc<tokio::sync::Mutex<()>>,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = pending.changed() => {}
        }
        let written = {
            let _writing = writing.lock().await;
            flush(&pending, &store, &held).await
        };
        if !written {
            // The database refused: try again shortly rather than spin.
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(std::time::Duration::from_millis(500)) => {}
            }
        }
    }
}

/// Writes every pending snapshot; returns false if any had to be put back. A batch written
/// whole makes its saves durable for the worker waiting on `Venue::persisted`. With leases a
/// snapshot is written only under its user's current tenure; one whose lease ended here is
/// dropped, never written over the new owner's.
async fn flush(pending: &PendingSnapshots, store: &Store, held: &HeldLeases) -> bool {
    let mut all_written = true;
    let batch = pending.take();
    for (user_id, snapshot) in batch.snapshots {
        let now = chrono::Utc::now().timestamp_millis();
        let written = match serde_json::to_string(&snapshot) {
            Ok(json) if held.is_sole() => store
                .save_paper_account(user_id, &json, now)
                .await
                .map_err(|e| e.to_string()),
            Ok(json) => match held.token(user_id) {
                None => Ok(()),
                Some(token) => match store
                    .save_paper_account_fenced(user_id, &json, now, token)
                    .await
                {
                    Ok(true) => Ok(()),
                    Ok(false) => {
                        tracing::warn!(
                            user_id,
                            "a paper account change was dropped: the lease ended"
                        );
                        Ok(())
                    }
                    Err(e) => Err(e.to_string()),
                },
            },
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

/// A paper account this instance does not hold, read from the store at each call: another
/// instance runs the user's bot, or none does. It answers reads only.
pub struct StoredPaperAccount {
    pub exchange: Arc<PaperExchange>,
    pub store: Store,
    pub user_id: i64,
}

impl StoredPaperAccount {
    async fn view(&self) -> Result<(Wallet, Vec<Position>), VenueError> {
        let stored = self
            .store
            .paper_account(self.user_id)
            .await
            .map_err(|e| VenueError::Network(e.to_string()))?;
        let snapshot = match stored {
            Some(json) => parse_account(self.user_id, &json)
                .map_err(|e| VenueError::InvalidRequest(e.to_string()))?,
            None => AccountSnapshot::new(
                self.exchange.config().starting_balance,
                chrono::Utc::now().timestamp_millis(),
            ),
        };
        self.exchange.view(&snapshot).await
    }
}

#[async_trait::async_trait]
impl Venue for StoredPaperAccount {
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError> {
        self.exchange.account(self.user_id).instrument(symbol).await
    }

    async fn set_leverage(&self, _symbol: &str, _leverage: u32) -> Result<(), VenueError> {
        Err(VenueError::NotOwner)
    }

    async fn submit_market_order(&self, _order: OrderRequest) -> Result<Fill, VenueError> {
        Err(VenueError::NotOwner)
    }

    async fn set_stops(&self, _symbol: &str, _stops: Stops) -> Result<(), VenueError> {
        Err(VenueError::NotOwner)
    }

    async fn positions(&self) -> Result<Vec<Position>, VenueError> {
        Ok(self.view().await?.1)
    }

    async fn wallet(&self) -> Result<Wallet, VenueError> {
        Ok(self.view().await?.0)
    }

    async fn position_closes(
        &self,
        _symbol: &str,
        _position_id: &str,
    ) -> Result<Vec<PositionClose>, VenueError> {
        Err(VenueError::NotOwner)
    }

    async fn funding_since(
        &self,
        _symbol: &str,
        _from_ms: i64,
    ) -> Result<Vec<FundingPayment>, VenueError> {
        Err(VenueError::NotOwner)
    }

    async fn maintenance_margin_rate(&self, symbol: &str) -> Result<Decimal, VenueError> {
        self.exchange
            .account(self.user_id)
            .instrument(symbol)
            .await?;
        Ok(self.exchange.config().maintenance_margin_rate_of(symbol))
    }

    fn max_slippage(&self, _symbol: &str) -> Decimal {
        self.exchange.config().slippage_bps / Decimal::from(10_000)
    }

    fn subscribe(&self) -> broadcast::Receiver<VenueEvent> {
        // Nothing happens to a stored account here: a channel that never speaks.
        broadcast::channel(1).1
    }
}
