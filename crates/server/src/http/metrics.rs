//! `/metrics`: what this app instance records through the `metrics` facade, rendered as
//! Prometheus text by `metrics-exporter-prometheus`, every series labelled `instance`.
//!
//! Each app builds its own recorder instead of installing the process-wide one (which can be
//! installed once only): the tests run several servers in one process, and each `/metrics`
//! must show that app's series alone, with that app's `instance`. So every record goes
//! through [`Metrics::record`], which runs the facade's macros with this app's recorder, here
//! as in the engine (`signaldesk_engine::metrics`). A bare `counter!` outside it would go to
//! the process-wide recorder, and there is none.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use signaldesk_engine::metrics::Metrics;
use tokio::task::JoinHandle;

pub const RESPONSES: &str = "signaldesk_http_responses_total";
pub const REQUEST_DURATION: &str = "signaldesk_http_request_duration_seconds";
pub const WEBSOCKET_CLIENTS: &str = "signaldesk_websocket_clients";
const STORE_UP: &str = "signaldesk_store_up";
const STORE_OUTAGES: &str = "signaldesk_store_outages";
const LOG_PENDING: &str = "signaldesk_bot_log_pending";
const LOG_DROPPED: &str = "signaldesk_bot_log_dropped";
const DROPPED_SLOW: &str = "signaldesk_websocket_dropped_slow_total";
const WORKERS: &str = "signaldesk_workers_running";
const USERS: &str = "signaldesk_users";

/// The `route` of a request that no route matched (the fallback), whatever its path, so
/// unknown paths cannot grow the number of series.
pub const UNMATCHED: &str = "unmatched";

/// Latency histogram bucket bounds, in seconds.
const BUCKETS: [f64; 10] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0];

/// How often recorded latencies are folded into the buckets between scrapes, so they do not
/// pile up in memory when nothing scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// What `/metrics` reads at each scrape rather than records as it happens.
pub struct Readings {
    pub store_up: bool,
    pub store_outages: u64,
    pub log_pending: usize,
    pub log_dropped: u64,
    pub dropped_slow: u64,
    pub signal_workers: usize,
    pub trading_workers: usize,
    /// `None` while the database is unreachable: the gauge keeps the last count.
    pub users: Option<i64>,
}

/// One app instance's recorder and what renders it.
pub struct Exporter {
    handle: PrometheusHandle,
    pub metrics: Metrics,
}

impl Exporter {
    pub fn new(instance_id: &str) -> Exporter {
        let recorder = PrometheusBuilder::new()
            .add_global_label("instance", instance_id)
            .set_buckets_for_metric(Matcher::Full(REQUEST_DURATION.to_string()), &BUCKETS)
            .expect("the bucket list is not empty")
            .build_recorder();
        let handle = recorder.handle();
        let metrics = Metrics::new(Arc::new(recorder));
        metrics.record(|| {
            describe_counter!(RESPONSES, "HTTP responses by status class.");
            describe_histogram!(
                REQUEST_DURATION,
                "Request latency by route template, method and status class."
            );
            describe_gauge!(WEBSOCKET_CLIENTS, "Connected websocket clients.");
            gauge!(WEBSOCKET_CLIENTS).set(0.0);
            describe_gauge!(
                STORE_UP,
                "1 while the database is reachable, 0 in degraded mode."
            );
            describe_gauge!(
                STORE_OUTAGES,
                "Times the database became unreachable since the server started."
            );
            describe_gauge!(
                LOG_PENDING,
                "Bot log lines kept in memory until the database is back."
            );
            describe_gauge!(
                LOG_DROPPED,
                "Bot log lines lost since start because too many were waiting for the database."
            );
            describe_counter!(
                DROPPED_SLOW,
                "Live clients disconnected for falling behind."
            );
            describe_gauge!(
                WORKERS,
                "Workers running in this instance, by kind (signals or trading)."
            );
            describe_gauge!(
                USERS,
                "Registered users (the last count while the database is unreachable)."
            );
        });
        Exporter { handle, metrics }
    }

