//! A user's signal worker: while signal fetching is active it stores every rating the hub
//! publishes after a closed candle and every webhook alert the user's secret URL receives,
//! logs each change of a symbol's signal, and publishes `signal` (per change) and
//! `signals_update` (the whole list, once per candle) on the event bus.
//!
//! Webhook alerts are kept in the store from the moment they are accepted until acted on
//! (docs/alerts.md): the worker acts on those kept when it starts (a process killed with
//! alerts queued), tries again every `ALERT_RETRY` while a write has failed, and looks for
//! any it was not handed every `ALERT_SWEEP`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use signaldesk_core::signal::{display_order, TradeSignal, RATING_LEVELS};
use signaldesk_store::{AlertTaken, PendingWebhookAlert, Store, StoredSignal};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use crate::events::{EventBus, UserEvent};
use crate::journal::BotJournal;
use crate::signals::{RatingHub, SymbolRating};

/// Alerts waiting for the worker before the webhook answers "busy".
pub const ALERT_QUEUE: usize = 64;

/// How soon the worker tries again to act on kept alerts after a failed write.
pub const ALERT_RETRY: Duration = Duration::from_secs(2);

/// How often the worker looks for kept alerts it was not handed: one accepted on another
/// instance whose hand-over failed, or whose claim could not be given back.
pub const ALERT_SWEEP: Duration = Duration::from_secs(10);

