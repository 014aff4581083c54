//! The engine's Prometheus series, named in one place and recorded through the `metrics`
//! facade's macros, so the engine records without knowing who exports (the server's
//! `/metrics`, docs/architecture.md).
//!
//! A [`Metrics`] holds the recorder of one app instance and runs the macros against it
//! (`metrics::with_local_recorder`), never against the process-wide recorder: several app
//! instances may live in one process (the server's tests), and each exports only its own.
//!
//! Fed now:
//! - `signaldesk_bot_owned{user_id}`: 1 while this instance runs any of that user's workers,
//!   0 once the supervisor stopped them (the supervisor's starts and stops feed it).
//!
//! Defined, waiting for the multi-instance work (exposed at 0 until then):
//! - `signaldesk_lease_renewals_total{result="ok"|"lost"}`, for the lease on a user's bot:
//!   [`Metrics::lease_renewal`].
//! - `signaldesk_events_relayed_total{direction="sent"|"received"}`, for the relay of live
//!   events between instances: [`Metrics::event_relayed`].

use std::sync::Arc;

use metrics::{counter, describe_counter, describe_gauge, gauge, NoopRecorder, Recorder};

pub const BOT_OWNED: &str = "signaldesk_bot_owned";
pub const LEASE_RENEWALS: &str = "signaldesk_lease_renewals_total";
pub const EVENTS_RELAYED: &str = "signaldesk_events_relayed_total";

/// How a lease renewal ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseRenewal {
    Ok,
    /// Another instance holds the lease now.
    Lost,
}

impl LeaseRenewal {
    fn label(self) -> &'static str {
        match self {
            LeaseRenewal::Ok => "ok",
            LeaseRenewal::Lost => "lost",
        }
    }
}

/// Which way a live event crossed between instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayDirection {
    Sent,
    Received,
}

impl RelayDirection {
    fn label(self) -> &'static str {
        match self {
            RelayDirection::Sent => "sent",
            RelayDirection::Received => "received",
        }
    }
}

/// Where one app instance's series go.
#[derive(Clone)]
pub struct Metrics {
    recorder: Arc<dyn Recorder + Send + Sync>,
}

impl Metrics {
    /// Records into `recorder`, and describes the engine's series there.
    pub fn new(recorder: Arc<dyn Recorder + Send + Sync>) -> Metrics {
        let metrics = Metrics { recorder };
        metrics.record(|| {
            describe_gauge!(
                BOT_OWNED,
                "1 while this instance runs the user's workers, 0 once it stopped them."
            );
            describe_counter!(
                LEASE_RENEWALS,
                "Renewals of the lease on a user's bot, by result (ok or lost)."
            );
            describe_counter!(
                EVENTS_RELAYED,
                "Live events relayed between instances, by direction (sent or received)."
            );
            for result in [LeaseRenewal::Ok, LeaseRenewal::Lost] {
                counter!(LEASE_RENEWALS, "result" => result.label()).absolute(0);
            }
            for direction in [RelayDirection::Sent, RelayDirection::Received] {
                counter!(EVENTS_RELAYED, "direction" => direction.label()).absolute(0);
            }
        });
        metrics
    }

    /// Records nowhere (an engine without a server, as in the engine's tests).
    pub fn disabled() -> Metrics {
        Metrics {
            recorder: Arc::new(NoopRecorder),
        }
    }

    /// Runs `f` with this instance's recorder behind the facade's macros.
    pub fn record<T>(&self, f: impl FnOnce() -> T) -> T {
        metrics::with_local_recorder(self.recorder.as_ref(), f)
    }

    /// `signaldesk_bot_owned`: whether this instance runs any of the user's workers.
    pub fn bot_owned(&self, user_id: i64, owned: bool) {
        self.record(|| {
            gauge!(BOT_OWNED, "user_id" => user_id.to_string()).set(f64::from(u8::from(owned)))
        });
    }

    /// `signaldesk_lease_renewals_total`: one renewal of a bot's lease.
    pub fn lease_renewal(&self, result: LeaseRenewal) {
        self.record(|| counter!(LEASE_RENEWALS, "result" => result.label()).increment(1));
    }

    /// `signaldesk_events_relayed_total`: one live event relayed.
    pub fn event_relayed(&self, direction: RelayDirection) {
        self.record(|| counter!(EVENTS_RELAYED, "direction" => direction.label()).increment(1));
    }
}
