//! Shared set-up for the engine's integration tests.

use std::sync::Arc;

use signaldesk_engine::metrics::Metrics;
use signaldesk_engine::signals::RatingHub;
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::{Engine, PaperVenue, Venues};
use signaldesk_store::Store;
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};

/// An engine over `hub` whose venue is a paper exchange on `market`.
pub async fn engine(
    store: &Store,
    market: Arc<dyn MarketData>,
    hub: Arc<RatingHub>,
) -> Arc<Engine> {
    let exchange = PaperExchange::new(market.clone(), PaperConfig::default(), Arc::new(NoJournal))
        .await
        .unwrap();
    Engine::assemble(
        store.clone(),
        Venues::Paper(PaperVenue::sole(Arc::new(exchange))),
        market,
        hub,
        Notifier::disabled(),
        Metrics::disabled(),
    )
}
