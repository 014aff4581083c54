//! Bursts of TradingView alerts that force entries: for each trader, for each of a few
//! randomly chosen symbols a NEUTRAL alert and then a strong one, so the symbol's signal
//! changes into STRONG_BUY or STRONG_SELL whatever it was (the bot enters only on such a
//! change). The traders' alerts are interleaved, one symbol's pair at a time, so the paper
//! and the Bybit user's entries are in flight together.

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

/// Each trader's tally, in the traders' order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tallies(pub Vec<Tally>);

impl Tallies {
    pub fn add(&mut self, other: &Tallies) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), Tally::default());
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            mine.add(*theirs);
        }
    }

    pub fn accepted(&self) -> u64 {
        self.0.iter().map(|t| t.accepted).sum()
    }
}

/// Where one trader's alerts go: the API of the server to post to and the trader's webhook.
#[derive(Clone)]
pub struct Target {
    pub api: Api,
    pub webhook: String,
}

/// One alert: the trader it is for, the symbol and the signal.
type Alert = (usize, String, &'static str);

/// One burst's alerts, chosen up front from the seeded generator (so the schedule does not
/// depend on how the server answers).
pub struct Burst {
    /// In posting order.
    alerts: Vec<Alert>,
    traders: usize,
}

impl Burst {
    /// For each of `traders` traders, entries on 3 to 8 of `universe`'s symbols, each long
    /// or short at random; the traders' pairs taken in turn.
    pub fn choose(rng: &mut StdRng, universe: &[String], traders: usize) -> Burst {
        let mut pairs: Vec<Vec<[Alert; 2]>> = Vec::new();
        for trader in 0..traders {
            let n = rng.gen_range(3..=8).min(universe.len());
            let mut own = Vec::with_capacity(n);
            for symbol in universe.choose_multiple(rng, n) {
                let strong = if rng.gen_bool(0.5) {
                    "STRONG_BUY"
                } else {
                    "STRONG_SELL"
                };
                own.push([
                    (trader, symbol.clone(), "NEUTRAL"),
                    (trader, symbol.clone(), strong),
                ]);
            }
            pairs.push(own);
        }
        let longest = pairs.iter().map(Vec::len).max().unwrap_or(0);
        let mut alerts = Vec::new();
        for i in 0..longest {
            for own in &pairs {
                if let Some(pair) = own.get(i) {
                    alerts.extend(pair.iter().cloned());
                }
            }
        }
        Burst { alerts, traders }
    }

    /// Posts the alerts one after the other, each to its trader's target.
    pub async fn post(self, targets: Vec<Target>) -> Tallies {
        let mut tallies = Tallies(vec![Tally::default(); self.traders]);
        for (trader, symbol, signal) in &self.alerts {
            let target = &targets[*trader];
            let tally = &mut tallies.0[*trader];
            if target.api.alert(&target.webhook, symbol, signal).await {
                tally.accepted += 1;
            } else {
                tally.refused += 1;
            }
        }
        tallies
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_burst_interleaves_the_traders_pairs() {
        let universe: Vec<String> = (0..20).map(|i| format!("S{i}USDT")).collect();
        let burst = Burst::choose(&mut StdRng::seed_from_u64(5), &universe, 2);
        let alerts = &burst.alerts;
        assert!(alerts.len() >= 12 && alerts.len() <= 32, "{}", alerts.len());
        for pair in alerts.chunks(2) {
            assert_eq!(pair[0].0, pair[1].0, "a pair is one trader's");
            assert_eq!(pair[0].1, pair[1].1, "a pair is one symbol's");
            assert_eq!(pair[0].2, "NEUTRAL");
            assert!(pair[1].2.starts_with("STRONG_"));
        }
        // Both traders' first pairs come before either's second.
        assert_eq!(alerts[0].0, 0);
        assert_eq!(alerts[2].0, 1);
    }
}