/// A TradingView alert received on the user's webhook URL, already validated and kept with
/// its claim (`Store::claim_webhook_delivery`): the queue only brings it sooner than the
/// store would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub symbol: String,
    /// One of the five rating levels (`signaldesk_core::signal::RATING_LEVELS`).
    pub rating: &'static str,
    /// Unix ms of its arrival: its claim's time.
    pub received_at: i64,
    /// Its claim's key (the SHA-256 of the body, hex).
    pub body_hash: String,
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
        let mut retry =
            tokio::time::interval_at(tokio::time::Instant::now() + ALERT_RETRY, ALERT_RETRY);
        retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut sweep =
            tokio::time::interval_at(tokio::time::Instant::now() + ALERT_SWEEP, ALERT_SWEEP);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // Alerts accepted but not acted on: before a crash, or on another instance.
        let mut failing = false;
        let acted = self.act_on_kept_alerts(&mut latest).await;
        self.note_failure(acted, &mut failing, &mut retry).await;
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = retry.tick(), if failing => {
                    let acted = self.act_on_kept_alerts(&mut latest).await;
                    self.note_failure(acted, &mut failing, &mut retry).await;
                }
                _ = sweep.tick() => {
                    let acted = self.act_on_kept_alerts(&mut latest).await;
                    self.note_failure(acted, &mut failing, &mut retry).await;
                }
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
                Some(alert) = alerts.recv() => {
                    let acted = self.store_alert(alert, &mut latest).await;
                    self.note_failure(acted, &mut failing, &mut retry).await;
                }
            }
        }
        // Every alert already queued was answered 202 and its body claimed, so a resend would
        // be taken for a duplicate: each is acted on before the worker ends (a stop, or a
        // graceful shutdown, which waits for this).
        // Those not acted on (a failed write) stay kept for the next start.
        alerts.close();
        while let Some(alert) = alerts.recv().await {
            let acted = self.store_alert(alert, &mut latest).await;
            self.note_failure(acted, &mut failing, &mut retry).await;
        }
    }

    /// Follows the writes of kept alerts: the first of a run of failures goes to the bot log
    /// (not one line per retry through an outage) and starts the retries; a success ends them.
    async fn note_failure(
        &self,
        acted: Result<(), String>,
        failing: &mut bool,
        retry: &mut tokio::time::Interval,
    ) {
        let Err(why) = acted else {
            *failing = false;
            return;
        };
        if !*failing {
            self.journal.error(self.user_id, &why).await;
            *failing = true;
            retry.reset();
        }
    }

    /// Acts on every alert kept for the user and not yet acted on, oldest first; those past
    /// their expiry are only logged. On a failed write, what failed (they stay kept).
    async fn act_on_kept_alerts(
        &self,
        latest: &mut HashMap<String, StoredSignal>,
    ) -> Result<(), String> {
        let kept = self
            .store
            .pending_webhook_alerts(self.user_id)
            .await
            .map_err(|e| format!("Could not read the webhook alerts waiting: {e}"))?;
        for kept in kept {
            let now = crate::market::wall_clock_ms();
            let age_s = (now - kept.at) / 1000;
            match RATING_LEVELS.into_iter().find(|l| *l == kept.alert.rating) {
                _ if now > kept.alert.expires_at => {
                    let why = format!(
                        "it arrived {age_s} s ago, too old to trade on (webhook_max_lag_secs)"
                    );
                    self.set_aside(&kept, &why).await?;
                }
                Some(rating) => {
                    let alert = Alert {
                        symbol: kept.alert.symbol,
                        rating,
                        received_at: kept.at,
                        body_hash: kept.body_hash,
                    };
                    self.store_alert(alert, latest).await?;
                }
                None => {
                    self.set_aside(&kept, "its signal is not a rating level")
                        .await?
                }
            }
        }
        Ok(())
    }

    /// Marks a kept alert acted on without trading it, and says why in the bot log.
    async fn set_aside(&self, kept: &PendingWebhookAlert, why: &str) -> Result<(), String> {
        let taken = self
            .store
            .take_webhook_alert(
                self.user_id,
                &kept.body_hash,
                kept.at,
                crate::market::wall_clock_ms(),
                None,
            )
            .await
            .map_err(|e| {
                format!(
                    "Could not mark the {} webhook alert: {e}",
                    kept.alert.symbol
                )
            })?;
        if taken == AlertTaken::Expired {
            self.journal
                .warning(
                    self.user_id,
                    &format!(
                        "{}: webhook alert {} not acted on: {why}",
                        kept.alert.symbol, kept.alert.rating
                    ),
                )
                .await;
        }
        Ok(())
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

    /// Stores the alert's signal and marks it acted on, in one write. On a failed write, what
    /// failed: the alert stays kept, to be tried again.
    async fn store_alert(
        &self,
        alert: Alert,
        latest: &mut HashMap<String, StoredSignal>,
    ) -> Result<(), String> {
        // Known to the bot now, on its market's clock (the arrival on the wall clock may be
        // another clock: a simulated market's).
        let now = self.hub.now_ms();
        let signal = StoredSignal {
            id: 0,
            user_id: self.user_id,
            symbol: alert.symbol.clone(),
            rating: alert.rating.to_string(),
            total: None,
            ma: None,
            osc: None,
            candle_time: now,
            source: "webhook".into(),
            created_at: now,
        };
        let taken = self
            .store
            .take_webhook_alert(
                self.user_id,
                &alert.body_hash,
                alert.received_at,
                crate::market::wall_clock_ms(),
                Some(&signal),
            )
            .await;
        let stored = match taken {
            Ok(AlertTaken::Stored(stored)) => stored,
            Ok(_) => return Ok(()),
            Err(e) => {
                return Err(format!(
                    "Could not store the {} webhook alert {} (tried again every {} s): {e}",
                    alert.symbol,
                    alert.rating,
                    ALERT_RETRY.as_secs()
                ))
            }
        };
        // No trading worker listening is fine: the bot may be stopped.
        let _ = self.feed.send(stored.clone());
        self.journal
            .info(
                self.user_id,
                &format!("{}: webhook alert {}", stored.symbol, stored.rating),
            )
            .await;
        latest.insert(stored.symbol.clone(), stored.clone());
        self.bus.publish(self.user_id, UserEvent::Signal(stored));
        self.publish_list(latest);
        Ok(())
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
