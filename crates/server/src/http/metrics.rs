//! Prometheus counters for `/metrics`: requests by status class and their latency.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

/// Latency histogram bucket bounds, in seconds.
const BUCKETS: [f64; 10] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0];

#[derive(Default)]
pub struct Metrics {
    /// Responses by status class: 1xx..5xx.
    responses: [AtomicU64; 5],
    latency_buckets: [AtomicU64; BUCKETS.len()],
    latency_count: AtomicU64,
    latency_sum_micros: AtomicU64,
    pub websocket_clients: AtomicU64,
}

impl Metrics {
    pub fn observe(&self, status: u16, seconds: f64) {
        let class = usize::from(status / 100).clamp(1, 5) - 1;
        self.responses[class].fetch_add(1, Ordering::Relaxed);
        for (bound, bucket) in BUCKETS.iter().zip(&self.latency_buckets) {
            if seconds <= *bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_sum_micros
            .fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
    }

    /// The Prometheus text exposition.
    pub fn render(&self, extra: &[(&str, &str, f64)]) -> String {
        let mut out = String::new();
        out.push_str("# HELP signaldesk_http_responses_total HTTP responses by status class.\n");
        out.push_str("# TYPE signaldesk_http_responses_total counter\n");
        for (i, counter) in self.responses.iter().enumerate() {
            let _ = writeln!(
                out,
                "signaldesk_http_responses_total{{class=\"{}xx\"}} {}",
                i + 1,
                counter.load(Ordering::Relaxed)
            );
        }
        out.push_str("# HELP signaldesk_http_request_duration_seconds Request latency.\n");
        out.push_str("# TYPE signaldesk_http_request_duration_seconds histogram\n");
        for (bound, bucket) in BUCKETS.iter().zip(&self.latency_buckets) {
            let _ = writeln!(
                out,
                "signaldesk_http_request_duration_seconds_bucket{{le=\"{bound}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = self.latency_count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "signaldesk_http_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "signaldesk_http_request_duration_seconds_sum {}",
            self.latency_sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(
            out,
            "signaldesk_http_request_duration_seconds_count {count}"
        );
        out.push_str("# HELP signaldesk_websocket_clients Connected websocket clients.\n");
        out.push_str("# TYPE signaldesk_websocket_clients gauge\n");
        let _ = writeln!(
            out,
            "signaldesk_websocket_clients {}",
            self.websocket_clients.load(Ordering::Relaxed)
        );
        for (name, help, value) in extra {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        }
        out
    }
}

pub async fn track(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let response = next.run(request).await;
    metrics.observe(response.status().as_u16(), started.elapsed().as_secs_f64());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_class_and_bucket() {
        let m = Metrics::default();
        m.observe(200, 0.002);
        m.observe(404, 0.2);
        let text = m.render(&[("signaldesk_users", "Users.", 3.0)]);
        assert!(text.contains("signaldesk_http_responses_total{class=\"2xx\"} 1"));
        assert!(text.contains("signaldesk_http_responses_total{class=\"4xx\"} 1"));
        assert!(text.contains("signaldesk_http_request_duration_seconds_bucket{le=\"0.0025\"} 1"));
        assert!(text.contains("signaldesk_http_request_duration_seconds_bucket{le=\"0.25\"} 2"));
        assert!(text.contains("signaldesk_http_request_duration_seconds_count 2"));
        assert!(text.contains("signaldesk_users 3"));
    }
}
