//! Discord, e-mail and generic webhook channels: a bounded queue per channel and, while it has
//! something queued, one task that delivers its messages in order. A failed delivery is
//! written on the channel (count, last error, time) and retried with back-off (2 s doubling
//! to 2 min, [`MAX_ATTEMPTS`] tries); a full queue drops its oldest message. Nothing here
//! ever waits on the caller's side.
//!
//! - Discord: `POST <incoming webhook URL>` with `{"content": text}` (at most 2000
//!   characters); a 429 waits the answer's `retry_after` (seconds, a float; else the
//!   `Retry-After` header) and sends the same message again, without counting a failure.
//! - Webhook: `POST <url>` with the JSON of [`Notice::payload`] and the header
//!   `X-SignalDesk-Signature: sha256=<hex>`, HMAC-SHA256 of the raw body under the channel's
//!   secret. Any 2xx is delivered.
//! - E-mail: through the server's `[smtp]` relay ([`SmtpConfig`]), from `from` to the
//!   channel's address, subject the text's first line.
//!
//! URLs hold credentials: no URL is ever logged, and errors are written without them.

use crate::outbound_http::{describe_request_error, doubling_backoff};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hmac::{Hmac, Mac};
use lettre::message::header::ContentType;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use signaldesk_store::{ChannelRecord, Store};

use super::{EventKind, Notice, Recipients, Subscriber};

/// Messages one channel may have waiting; beyond that the oldest is dropped.
pub const CHANNEL_QUEUE: usize = 50;
/// Tries of one message before it is given up.
pub const MAX_ATTEMPTS: u32 = 6;
/// Longest wait for one delivery.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);
const BACKOFF_FIRST: Duration = Duration::from_secs(2);
const BACKOFF_MAX: Duration = Duration::from_secs(120);
/// Discord's limit on a message's `content`.
const DISCORD_MAX_CHARS: usize = 2000;
/// The header a generic webhook's signature travels in.
pub const SIGNATURE_HEADER: &str = "X-SignalDesk-Signature";

/// How the SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SmtpTls {
    /// Plain connection upgraded with STARTTLS (port 587).
    #[default]
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// No encryption at all: only for a relay on the same machine.
    None,
}

/// The server's `[smtp]` section. An empty `host` (the default) turns e-mail channels off.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub tls: SmtpTls,
    pub username: String,
    /// A secret: never logged, not even by `Debug`.
    pub password: String,
    /// The sender address, e.g. `Signal Desk <bot@example.com>`.
    pub from: String,
}

impl Default for SmtpConfig {
    fn default() -> Self {
        SmtpConfig {
            host: String::new(),
            port: 587,
            tls: SmtpTls::Starttls,
            username: String::new(),
            password: String::new(),
            from: String::new(),
        }
    }
}

impl SmtpConfig {
    pub fn is_enabled(&self) -> bool {
        !self.host.trim().is_empty()
    }
}

impl std::fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .field("from", &self.from)
            .finish()
    }
}

/// Why one delivery failed.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    /// Worth trying again (network, 5xx, 429); otherwise the message is given up.
    pub retry: bool,
    /// The service asked for this wait (a 429); not counted as a failure.
    pub wait: Option<Duration>,
}

impl Failure {
    fn transient(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            retry: true,
            wait: None,
        }
    }

    fn final_(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            retry: false,
            wait: None,
        }
    }
}

/// Delivers to Discord, e-mail and webhook channels. Cheap to clone.
#[derive(Clone)]
pub struct Outbound {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    smtp: Option<(AsyncSmtpTransport<Tokio1Executor>, lettre::message::Mailbox)>,
    store: Option<Store>,
    queues: Mutex<HashMap<i64, Queue>>,
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<(ChannelRecord, Notice)>,
    busy: bool,
}

