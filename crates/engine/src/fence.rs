//! The fence in front of a leased bot's venue: every order, stop change and leverage change
//! is first recorded under the tenure's token, in the statement that checks the tenure still
//! holds (`Store::fence`). A worker whose lease ended, even one paused past the end and woken
//! later, therefore sends nothing more.

use std::sync::Arc;

use async_trait::async_trait;
use rust_decimal::Decimal;
use signaldesk_core::market::Instrument;
use signaldesk_store::Store;
use signaldesk_venue::{
    Fill, FundingPayment, OrderRequest, Position, PositionClose, Stops, Venue, VenueError,
    VenueEvent, Wallet,
};
use tokio::sync::broadcast;

pub struct FencedVenue {
    inner: Arc<dyn Venue>,
    store: Store,
    user_id: i64,
    token: i64,
}

impl FencedVenue {
    pub fn new(inner: Arc<dyn Venue>, store: Store, user_id: i64, token: i64) -> FencedVenue {
        FencedVenue {
            inner,
            store,
            user_id,
            token,
        }
    }

    async fn pass(&self, action: &str) -> Result<(), VenueError> {
        match self.store.fence(self.user_id, self.token, action).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(VenueError::NotOwner),
            // Ownership cannot be proven: nothing is sent; the worker retries as on any
            // network fault.
            Err(e) => Err(VenueError::Network(format!(
                "the lease cannot be checked: {e}"
            ))),
        }
    }
}

#[async_trait]
impl Venue for FencedVenue {
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError> {
        self.inner.instrument(symbol).await
    }

    async fn set_leverage(&self, symbol: &str, leverage: u32) -> Result<(), VenueError> {
        self.pass("leverage").await?;
        self.inner.set_leverage(symbol, leverage).await
    }

    async fn submit_market_order(&self, order: OrderRequest) -> Result<Fill, VenueError> {
        self.pass("order").await?;
        self.inner.submit_market_order(order).await
    }

    async fn set_stops(&self, symbol: &str, stops: Stops) -> Result<(), VenueError> {
        self.pass("stops").await?;
        self.inner.set_stops(symbol, stops).await
    }

    async fn positions(&self) -> Result<Vec<Position>, VenueError> {
        self.inner.positions().await
    }

    async fn wallet(&self) -> Result<Wallet, VenueError> {
        self.inner.wallet().await
    }

    async fn position_closes(
        &self,
        symbol: &str,
        position_id: &str,
    ) -> Result<Vec<PositionClose>, VenueError> {
        self.inner.position_closes(symbol, position_id).await
    }

    async fn funding_since(
        &self,
        symbol: &str,
        from_ms: i64,
    ) -> Result<Vec<FundingPayment>, VenueError> {
        self.inner.funding_since(symbol, from_ms).await
    }

    async fn maintenance_margin_rate(&self, symbol: &str) -> Result<Decimal, VenueError> {
        self.inner.maintenance_margin_rate(symbol).await
    }

    fn max_slippage(&self, symbol: &str) -> Decimal {
        self.inner.max_slippage(symbol)
    }

    fn subscribe(&self) -> broadcast::Receiver<VenueEvent> {
        self.inner.subscribe()
    }

    async fn catch_up(&self) -> Result<(), VenueError> {
        self.inner.catch_up().await
    }

    async fn persisted(&self) -> Result<(), VenueError> {
        self.inner.persisted().await
    }
}
