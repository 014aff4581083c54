//! The protection check (docs/alerts.md, `unprotected`): every [`PROTECTION_EVERY`] and after
//! every reconnect of the venue's private stream, each OPEN trade's stop loss must rest on the
//! venue at the booked level, and its trailing stop where one was placed. A missing or moved
//! stop is put back (a warning in the bot log and the alert); one that cannot be put back
//! after [`PROTECTION_TRIES`] tries closes the position at market, or with
//! `unprotected_action: "alert"` leaves it open with the alert raised and tries again at the
//! next check.

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_core::market::PositionSide;
use signaldesk_core::settings::{UnprotectedAction, PROTECTION_TRIES};
use signaldesk_store::{Trade, TradeStatus};
use signaldesk_venue::Stops;

use super::TradingWorker;
use crate::notify::AlertKind;

/// How often the protection check runs.
pub const PROTECTION_EVERY: Duration = Duration::from_secs(30);
/// The pause between two tries to put a stop back.
const RETRY_PAUSE: Duration = Duration::from_millis(300);

#[derive(Debug, Default)]
pub(super) struct Guard {
    /// The check's period, when a test shortens it.
    pub every: Option<Duration>,
    /// Trades whose trailing stop was placed (or seen resting): it must stay there.
    pub trailing: HashSet<i64>,
}

impl TradingWorker {
    /// Runs the protection check every `every` instead of every [`PROTECTION_EVERY`]
    /// (tests), from [`run`](Self::run) on.
    pub fn with_protection_every(mut self, every: Duration) -> Self {
        self.guard.every = Some(every);
        self
    }

    pub(super) fn protection_every(&self) -> Duration {
        self.guard.every.unwrap_or(PROTECTION_EVERY)
    }

    /// A trailing stop was placed for `trade_id`: the check expects it from now on.
    pub(super) fn trailing_placed(&mut self, trade_id: i64) {
        self.guard.trailing.insert(trade_id);
    }

    /// Looks at every OPEN trade's stops on the venue and puts back what is missing or moved
    /// (see the module). Answers how many trades were found without their protection.
    pub async fn check_protection(&mut self, now: DateTime<Utc>) -> usize {
        if self.out_of_sync.active {
            // The reconciliation that follows looks at the stops itself.
            return 0;
        }
        let mut trades: Vec<Trade> = self
            .open
            .values()
            .filter(|t| t.status == TradeStatus::Open)
            .cloned()
            .collect();
        trades.sort_by_key(|t| t.id);
        let mut found = 0;
        let mut still_unprotected: Vec<String> = Vec::new();
        for trade in trades {
            let resting = match self.deps.venue.resting_stops(&trade.symbol).await {
                Ok(Some(stops)) => stops,
                // The position is gone: its close comes through the venue's events.
                Ok(None) => continue,
                // An unreachable venue has its own alert; the next check tries again.
                Err(_) => continue,
            };
            let Some(what) = self.missing_protection(&trade, &resting) else {
                if resting.trailing.is_some() {
                    self.guard.trailing.insert(trade.id);
                }
                continue;
            };
            found += 1;
            let label = format!("{} trade #{}", trade.symbol, trade.id);
            self.warning(&format!(
                "Protection check: {label}: {what} on the exchange: putting it back"
            ))
            .await;
            match self.put_back(&trade).await {
                Ok(stop_loss) => {
                    self.warning(&format!(
                        "Protection check: {label}: stop loss put back at {stop_loss}"
                    ))
                    .await;
                    self.deps.alerts.raise(
                        self.user_id,
                        AlertKind::Unprotected,
                        format!("{label}: {what} on the exchange; the bot put the stop loss back at {stop_loss}."),
                    );
                }
                Err(error) => match self.settings.unprotected_action {
                    UnprotectedAction::Close => {
                        self.error(&format!(
                            "Protection check: {label}: the stop could not be put back after {PROTECTION_TRIES} tries ({error}): closing the position at market"
                        ))
                        .await;
                        self.deps.alerts.raise(
                            self.user_id,
                            AlertKind::Unprotected,
                            format!("{label}: {what} on the exchange and it could not be put back after {PROTECTION_TRIES} tries ({error}); the bot closes the position at market (unprotected_action: close)."),
                        );
                        if let Err(e) = self.close_trade(trade.id, now).await {
                            self.error(&format!(
                                "Protection check: {label} could not be closed: {e}"
                            ))
                            .await;
                            still_unprotected
                                .push(format!("{label}: no stop loss, and the close failed: {e}"));
                        }
                    }
                    UnprotectedAction::Alert => {
                        self.error(&format!(
                            "Protection check: {label}: the stop could not be put back after {PROTECTION_TRIES} tries ({error}): the position stays open without it (unprotected_action: alert); trying again at the next check"
                        ))
                        .await;
                        still_unprotected.push(format!(
                            "{label}: {what} on the exchange and it could not be put back after {PROTECTION_TRIES} tries ({error}); the position stays open without it (unprotected_action: alert)"
                        ));
                    }
                },
            }
        }
        if still_unprotected.is_empty() {
            self.deps.alerts.clear(self.user_id, AlertKind::Unprotected);
        } else {
            self.deps.alerts.raise(
                self.user_id,
                AlertKind::Unprotected,
                still_unprotected.join("; "),
            );
        }
        found
    }

    /// What is wrong with the stops resting for `trade`, if anything: the stop loss missing
    /// or away from the booked level (a tighter one is accepted where a trailing stop may
    /// have moved it), or the trailing stop placed for it missing.
    fn missing_protection(&self, trade: &Trade, resting: &Stops) -> Option<String> {
        let trailing_expected = self.guard.trailing.contains(&trade.id);
        match (resting.stop_loss, trade.stop_loss) {
            (None, _) => return Some("the stop loss is missing".into()),
            (Some(at), Some(booked)) if at != booked => {
                let tighter = match trade.side {
                    PositionSide::Long => at > booked,
                    PositionSide::Short => at < booked,
                };
                if !(tighter && resting.trailing.is_some()) {
                    return Some(format!(
                        "the stop loss rests at {at} instead of the booked {booked}"
                    ));
                }
            }
            _ => {}
        }
        if trailing_expected && resting.trailing.is_none() {
            return Some("the trailing stop is missing".into());
        }
        None
    }

    /// Places the trade's stops again at the booked level, up to [`PROTECTION_TRIES`] times.
    async fn put_back(&mut self, trade: &Trade) -> Result<Decimal, String> {
        let mut last = String::new();
        for attempt in 1..=PROTECTION_TRIES {
            match self.place_stops(trade, trade.stop_loss).await {
                Ok(stop_loss) => return Ok(stop_loss),
                Err(e) => last = e.to_string(),
            }
            if attempt < PROTECTION_TRIES {
                tokio::time::sleep(RETRY_PAUSE).await;
            }
        }
        Err(last)
    }
}