impl Outbound {
    /// Delivery with `smtp` for e-mail; failures and successes are written through `store`.
    pub fn new(smtp: &SmtpConfig, store: Option<Store>) -> Outbound {
        let http = reqwest::Client::builder()
            .timeout(DELIVERY_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        let smtp = if smtp.is_enabled() {
            match smtp_transport(smtp) {
                Ok(transport) => Some(transport),
                Err(e) => {
                    tracing::error!(error = %e, "e-mail notifications are off: the [smtp] section is not usable");
                    None
                }
            }
        } else {
            None
        };
        Outbound {
            inner: Arc::new(Inner {
                http,
                smtp,
                store,
                queues: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn email_enabled(&self) -> bool {
        self.inner.smtp.is_some()
    }

    /// Queues `notice` for `channel` and returns at once.
    pub fn enqueue(&self, channel: ChannelRecord, notice: Notice) {
        let id = channel.id;
        let start = {
            let mut queues = self.lock();
            let queue = queues.entry(id).or_default();
            if queue.waiting.len() >= CHANNEL_QUEUE {
                queue.waiting.pop_front();
                tracing::warn!(
                    channel_id = id,
                    "notification queue full: dropped the oldest message"
                );
            }
            queue.waiting.push_back((channel, notice));
            !std::mem::replace(&mut queue.busy, true)
        };
        if start {
            tokio::spawn(self.clone().drain(id));
        }
    }

    /// Messages waiting for the channel.
    pub fn queued(&self, channel_id: i64) -> usize {
        self.lock().get(&channel_id).map_or(0, |q| q.waiting.len())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Queue>> {
        self.inner.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn drain(self, id: i64) {
        loop {
            let next = {
                let mut queues = self.lock();
                let queue = queues.entry(id).or_default();
                match queue.waiting.pop_front() {
                    Some(next) => next,
                    None => {
                        queue.busy = false;
                        return;
                    }
                }
            };
            let (channel, notice) = next;
            let mut failures = 0;
            loop {
                match self.deliver_once(&channel, &notice, channel.user_id).await {
                    Ok(()) => {
                        self.record(id, &Ok(())).await;
                        break;
                    }
                    Err(Failure {
                        wait: Some(wait), ..
                    }) => {
                        tracing::info!(
                            channel_id = id,
                            wait_secs = wait.as_secs_f64(),
                            "rate limited; sending again after the wait"
                        );
                        tokio::time::sleep(wait).await;
                    }
                    Err(failure) => {
                        failures += 1;
                        tracing::warn!(channel_id = id, kind = %channel.kind, error = %failure.message, attempt = failures, "notification delivery failed");
                        self.record(id, &Err(failure.message.clone())).await;
                        if !failure.retry || failures >= MAX_ATTEMPTS {
                            break;
                        }
                        tokio::time::sleep(backoff(failures)).await;
                    }
                }
            }
        }
    }

    /// Writes the outcome of a delivery on the channel.
    pub async fn record(&self, channel_id: i64, outcome: &Result<(), String>) {
        let Some(store) = &self.inner.store else {
            return;
        };
        let now = chrono::Utc::now().timestamp_millis();
        let written = match outcome {
            Ok(()) => store.record_channel_success(channel_id, now).await,
            Err(e) => store.record_channel_failure(channel_id, e, now).await,
        };
        if let Err(e) = written {
            tracing::debug!(channel_id, error = %e, "could not note a delivery's outcome");
        }
    }

    /// One try at delivering `notice` to `channel`.
    pub async fn deliver_once(
        &self,
        channel: &ChannelRecord,
        notice: &Notice,
        user_id: i64,
    ) -> Result<(), Failure> {
        match channel.kind.as_str() {
            "discord" => self.discord(&channel.target, &notice.text()).await,
            "webhook" => {
                let body = notice.payload(user_id, chrono::Utc::now().timestamp_millis());
                self.webhook(
                    &channel.target,
                    channel.secret.as_deref().unwrap_or(""),
                    &body,
                )
                .await
            }
            "email" => self.email(&channel.target, &notice.text()).await,
            other => Err(Failure::final_(format!("unknown channel kind {other}"))),
        }
    }

    async fn discord(&self, url: &str, text: &str) -> Result<(), Failure> {
        let content: String = text.chars().take(DISCORD_MAX_CHARS).collect();
        let response = self
            .inner
            .http
            .post(url)
            .json(&serde_json::json!({ "content": content }))
            .send()
            .await
            .map_err(|e| Failure::transient(describe_request_error(&e)))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let header_wait = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok());
        let body: serde_json::Value = response.json().await.unwrap_or_default();
        if status == StatusCode::TOO_MANY_REQUESTS {
            let secs = body["retry_after"]
                .as_f64()
                .or(header_wait)
                .unwrap_or(1.0)
                .clamp(0.0, 3600.0);
            return Err(Failure {
                message: format!("Discord rate limit: retry after {secs} s"),
                retry: true,
                wait: Some(Duration::from_secs_f64(secs)),
            });
        }
        let what = body["message"]
            .as_str()
            .map_or_else(|| status.to_string(), |m| format!("{status}: {m}"));
        Err(answer_failure(status, format!("Discord answered {what}")))
    }

    async fn webhook(
        &self,
        url: &str,
        secret: &str,
        body: &serde_json::Value,
    ) -> Result<(), Failure> {
        let raw = serde_json::to_vec(body).unwrap_or_default();
        let response = self
            .inner
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature(secret, &raw))
            .body(raw)
            .send()
            .await
            .map_err(|e| Failure::transient(describe_request_error(&e)))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        Err(answer_failure(
            status,
            format!("the webhook answered {status}"),
        ))
    }

    async fn email(&self, to: &str, text: &str) -> Result<(), Failure> {
        let Some((transport, from)) = &self.inner.smtp else {
            return Err(Failure::final_(
                "e-mail is not configured on this server (no [smtp] host)",
            ));
        };
        let to = to
            .parse()
            .map_err(|e| Failure::final_(format!("bad address: {e}")))?;
        let subject = format!(
            "Signal Desk: {}",
            text.lines().next().unwrap_or("notification")
        );
        let message = Message::builder()
            .from(from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(text.to_string())
            .map_err(|e| Failure::final_(format!("could not write the e-mail: {e}")))?;
        match transport.send(message).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_permanent() => Err(Failure::final_(format!("SMTP refused: {e}"))),
            Err(e) => Err(Failure::transient(format!("SMTP: {e}"))),
        }
    }
}

impl Subscriber for Outbound {
    fn on_notice(&self, _user_id: i64, recipients: &Recipients, notice: &Notice) {
        let Some(event) = notice.kind() else { return };
        for kind in ["discord", "email", "webhook"] {
            for channel in recipients.channels_for(kind, event) {
                self.enqueue(channel.clone(), notice.clone());
            }
        }
    }
}

/// `sha256=<hex>`: HMAC-SHA256 of `body` under `secret`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    // HMAC takes a key of any length.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

fn answer_failure(status: StatusCode, message: String) -> Failure {
    if status.is_server_error() || status == StatusCode::REQUEST_TIMEOUT {
        Failure::transient(message)
    } else {
        Failure::final_(message)
    }
}

fn smtp_transport(
    config: &SmtpConfig,
) -> Result<(AsyncSmtpTransport<Tokio1Executor>, lettre::message::Mailbox), String> {
    let host = config.host.trim();
    let builder = match config.tls {
        SmtpTls::Starttls => {
            AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host).map_err(|e| e.to_string())?
        }
        SmtpTls::Tls => {
            AsyncSmtpTransport::<Tokio1Executor>::relay(host).map_err(|e| e.to_string())?
        }
        SmtpTls::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host),
    };
    let mut builder = builder.port(config.port).timeout(Some(DELIVERY_TIMEOUT));
    if !config.username.is_empty() {
        builder = builder.credentials(Credentials::new(
            config.username.clone(),
            config.password.clone(),
        ));
    }
    let from = config
        .from
        .parse()
        .map_err(|e| format!("[smtp] from {:?} is not an address: {e}", config.from))?;
    Ok((builder.build(), from))
}

/// 2 s, 4 s, 8 s, … up to 2 min for the `failures`-th failure in a row.
fn backoff(failures: u32) -> Duration {
    doubling_backoff(failures, BACKOFF_FIRST, BACKOFF_MAX)
}

/// Events a channel subscribes to when none are named: all of them.
pub fn default_events() -> Vec<String> {
    EventKind::ALL
        .iter()
        .map(|e| e.as_str().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_in_hex() {
        // RFC 4231 test case 2.
        let sig = signature("Jefe", b"what do ya want for nothing?");
        assert_eq!(
            sig,
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn backoff_doubles_up_to_two_minutes() {
        let secs: Vec<u64> = (1..=8).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, [2, 4, 8, 16, 32, 64, 120, 120]);
    }

    #[test]
    fn debug_never_shows_the_smtp_password() {
        let config = SmtpConfig {
            password: "hunter2".into(),
            ..SmtpConfig::default()
        };
        assert!(!format!("{config:?}").contains("hunter2"));
    }
}
