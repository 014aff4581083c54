//! The worker's watch on its inputs, for alerts (docs/alerts.md): the market feed (no price
//! for a traded symbol for two signal intervals: [`AlertKind::MarketFeedStale`]) and the
//! venue (unreachable or refusing the key for [`VENUE_GRACE`]: [`AlertKind::VenueUnreachable`]).
//! Both raise once and clear when it is over; the [`Alerts`](crate::Alerts) handle makes
//! repeated calls free.

use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

use super::TradingWorker;
use crate::notify::AlertKind;

/// How long the venue may fail before the alert.
pub const VENUE_GRACE: Duration = Duration::from_secs(60);
/// How often the venue is asked for the wallet, to see that it answers.
pub const VENUE_PROBE_EVERY: Duration = Duration::from_secs(15);
/// Longest wait for the probe's answer.
const VENUE_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// When each symbol last had a price, and since when the venue fails.
#[derive(Debug)]
pub(super) struct Watch {
    started: Instant,
    last_tick: FxHashMap<String, Instant>,
    venue_failing_since: Option<(Instant, chrono::DateTime<chrono::Utc>)>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            started: Instant::now(),
            last_tick: FxHashMap::default(),
            venue_failing_since: None,
        }
    }
}

impl TradingWorker {
    /// A price of `symbol` arrived.
    pub(super) fn saw_price(&mut self, symbol: &str) {
        self.watch
            .last_tick
            .insert(symbol.to_string(), Instant::now());
    }

    /// How often [`check_feed`](Self::check_feed) runs: a quarter of the stale time, between
    /// 100 ms and 30 s.
    pub(super) fn feed_check_every(&self) -> Duration {
        (self.deps.feed_stale_after / 4).clamp(Duration::from_millis(100), Duration::from_secs(30))
    }

    /// Raises the stale-feed alert when a traded symbol (one the feed priced since the worker
    /// started, or one with an open trade) had no price for the stale time, or the feed gave
    /// none at all for that long; clears it when every one has a fresh price.
    pub fn check_feed(&mut self, now: Instant) {
        let stale_after = self.deps.feed_stale_after;
        let mut symbols: Vec<&String> = self.watch.last_tick.keys().collect();
        for symbol in self.open.keys() {
            if !self.watch.last_tick.contains_key(symbol) {
                symbols.push(symbol);
            }
        }
        let mut stale: Vec<String> = symbols
            .into_iter()
            .filter(|s| {
                let last = self.watch.last_tick.get(*s).copied();
                now.saturating_duration_since(last.unwrap_or(self.watch.started)) >= stale_after
            })
            .cloned()
            .collect();
        let silent = self.watch.last_tick.is_empty()
            && now.saturating_duration_since(self.watch.started) >= stale_after;
        if stale.is_empty() && !silent {
            self.deps
                .alerts
                .clear(self.user_id, AlertKind::MarketFeedStale);
            return;
        }
        stale.sort();
        let what = if stale.is_empty() {
            "any symbol".to_string()
        } else {
            stale.join(", ")
        };
        let minutes = stale_after.as_secs_f64() / 60.0;
        self.deps.alerts.raise(
            self.user_id,
            AlertKind::MarketFeedStale,
            format!(
                "No price for {what} for two signal intervals ({minutes:.1} min): the market feed is stale."
            ),
        );
    }

    /// Asks the venue for the wallet: failing for [`VENUE_GRACE`] raises the venue alert, an
    /// answer clears it.
    pub async fn probe_venue(&mut self) {
        let answer = tokio::time::timeout(VENUE_PROBE_TIMEOUT, self.deps.venue.wallet()).await;
        let error = match answer {
            Ok(Ok(_)) => {
                self.watch.venue_failing_since = None;
                self.deps
                    .alerts
                    .clear(self.user_id, AlertKind::VenueUnreachable);
                return;
            }
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer within {} s", VENUE_PROBE_TIMEOUT.as_secs()),
        };
        let (since, since_utc) = *self
            .watch
            .venue_failing_since
            .get_or_insert_with(|| (Instant::now(), chrono::Utc::now()));
        if since.elapsed() >= VENUE_GRACE {
            self.deps.alerts.raise(
                self.user_id,
                AlertKind::VenueUnreachable,
                format!(
                    "The exchange has not answered, or refused the key, since {}: {error}",
                    since_utc.format("%Y-%m-%d %H:%M:%S UTC")
                ),
            );
        }
    }
}
