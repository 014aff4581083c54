//! The one place an exchange account is built from an API key: [`ExchangeRegistry::connect`]
//! and [`ExchangeRegistry::check_key`] match on the key's [`Exchange`] once, so the engine
//! and the server never name an exchange. Adding an exchange is a folder beside `bybit/`
//! (its [`Venue`] and [`MarketData`](crate::market::MarketData)), its settings here, and one
//! arm in each match (docs/accounts.md, "Adding an exchange"). The paper exchange is not built
//! per key: every paper account lives on the one [`PaperExchange`](crate::paper::PaperExchange).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use signaldesk_core::account::Exchange;
use signaldesk_core::key_permissions::KeyPermissions;

use crate::bybit::private::{BybitVenue, Credentials};
use crate::bybit::BybitSettings;
use crate::{KeyRefused, Venue, VenueError};

/// A decrypted API key, for the registry only. Its Debug output hides both values.
#[derive(Clone)]
pub struct KeyPair {
    pub exchange: Exchange,
    /// The exchange's demo environment rather than real money.
    pub demo: bool,
    pub api_key: String,
    pub api_secret: String,
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyPair")
            .field("exchange", &self.exchange)
            .field("demo", &self.demo)
            .finish_non_exhaustive()
    }
}

/// Where each exchange's keys trade (`[bybit]`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeRegistry {
    pub bybit: BybitSettings,
}

impl ExchangeRegistry {
    /// The account of `key`, its stream started (needs a tokio runtime).
    pub fn connect(&self, key: &KeyPair) -> Result<Arc<dyn Venue>, VenueError> {
        match key.exchange {
            Exchange::Bybit => Ok(Arc::new(BybitVenue::new(self.bybit_config(key))?)),
            Exchange::Paper => Err(paper_is_not_per_key()),
        }
    }

    /// One cheap authenticated call with `key`: its permissions as the exchange reported
    /// them when it may trade (`None`: a paper key, which has none), else why not. Opens no
    /// stream.
    pub async fn check_key(&self, key: &KeyPair) -> Result<Option<KeyPermissions>, KeyRefused> {
        match key.exchange {
            Exchange::Bybit => BybitVenue::check_key(&self.bybit_config(key))
                .await
                .map(Some),
            Exchange::Paper => Ok(None),
        }
    }

    fn bybit_config(&self, key: &KeyPair) -> crate::bybit::private::BybitConfig {
        let credentials = Credentials::new(key.api_key.clone(), key.api_secret.clone());
        self.bybit.config_for(credentials, key.demo)
    }
}

fn paper_is_not_per_key() -> VenueError {
    VenueError::InvalidRequest("paper accounts live on the shared paper exchange".into())
}
