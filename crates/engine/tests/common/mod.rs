//! Shared set-up for the engine's integration tests.

use std::sync::Arc;

use signaldesk_engine::signals::RatingHub;
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::{EventBus, Supervisor, Venues};
use signaldesk_store::Store;
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};

/// A supervisor over `hub` whose venue is a paper exchange on `market`.
pub async fn supervisor(
    store: &Store,
    market: Arc<dyn MarketData>,
    hub: Arc<RatingHub>,
) -> Arc<Supervisor> {
    let exchange = PaperExchange::new(market.clone(), PaperConfig::default(), Arc::new(NoJournal))
        .await
        .unwrap();
    Supervisor::new(
        store.clone(),
        Venues::Paper(Arc::new(exchange)),
        market,
        hub,
        EventBus::new(),
        Notifier::disabled(),
    )
}
