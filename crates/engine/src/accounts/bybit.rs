//! The Bybit side of [`Accounts`](super::Accounts): each user's Bybit account on their
//! active key (`is_demo` picks Bybit's demo environment or mainnet), and the one Bybit public
//! market every Bybit account reads, started when the first account needs it. A user's
//! connection is made, and their key decrypted, once per key: it is kept until the user's
//! active key changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use signaldesk_store::{ApiCredentials, ApiKeyRecord, SecretCipher, Store};
use signaldesk_venue::bybit::private::{BybitConfig, BybitVenue, Credentials, Environment};
use signaldesk_venue::{Venue, VenueError};
use tokio::sync::OnceCell;

use crate::background::Background;
use crate::market::{Market, MarketConfig};
use crate::EngineError;

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

/// Bybit's public market, started on first use and then shared by every Bybit account.
pub struct BybitMarket {
    config: MarketConfig,
    background: Background,
    market: OnceCell<Arc<Market>>,
}

impl BybitMarket {
    /// Not started until an account needs it: a server whose users all trade on paper never
    /// connects to Bybit.
    pub fn lazy(config: MarketConfig, background: Background) -> BybitMarket {
        BybitMarket {
            config,
            background,
            market: OnceCell::new(),
        }
    }

    /// A Bybit market started already (paper accounts on Bybit's prices share it).
    pub fn started(market: Arc<Market>, config: MarketConfig) -> BybitMarket {
        BybitMarket {
            config,
            background: Background::new(),
            market: OnceCell::new_with(Some(market)),
        }
    }

    /// The market, started now if it was not; a failed start is tried again next time.
    pub async fn get(&self) -> Result<Arc<Market>, EngineError> {
        self.market
            .get_or_try_init(|| Market::start_bybit(&self.config, &self.background))
            .await
            .cloned()
    }
}

/// Every user's Bybit account, connected on first use, and the market they all read.
pub struct BybitAccounts {
    store: Store,
    cipher: Arc<SecretCipher>,
    settings: BybitSettings,
    market: BybitMarket,
    connections: Mutex<HashMap<i64, Connection>>,
}

/// A user's connection and the key it was made with.
struct Connection {
    key_id: i64,
    is_demo: bool,
    venue: BybitVenue,
}

impl BybitAccounts {
    pub fn new(
        store: Store,
        cipher: Arc<SecretCipher>,
        settings: BybitSettings,
        market: BybitMarket,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            cipher,
            settings,
            market,
            connections: Mutex::new(HashMap::new()),
        })
    }

    pub fn settings(&self) -> &BybitSettings {
        &self.settings
    }

    pub fn market(&self) -> &BybitMarket {
        &self.market
    }

    /// One cheap authenticated call with the user's key `key_id`: the exchange's reason
    /// when it fails.
    pub async fn check_key_of(&self, user_id: i64, key_id: i64) -> Result<(), EngineError> {
        let key = self
            .store
            .api_key_credentials(&self.cipher, user_id, key_id)
            .await?
            .ok_or(EngineError::NoActiveKey)?;
        self.settings.check_key(&key).await.map_err(|e| {
            tracing::warn!(user_id, key_id, error = %e, "Bybit refused the API key");
            EngineError::KeyRefused(e)
        })
    }

    /// The user's account on `key` (their active Bybit key): the kept connection when it was
    /// made with this key, otherwise a new one (the key decrypted once, here).
    pub async fn account(
        &self,
        user_id: i64,
        key: &ApiKeyRecord,
    ) -> Result<Arc<dyn Venue>, EngineError> {
        if let Some(venue) = self.kept(user_id, key) {
            return Ok(Arc::new(venue));
        }
        let credentials = self
            .store
            .api_key_credentials(&self.cipher, user_id, key.id)
            .await?
            .ok_or(EngineError::NoActiveKey)?;
        let venue = BybitVenue::new(self.settings.config_for(&credentials))?;
        tracing::info!(
            user_id,
            key_id = key.id,
            demo = key.is_demo,
            "bybit account connected"
        );
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        // Two first uses at once: the first connection made is the one kept.
        let kept = connections
            .entry(user_id)
            .and_modify(|c| {
                if c.key_id != key.id || c.is_demo != key.is_demo {
                    *c = Connection {
                        key_id: key.id,
                        is_demo: key.is_demo,
                        venue: venue.clone(),
                    };
                }
            })
            .or_insert_with(|| Connection {
                key_id: key.id,
                is_demo: key.is_demo,
                venue,
            });
        Ok(Arc::new(kept.venue.clone()))
    }

    fn kept(&self, user_id: i64, key: &ApiKeyRecord) -> Option<BybitVenue> {
        let connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        connections
            .get(&user_id)
            .filter(|c| c.key_id == key.id && c.is_demo == key.is_demo)
            .map(|c| c.venue.clone())
    }

    /// Drops the user's connection (their key changed or went): its stream stops once no
    /// worker holds it.
    pub fn forget(&self, user_id: i64) {
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        connections.remove(&user_id);
    }
}
