//! A user's signal worker: while signal fetching is active it stores every rating the hub
//! publishes after a closed candle and every webhook alert the user's secret URL receives,
//! logs each change of a symbol's signal, and publishes `signal` (per change) and
//! `signals_update` (the whole list, once per candle) on the event bus.

use std::collections::HashMap;
use std::sync::Arc;

use signaldesk_core::signal::{display_order, TradeSignal};
use signaldesk_store::{Store, StoredSignal};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use crate::events::{EventBus, UserEvent};
use crate::journal::BotJournal;
use crate::signals::{RatingHub, SymbolRating};

/// Alerts waiting for the worker before the webhook answers "busy".
pub const ALERT_QUEUE: usize = 64;

/// A TradingView alert received on the user's webhook URL, already validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub symbol: String,
    /// One of the five rating levels (`signaldesk_core::signal::RATING_LEVELS`).
    pub rating: &'static str,
    /// Unix ms of its arrival.
    pub received_at: i64,
}

/// Sorts signals for display: by the spec's weight, then by symbol.
pub fn sort_for_display(signals: &mut [StoredSignal]) {
    signals.sort_by(|a, b| {
        display_order(
            (TradeSignal::from_rating(&a.rating), &a.symbol),
            (TradeSignal::from_rating(&b.rating), &b.symbol),
        )
    });
}

pub struct SignalWorker {
    pub user_id: i64,
    pub hub: Arc<RatingHub>,
    pub store: Store,
    pub journal: BotJournal,
    pub bus: Arc<EventBus>,
    /// Every stored signal goes to the user's trading worker through this feed.
    pub feed: broadcast::Sender<StoredSignal>,
}

impl SignalWorker {
    /// Runs until `stop` is cancelled. The current ratings are stored at once, so the
    /// user's list is full from the start rather than after the next candle.
    pub async fn run(self, mut alerts: mpsc::Receiver<Alert>, stop: CancellationToken) {
        let mut feed = self.hub.subscribe();
        let mut latest: HashMap<String, StoredSignal> =
            match self.store.latest_signal_per_symbol(self.user_id).await {
                Ok(list) => list.into_iter().map(|s| (s.symbol.clone(), s)).collect(),
                Err(e) => {
                    self.journal
                        .error(
                            self.user_id,
                            &format!("Could not read the stored signals: {e}"),
                        )
                        .await;
                    HashMap::new()
                }
            };
        let first = self.hub.latest();
        self.store_ratings(&first, &mut latest, false).await;
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                received = feed.recv() => match received {
                    Ok(rating) => {
                        // Every symbol's candle closes at once: take what has arrived with it
                        // so the whole list goes out once per candle.
                        let mut batch = vec![rating];
                        while let Ok(more) = feed.try_recv() {
                            batch.push(more);
                        }
                        self.store_ratings(&batch, &mut latest, true).await;
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        self.journal.warning(self.user_id, &format!("Signal worker fell behind and skipped {n} ratings")).await;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                Some(alert) = alerts.recv() => self.store_alert(alert, &mut latest).await,
            }
        }
        // Every alert already queued was answered 202 and its body claimed, so a resend would
        // be taken for a duplicate: each is acted on before the worker ends (a stop, or a
        // graceful shutdown, which waits for this).
        alerts.close();
        while let Some(alert) = alerts.recv().await {
            self.store_alert(alert, &mut latest).await;
        }
    }

    async fn store_ratings(
        &self,
        batch: &[SymbolRating],
        latest: &mut HashMap<String, StoredSignal>,
        announce_changes: bool,
    ) {
        let now = self.hub.now_ms();
        for rating in batch {
            let Some(stored) = self.insert(rating_signal(self.user_id, rating, now)).await else {
                continue;
            };
            let old = latest.insert(stored.symbol.clone(), stored.clone());
            let changed = old.as_ref().is_some_and(|o| o.rating != stored.rating);
            if changed {
                let old = old.map(|o| o.rating).unwrap_or_default();
                self.journal
                    .info(
                        self.user_id,
                        &format!(
                            "{}: {old} -> {} (total {:.2}, MA {:.2}, oscillators {:.2})",
                            stored.symbol,
                            stored.rating,
                            rating.rating.total,
                            rating.rating.ma,
                            rating.rating.osc
                        ),
                    )
                    .await;
                if announce_changes {
                    self.bus.publish(self.user_id, UserEvent::Signal(stored));
                }
            }
        }
        self.publish_list(latest);
    }

    async fn store_alert(&self, alert: Alert, latest: &mut HashMap<String, StoredSignal>) {
        // Known to the bot now, on its market's clock (the arrival on the wall clock may be
        // another clock: a simulated market's).
        let now = self.hub.now_ms();
        let signal = StoredSignal {
            id: 0,
            user_id: self.user_id,
            symbol: alert.symbol,
            rating: alert.rating.to_string(),
            total: None,
            ma: None,
            osc: None,
            candle_time: now,
            source: "webhook".into(),
            created_at: now,
        };
        let Some(stored) = self.insert(signal).await else {
            return;
        };
        self.journal
            .info(
                self.user_id,
                &format!("{}: webhook alert {}", stored.symbol, stored.rating),
            )
            .await;
        latest.insert(stored.symbol.clone(), stored.clone());
        self.bus.publish(self.user_id, UserEvent::Signal(stored));
        self.publish_list(latest);
    }

    async fn insert(&self, signal: StoredSignal) -> Option<StoredSignal> {
        match self.store.insert_signal(&signal).await {
            Ok(stored) => {
                // No trading worker listening is fine: the bot may be stopped.
                let _ = self.feed.send(stored.clone());
                Some(stored)
            }
            Err(e) => {
                self.journal
                    .error(
                        self.user_id,
                        &format!("Could not store the {} signal: {e}", signal.symbol),
                    )
                    .await;
                None
            }
        }
    }

    fn publish_list(&self, latest: &HashMap<String, StoredSignal>) {
        if !self.bus.is_watched(self.user_id) {
            return;
        }
        let mut list: Vec<StoredSignal> = latest.values().cloned().collect();
        sort_for_display(&mut list);
        self.bus
            .publish(self.user_id, UserEvent::SignalsUpdate(list));
    }
}

fn rating_signal(user_id: i64, r: &SymbolRating, now_ms: i64) -> StoredSignal {
    StoredSignal {
        id: 0,
        user_id,
        symbol: r.symbol.clone(),
        rating: r.rating.recommendation.as_str().to_string(),
        total: Some(r.rating.total),
        ma: Some(r.rating.ma),
        osc: Some(r.rating.osc),
        candle_time: r.candle_time,
        source: "ratings".into(),
        created_at: now_ms,
    }
}
