//! Where each user's bot trades, decided per user by their active API key, with every
//! account side by side in one process: no key or an `"exchange": "paper"` key is the user's
//! paper account on the paper market; a Bybit key is their Bybit account (demo or mainnet)
//! on Bybit's public market. [`Accounts::of_user`] hands out the account and its market as
//! one [`UserAccount`], so nothing can pair one account's orders with another market's
//! prices. docs/accounts.md.

mod exchange;
mod paper;

use std::sync::Arc;

use signaldesk_core::account::{AccountVenue, Exchange};
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_store::{ApiKeyRecord, Store};
use signaldesk_venue::Venue;

pub use self::exchange::{ExchangeAccounts, LazyMarket};
pub use self::paper::PaperVenue;
pub use crate::market::Market;
use crate::EngineError;

/// A user's account as the bot uses it: where it is, the venue account, and the market
/// whose prices size, rate, stop and chart its trades.
#[derive(Clone)]
pub struct UserAccount {
    pub venue: AccountVenue,
    pub account: Arc<dyn Venue>,
    pub market: Arc<Market>,
}

/// Every user's account: paper ones on the paper exchange, exchange ones by key.
#[derive(Clone)]
pub struct Accounts {
    store: Store,
    paper: PaperVenue,
    exchanges: Option<Arc<ExchangeAccounts>>,
}

impl Accounts {
    pub fn new(store: Store, paper: PaperVenue, exchanges: Arc<ExchangeAccounts>) -> Accounts {
        Accounts {
            store,
            paper,
            exchanges: Some(exchanges),
        }
    }

    /// Paper accounts only (tests): an exchange key's account is refused.
    pub fn paper_only(store: Store, paper: PaperVenue) -> Accounts {
        Accounts {
            store,
            paper,
            exchanges: None,
        }
    }

    pub fn paper(&self) -> &PaperVenue {
        &self.paper
    }

    /// Where the user's bot trades now.
    pub async fn venue_of(&self, user_id: i64) -> Result<AccountVenue, EngineError> {
        Ok(self.store.account_venue(user_id).await?)
    }

    /// The user's account and its market, by their active key now: what a trading worker
    /// runs on.
    pub async fn of_user(&self, user_id: i64) -> Result<UserAccount, EngineError> {
        let key = self.store.active_api_key(user_id).await?;
        let (venue, account) = self.on_key(user_id, key.as_ref()).await?;
        let market = match venue.exchange() {
            Exchange::Paper => self.paper.market().clone(),
            exchange => self.exchanges()?.market(exchange).await?,
        };
        Ok(UserAccount {
            venue,
            account,
            market,
        })
    }

    /// The user's account alone, to read its wallet and positions: no market is started
    /// for it, so a market outage never hides a balance.
    pub async fn account_of(
        &self,
        user_id: i64,
    ) -> Result<(AccountVenue, Arc<dyn Venue>), EngineError> {
        let key = self.store.active_api_key(user_id).await?;
        self.on_key(user_id, key.as_ref()).await
    }

    /// The user's market alone: the paper market, or their exchange's (started if it was not).
    pub async fn market_of(&self, user_id: i64) -> Result<Arc<Market>, EngineError> {
        match self.store.account_venue(user_id).await?.exchange() {
            Exchange::Paper => Ok(self.paper.market().clone()),
            exchange => self.exchanges()?.market(exchange).await,
        }
    }

    async fn on_key(
        &self,
        user_id: i64,
        key: Option<&ApiKeyRecord>,
    ) -> Result<(AccountVenue, Arc<dyn Venue>), EngineError> {
        match key.filter(|k| k.exchange != Exchange::Paper) {
            None => Ok((AccountVenue::Paper, self.paper.account(user_id))),
            Some(key) => Ok((key.venue(), self.exchanges()?.account(user_id, key).await?)),
        }
    }

    fn exchanges(&self) -> Result<&Arc<ExchangeAccounts>, EngineError> {
        self.exchanges
            .as_ref()
            .ok_or_else(|| EngineError::Config("exchange accounts are not available here".into()))
    }

    /// Before a key trades: one cheap authenticated call with the user's exchange key `key_id`
    /// (the active key when `None`): its permissions as the exchange reported them, or why it
    /// is refused. A paper key, or no key, passes with none.
    pub async fn check_key(
        &self,
        user_id: i64,
        key_id: Option<i64>,
    ) -> Result<Option<KeyPermissions>, EngineError> {
        let key = match key_id {
            Some(id) => self.store.api_key(user_id, id).await?,
            None => self.store.active_api_key(user_id).await?,
        };
        match key {
            Some(key) if key.exchange != Exchange::Paper => {
                self.exchanges()?.check_key_of(user_id, key.id).await
            }
            _ => Ok(None),
        }
    }

    /// The user's active key changed: a kept exchange connection of the old key goes.
    pub fn key_changed(&self, user_id: i64) {
        if let Some(exchanges) = &self.exchanges {
            exchanges.forget(user_id);
        }
    }
}