    /// The Prometheus text exposition, with `now`'s readings.
    pub fn render(&self, now: &Readings) -> String {
        self.metrics.record(|| {
            gauge!(STORE_UP).set(f64::from(u8::from(now.store_up)));
            gauge!(STORE_OUTAGES).set(now.store_outages as f64);
            gauge!(LOG_PENDING).set(now.log_pending as f64);
            gauge!(LOG_DROPPED).set(now.log_dropped as f64);
            counter!(DROPPED_SLOW).absolute(now.dropped_slow);
            gauge!(WORKERS, "kind" => "signals").set(now.signal_workers as f64);
            gauge!(WORKERS, "kind" => "trading").set(now.trading_workers as f64);
            if let Some(users) = now.users {
                gauge!(USERS).set(users as f64);
            }
        });
        self.handle.render()
    }

    /// Runs the recorder's upkeep every few seconds, until the task is aborted.
    pub fn spawn_upkeep(&self) -> JoinHandle<()> {
        let handle = self.handle.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(UPKEEP_EVERY);
            loop {
                every.tick().await;
                handle.run_upkeep();
            }
        })
    }
}

/// `1xx` … `5xx`.
fn status_class(status: u16) -> &'static str {
    const CLASSES: [&str; 5] = ["1xx", "2xx", "3xx", "4xx", "5xx"];
    CLASSES[usize::from(status / 100).clamp(1, 5) - 1]
}

/// The standard methods by name, any other as `other`: clients choose the method.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

/// Counts each response and its latency under the matched route template
/// (`/api/trades/{id}/`, never the path itself, which may hold ids or a webhook secret).
pub async fn track(
    State(exporter): State<Arc<Exporter>>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| UNMATCHED.to_string(), |path| path.as_str().to_string());
    let method = method_label(request.method());
    let started = Instant::now();
    let response = next.run(request).await;
    let seconds = started.elapsed().as_secs_f64();
    let class = status_class(response.status().as_u16());
    exporter.metrics.record(|| {
        counter!(RESPONSES, "class" => class).increment(1);
        histogram!(REQUEST_DURATION, "route" => route, "method" => method, "class" => class)
            .record(seconds);
    });
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    const READINGS: Readings = Readings {
        store_up: true,
        store_outages: 0,
        log_pending: 0,
        log_dropped: 0,
        dropped_slow: 0,
        signal_workers: 0,
        trading_workers: 0,
        users: None,
    };

    #[test]
    fn classes_and_methods_are_bounded() {
        assert_eq!(status_class(101), "1xx");
        assert_eq!(status_class(404), "4xx");
        assert_eq!(status_class(599), "5xx");
        assert_eq!(status_class(0), "1xx");
        assert_eq!(status_class(999), "5xx");
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
    }

    #[test]
    fn each_exporter_renders_its_own_series_with_its_instance() {
        let a = Exporter::new("a-1");
        let b = Exporter::new("b-2");
        a.metrics.record(|| {
            histogram!(REQUEST_DURATION, "route" => "/healthz", "method" => "GET", "class" => "2xx")
                .record(0.002);
        });
        let text = a.render(&READINGS);
        assert!(text.contains("# TYPE signaldesk_http_request_duration_seconds histogram"));
        let bucket = text
            .lines()
            .find(|l| {
                l.starts_with("signaldesk_http_request_duration_seconds_bucket")
                    && l.contains("le=\"0.0025\"")
            })
            .unwrap_or_else(|| panic!("no 2.5 ms bucket in:\n{text}"));
        assert!(bucket.contains("instance=\"a-1\""), "{bucket}");
        assert!(bucket.ends_with(" 1"), "{bucket}");
        let other = b.render(&READINGS);
        assert!(!other.contains("a-1"), "{other}");
        assert!(!other.contains("signaldesk_http_request_duration_seconds"));
        assert!(other.contains("signaldesk_websocket_clients{instance=\"b-2\"} 0"));
    }
}
