//! Shared set-up for the engine's integration tests.

use std::sync::Arc;

use signaldesk_engine::metrics::Metrics;
use signaldesk_engine::signals::RatingHub;
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::{Accounts, Engine, Market, PaperVenue};
use signaldesk_store::Store;
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::PaperConfig;

/// An engine over `hub` whose venue is a paper exchange on `market`.
pub async fn engine(
    store: &Store,
    market: Arc<dyn MarketData>,
    hub: Arc<RatingHub>,
) -> Arc<Engine> {
    let paper = PaperVenue::sole(Market::assembled(market, hub), PaperConfig::default())
        .await
        .unwrap();
    Engine::assemble(
        store.clone(),
        Accounts::paper_only(store.clone(), paper),
        Notifier::disabled(),
        Metrics::disabled(),
    )
}
