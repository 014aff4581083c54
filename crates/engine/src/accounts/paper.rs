//! The paper side of [`Accounts`](super::Accounts): every user's paper account on the one
//! paper exchange, which fills at the paper market's prices.

use std::sync::Arc;

use signaldesk_store::Store;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::Venue;

use super::Market;
use crate::ownership::HeldLeases;
use crate::paper::{PaperRuntime, StoredPaperAccount};
use crate::EngineError;

/// The paper exchange, the market it fills on, and whose accounts it holds: with leases only
/// the accounts of the bots this instance runs; the others are read from the store.
#[derive(Clone)]
pub struct PaperVenue {
    exchange: Arc<PaperExchange>,
    market: Arc<Market>,
    held: Arc<HeldLeases>,
    store: Option<Store>,
}

impl PaperVenue {
    /// A paper exchange on `market` holding every account in memory, nothing stored (tests).
    pub async fn sole(market: Arc<Market>, config: PaperConfig) -> Result<PaperVenue, EngineError> {
        let exchange = PaperExchange::new(market.data.clone(), config, Arc::new(NoJournal)).await?;
        Ok(PaperVenue {
            exchange: Arc::new(exchange),
            market,
            held: HeldLeases::sole(),
            store: None,
        })
    }

    /// The running paper exchange, on the market it was started on.
    pub fn new(runtime: &PaperRuntime, held: Arc<HeldLeases>, store: Store) -> PaperVenue {
        PaperVenue {
            exchange: runtime.exchange.clone(),
            market: runtime.market().clone(),
            held,
            store: Some(store),
        }
    }

    pub fn exchange(&self) -> &Arc<PaperExchange> {
        &self.exchange
    }

    pub fn market(&self) -> &Arc<Market> {
        &self.market
    }

    /// The user's account: the stored one (for reading) when another instance runs the
    /// user's bot.
    pub fn account(&self, user_id: i64) -> Arc<dyn Venue> {
        match &self.store {
            Some(store) if !self.held.holds(user_id) => Arc::new(StoredPaperAccount {
                exchange: self.exchange.clone(),
                store: store.clone(),
                user_id,
            }),
            _ => Arc::new(self.exchange.account(user_id)),
        }
    }
}
