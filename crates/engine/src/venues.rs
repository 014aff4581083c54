//! Where each user's orders go: the venue the server was started with, one account per user.
//! On Bybit every user trades with their own active API key: it is read from the store
//! (decrypted) at each call, so a Set Active applies at once, and the user's Bybit
//! connection is kept for as long as the key stays the same. `is_demo` picks Bybit's demo
//! environment or mainnet.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use signaldesk_core::market::Instrument;
use signaldesk_store::{ApiCredentials, SecretCipher, Store};
use signaldesk_venue::bybit::private::{BybitConfig, BybitVenue, Credentials, Environment};
use signaldesk_venue::paper::PaperExchange;
use signaldesk_venue::{
    Fill, OrderRequest, Position, PositionClose, Stops, Venue, VenueError, VenueEvent, Wallet,
};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::ownership::HeldLeases;
use crate::paper::StoredPaperAccount;
use crate::status::VenueName;
use crate::EngineError;

#[derive(Clone)]
pub enum Venues {
    /// The built-in paper exchange: every user has a paper wallet of their own.
    Paper(PaperVenue),
    /// Bybit V5 with each user's active API key.
    Bybit(Arc<BybitAccounts>),
}

/// The paper exchange and whose accounts it holds: with leases only the accounts of the bots
/// this instance runs; the others are read from the store.
#[derive(Clone)]
pub struct PaperVenue {
    pub exchange: Arc<PaperExchange>,
    held: Arc<HeldLeases>,
    store: Option<Store>,
}

impl PaperVenue {
    /// The only process on its database: the exchange holds every account.
    pub fn sole(exchange: Arc<PaperExchange>) -> PaperVenue {
        PaperVenue {
            exchange,
            held: HeldLeases::sole(),
            store: None,
        }
    }

    pub fn new(exchange: Arc<PaperExchange>, held: Arc<HeldLeases>, store: Store) -> PaperVenue {
        PaperVenue {
            exchange,
            held,
            store: Some(store),
        }
    }
}

impl Venues {
    pub fn name(&self) -> VenueName {
        match self {
            Venues::Paper(_) => VenueName::Paper,
            Venues::Bybit(_) => VenueName::Bybit,
        }
    }

    /// The user's account: on paper, the stored one (for reading) when another instance runs
    /// the user's bot.
    pub fn account(&self, user_id: i64) -> Arc<dyn Venue> {
        match self {
            Venues::Paper(paper) => match &paper.store {
                Some(store) if !paper.held.holds(user_id) => Arc::new(StoredPaperAccount {
                    exchange: paper.exchange.clone(),
                    store: store.clone(),
                    user_id,
                }),
                _ => Arc::new(paper.exchange.account(user_id)),
            },
            Venues::Bybit(accounts) => accounts.account(user_id),
        }
    }
}

/// `[bybit]`: where demo and mainnet keys are sent. The defaults are Bybit's documented
/// addresses; tests point them at a local fake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BybitSettings {
    pub demo_rest_url: String,
    pub demo_ws_url: String,
    pub mainnet_rest_url: String,
    pub mainnet_ws_url: String,
}

impl Default for BybitSettings {
    fn default() -> Self {
        Self {
            demo_rest_url: Environment::Demo.rest_url().into(),
            demo_ws_url: Environment::Demo.private_ws_url().into(),
            mainnet_rest_url: Environment::Mainnet.rest_url().into(),
            mainnet_ws_url: Environment::Mainnet.private_ws_url().into(),
        }
    }
}

impl BybitSettings {
    /// The client configuration for a key: demo or mainnet by its `is_demo`.
    pub fn config_for(&self, key: &ApiCredentials) -> BybitConfig {
        let environment = Environment::from_is_demo(key.is_demo);
        let mut config = BybitConfig::new(
            environment,
            Credentials::new(key.api_key.clone(), key.api_secret.clone()),
        );
        let (rest, ws) = match environment {
            Environment::Demo => (&self.demo_rest_url, &self.demo_ws_url),
            Environment::Mainnet => (&self.mainnet_rest_url, &self.mainnet_ws_url),
        };
        config.rest_url = rest.clone();
        config.private_ws_url = ws.clone();
        config
    }

    /// One cheap authenticated call with `key`: the exchange's reason when it fails.
    pub async fn check_key(&self, key: &ApiCredentials) -> Result<(), VenueError> {
        BybitVenue::check_key(&self.config_for(key)).await
    }
}

/// Every user's Bybit account, made on first use.
pub struct BybitAccounts {
    store: Store,
    cipher: Arc<SecretCipher>,
    settings: BybitSettings,
    users: Mutex<HashMap<i64, Arc<UserAccount>>>,
}

