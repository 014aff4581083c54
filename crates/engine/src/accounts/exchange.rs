//! Accounts on exchanges, one per user's active key, built by the venue crate's
//! [`ExchangeRegistry`] (which alone names the exchanges), and each exchange's public market,
//! started when the first account needs it and then shared by every account on that exchange.
//! A user's connection is made, and their key decrypted, once per key: it is kept until the
//! user's active key changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use signaldesk_core::account::Exchange;
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_store::{ApiKeyRecord, SecretCipher, Store};
use signaldesk_venue::registry::{ExchangeRegistry, KeyPair};
use signaldesk_venue::{KeyRefusal, Venue};
use tokio::sync::OnceCell;

use crate::background::Background;
use crate::market::{Market, MarketConfig};
use crate::EngineError;

/// An exchange's public market, started on first use and then shared.
pub struct LazyMarket {
    config: MarketConfig,
    background: Background,
    market: OnceCell<Arc<Market>>,
}

impl LazyMarket {
    /// Not started until an account needs it: a server whose users all trade on paper never
    /// connects to an exchange.
    pub fn lazy(config: MarketConfig, background: Background) -> LazyMarket {
        LazyMarket {
            config,
            background,
            market: OnceCell::new(),
        }
    }

    /// A market started already (paper accounts on the exchange's prices share it).
    pub fn started(market: Arc<Market>, config: MarketConfig) -> LazyMarket {
        LazyMarket {
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

/// Every user's exchange account, connected on first use, and the markets they read.
pub struct ExchangeAccounts {
    store: Store,
    cipher: Arc<SecretCipher>,
    registry: ExchangeRegistry,
    bybit_market: LazyMarket,
    connections: Mutex<HashMap<i64, Connection>>,
}

/// A user's connection and the key it was made with.
struct Connection {
    key_id: i64,
    demo: bool,
    venue: Arc<dyn Venue>,
}

impl ExchangeAccounts {
    pub fn new(
        store: Store,
        cipher: Arc<SecretCipher>,
        registry: ExchangeRegistry,
        bybit_market: LazyMarket,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            cipher,
            registry,
            bybit_market,
            connections: Mutex::new(HashMap::new()),
        })
    }

    /// The public market of `exchange`'s accounts.
    pub async fn market(&self, exchange: Exchange) -> Result<Arc<Market>, EngineError> {
        match exchange {
            Exchange::Bybit => self.bybit_market.get().await,
            Exchange::Paper => Err(EngineError::Config(
                "paper accounts trade on the paper market".into(),
            )),
        }
    }

    /// The decrypted pair of the user's key `key_id`.
    async fn key_pair(&self, user_id: i64, key_id: i64) -> Result<KeyPair, EngineError> {
        let credentials = self
            .store
            .api_key_credentials(&self.cipher, user_id, key_id)
            .await?
            .ok_or(EngineError::NoActiveKey)?;
        Ok(KeyPair {
            exchange: credentials.exchange,
            demo: credentials.is_demo,
            api_key: credentials.api_key.clone(),
            api_secret: credentials.api_secret.clone(),
        })
    }

    /// One cheap authenticated call with the user's key `key_id`: its permissions as the
    /// exchange reported them (`None` for a paper key), else why it may not trade. What the
    /// exchange reported is kept on the key's row either way, for the key list.
    pub async fn check_key_of(
        &self,
        user_id: i64,
        key_id: i64,
    ) -> Result<Option<KeyPermissions>, EngineError> {
        let key = self.key_pair(user_id, key_id).await?;
        let checked = self.registry.check_key(&key).await;
        let reported = match &checked {
            Ok(reported) => reported.as_ref(),
            Err(refused) => refused.reported.as_ref(),
        };
        if let Some(reported) = reported {
            let now_ms = chrono::Utc::now().timestamp_millis();
            // The verdict stands without it: the list shows the last permissions kept.
            if let Err(e) = self
                .store
                .record_key_permissions(user_id, key_id, reported, now_ms)
                .await
            {
                tracing::warn!(user_id, key_id, error = %e, "the key's permissions were not kept");
            }
        }
        checked.map_err(|refused| {
            tracing::warn!(user_id, key_id, reason = %refused, "the API key was refused");
            match refused.reason {
                KeyRefusal::Exchange(reason) => EngineError::KeyRefused {
                    exchange: key.exchange,
                    reason,
                },
                KeyRefusal::MovesFunds(permissions) => EngineError::KeyMovesFunds {
                    exchange: key.exchange,
                    permissions,
                },
            }
        })
    }

    /// The user's account on `key` (their active exchange key): the kept connection when
    /// it was made with this key, otherwise a new one (the key decrypted once, here).
    pub async fn account(
        &self,
        user_id: i64,
        key: &ApiKeyRecord,
    ) -> Result<Arc<dyn Venue>, EngineError> {
        if let Some(venue) = self.kept(user_id, key) {
            return Ok(venue);
        }
        let venue = self
            .registry
            .connect(&self.key_pair(user_id, key.id).await?)?;
        tracing::info!(
            user_id,
            key_id = key.id,
            exchange = key.exchange.as_str(),
            demo = key.is_demo,
            "exchange account connected"
        );
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        // Two first uses at once: the connection of the current key is the one kept.
        let kept = connections
            .entry(user_id)
            .and_modify(|c| {
                if c.key_id != key.id || c.demo != key.is_demo {
                    *c = Connection {
                        key_id: key.id,
                        demo: key.is_demo,
                        venue: venue.clone(),
                    };
                }
            })
            .or_insert_with(|| Connection {
                key_id: key.id,
                demo: key.is_demo,
                venue,
            });
        Ok(kept.venue.clone())
    }

    fn kept(&self, user_id: i64, key: &ApiKeyRecord) -> Option<Arc<dyn Venue>> {
        let connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        connections
            .get(&user_id)
            .filter(|c| c.key_id == key.id && c.demo == key.is_demo)
            .map(|c| c.venue.clone())
    }

    /// Drops the user's connection (their key changed or went): its stream stops once no
    /// worker holds it.
    pub fn forget(&self, user_id: i64) {
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        connections.remove(&user_id);
    }
}
