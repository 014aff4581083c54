//! Bursts of TradingView alerts that force entries: for each of a few randomly chosen
//! symbols a NEUTRAL alert and then a strong one, so the symbol's signal changes into
//! STRONG_BUY or STRONG_SELL whatever it was (the bot enters only on such a change).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;

use crate::api::Api;

/// Alerts posted, by answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub accepted: u64,
    /// Refused, or never answered (the server was killed or the database away).
    pub refused: u64,
}

impl Tally {
    pub fn add(&mut self, other: Tally) {
        self.accepted += other.accepted;
        self.refused += other.refused;
    }
}

/// One burst's alerts, chosen up front from the seeded generator (so the schedule does not
/// depend on how the server answers).
pub struct Burst {
    alerts: Vec<(String, &'static str)>,
}

impl Burst {
    /// Entries on 3 to 8 of `universe`'s symbols, each long or short at random.
    pub fn choose(rng: &mut StdRng, universe: &[String]) -> Burst {
        let n = rng.gen_range(3..=8).min(universe.len());
        let mut alerts = Vec::with_capacity(2 * n);
        for symbol in universe.choose_multiple(rng, n) {
            let strong = if rng.gen_bool(0.5) {
                "STRONG_BUY"
            } else {
                "STRONG_SELL"
            };
            alerts.push((symbol.clone(), "NEUTRAL"));
            alerts.push((symbol.clone(), strong));
        }
        Burst { alerts }
    }

    /// Posts the alerts one after the other.
    pub async fn post(self, api: Api, webhook: String) -> Tally {
        let mut tally = Tally::default();
        for (symbol, signal) in &self.alerts {
            if api.alert(&webhook, symbol, signal).await {
                tally.accepted += 1;
            } else {
                tally.refused += 1;
            }
        }
        tally
    }
}