impl BybitAccounts {
    /// One cheap authenticated call with the user's key `key_id` (the active key when
    /// `None`); a missing key passes, left to the caller's own rule.
    pub async fn check_key_of(&self, user_id: i64, key_id: Option<i64>) -> Result<(), EngineError> {
        let key = match key_id {
            Some(id) => {
                self.store
                    .api_key_credentials(&self.cipher, user_id, id)
                    .await?
            }
            None => self.store.active_credentials(&self.cipher, user_id).await?,
        };
        let Some(key) = key else {
            return Ok(());
        };
        self.settings.check_key(&key).await.map_err(|e| {
            tracing::warn!(user_id, key_id = key.key_id, error = %e, "Bybit refused the API key");
            EngineError::KeyRefused(e)
        })
    }

    pub fn new(store: Store, cipher: Arc<SecretCipher>, settings: BybitSettings) -> Arc<Self> {
        Arc::new(Self {
            store,
            cipher,
            settings,
            users: Mutex::new(HashMap::new()),
        })
    }

    pub fn settings(&self) -> &BybitSettings {
        &self.settings
    }

    fn account(self: &Arc<Self>, user_id: i64) -> Arc<dyn Venue> {
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        users
            .entry(user_id)
            .or_insert_with(|| {
                Arc::new(UserAccount {
                    user_id,
                    owner: self.clone(),
                    events: broadcast::channel(1024).0,
                    current: tokio::sync::Mutex::new(None),
                })
            })
            .clone()
    }
}

/// One user's Bybit account: the connection of their active key, rebuilt when it changes,
/// and one event channel that outlives key changes.
struct UserAccount {
    user_id: i64,
    owner: Arc<BybitAccounts>,
    events: broadcast::Sender<VenueEvent>,
    current: tokio::sync::Mutex<Option<Connection>>,
}

struct Connection {
    key_id: i64,
    is_demo: bool,
    venue: BybitVenue,
    forward: JoinHandle<()>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.forward.abort();
    }
}

impl UserAccount {
    async fn venue(&self) -> Result<BybitVenue, VenueError> {
        let owner = &self.owner;
        let key = owner
            .store
            .active_credentials(&owner.cipher, self.user_id)
            .await
            .map_err(|e| VenueError::InvalidRequest(format!("the API key could not be read: {e}")))?
            .ok_or_else(|| VenueError::InvalidRequest("No active API key".into()))?;
        let mut current = self.current.lock().await;
        if let Some(c) = current
            .as_ref()
            .filter(|c| c.key_id == key.key_id && c.is_demo == key.is_demo)
        {
            return Ok(c.venue.clone());
        }
        let venue = BybitVenue::new(owner.settings.config_for(&key))?;
        let mut rx = venue.subscribe();
        let tx = self.events.clone();
        let forward = tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(event) => {
                        // Nobody listening is fine: events are for whoever subscribed.
                        let _ = tx.send(event);
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "bybit events fell behind");
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        tracing::info!(
            user_id = self.user_id,
            key_id = key.key_id,
            demo = key.is_demo,
            "bybit account connected"
        );
        *current = Some(Connection {
            key_id: key.key_id,
            is_demo: key.is_demo,
            venue: venue.clone(),
            forward,
        });
        Ok(venue)
    }
}

#[async_trait]
impl Venue for UserAccount {
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError> {
        self.venue().await?.instrument(symbol).await
    }

    async fn set_leverage(&self, symbol: &str, leverage: u32) -> Result<(), VenueError> {
        self.venue().await?.set_leverage(symbol, leverage).await
    }

    async fn submit_market_order(&self, order: OrderRequest) -> Result<Fill, VenueError> {
        self.venue().await?.submit_market_order(order).await
    }

    async fn set_stops(&self, symbol: &str, stops: Stops) -> Result<(), VenueError> {
        self.venue().await?.set_stops(symbol, stops).await
    }

    async fn positions(&self) -> Result<Vec<Position>, VenueError> {
        self.venue().await?.positions().await
    }

    async fn wallet(&self) -> Result<Wallet, VenueError> {
        self.venue().await?.wallet().await
    }

    async fn position_closes(
        &self,
        symbol: &str,
        position_id: &str,
    ) -> Result<Vec<PositionClose>, VenueError> {
        self.venue()
            .await?
            .position_closes(symbol, position_id)
            .await
    }

    fn max_slippage(&self, symbol: &str) -> rust_decimal::Decimal {
        signaldesk_venue::bybit::market_order_price_limit(symbol)
    }

    fn subscribe(&self) -> broadcast::Receiver<VenueEvent> {
        self.events.subscribe()
    }

    /// The connected account catches up; its events reach this account's subscribers
    /// through the forwarding task a moment later.
    async fn catch_up(&self) -> Result<(), VenueError> {
        self.venue().await?.catch_up().await
    }
}
