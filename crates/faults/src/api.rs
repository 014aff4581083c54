//! The HTTP API as the harness uses it: log in, set the bot up as a trader would on the
//! Settings page (settings, an exchange key, a webhook URL, Start Bot), post TradingView
//! alerts, and count trades.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{bail, Context};
use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};

/// One HTTP request may take this long (the server may be busy replaying or waiting for a
/// database that is away).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// A logged-in API client. Cheap to clone.
#[derive(Clone)]
pub struct Api {
    base: String,
    token: String,
    client: Client,
}

/// The user's trades by status.
#[derive(Debug, Clone, Copy, Default)]
pub struct TradeCounts {
    pub pending: i64,
    pub open: i64,
    pub closed: i64,
    pub cancelled: i64,
}

/// Unix ms on this host's clock (the server's, both running here).
fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

fn client() -> anyhow::Result<Client> {
    Ok(Client::builder().timeout(REQUEST_TIMEOUT).build()?)
}

impl Api {
    /// Logs in with a password through `/api/auth/login/`.
    pub async fn login(addr: &str, username: &str, password: &str) -> anyhow::Result<Api> {
        let client = client()?;
        let base = format!("http://{addr}");
        let res = client
            .post(format!("{base}/api/auth/login/"))
            .json(&json!({"username": username, "password": password}))
            .send()
            .await
            .context("login")?;
        if res.status() != StatusCode::OK {
            bail!("login answered {}: {}", res.status(), res.text().await?);
        }
        let token = res.json::<Value>().await?["token"]
            .as_str()
            .context("login answered no token")?
            .to_string();
        Ok(Api {
            base,
            token,
            client,
        })
    }

    /// The same session on a restarted server (tokens live in the database).
    pub fn at(&self, addr: &str) -> Api {
        Api {
            base: format!("http://{addr}"),
            ..self.clone()
        }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> anyhow::Result<Value> {
        let mut req = self
            .client
            .request(method.clone(), format!("{}{path}", self.base))
            .header("Authorization", format!("Token {}", self.token));
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req
            .send()
            .await
            .with_context(|| format!("{method} {path}"))?;
        let status = res.status();
        let text = res.text().await?;
        if !status.is_success() {
            bail!("{method} {path} answered {status}: {text}");
        }
        Ok(if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text)?
        })
    }

    /// Saves `settings`, adds and activates the exchange key `key` (the Add Key form's body:
    /// its exchange chooses the account), makes a webhook URL and starts the bot (signal
    /// fetching first). Returns the webhook's path.
    pub async fn set_up_bot(&self, settings: Value, key: Value) -> anyhow::Result<String> {
        let records = self.call(Method::GET, "/api/bot-settings/", None).await?;
        let id = records[0]["id"].as_i64().context("no settings record")?;
        self.call(
            Method::PUT,
            &format!("/api/bot-settings/{id}/"),
            Some(settings),
        )
        .await?;
        let key = self.call(Method::POST, "/api/api-keys/", Some(key)).await?;
        self.call(
            Method::POST,
            &format!("/api/api-keys/{}/set_active/", key["id"]),
            None,
        )
        .await?;
        let webhook = self.call(Method::POST, "/api/webhook/", None).await?;
        let path = webhook["path"]
            .as_str()
            .context("no webhook path")?
            .to_string();
        self.call(Method::POST, "/api/command/signals/start/", None)
            .await?;
        self.call(Method::POST, "/api/command/bot/start/", None)
            .await?;
        Ok(path)
    }

    /// Posts a TradingView alert to the webhook; whether it was accepted (202). Each alert is
    /// a new body (the time now and a counter): the server acts once on the same body within
    /// its duplicate window (10 s), and a burst's rounds repeat symbols and signals.
    pub async fn alert(&self, webhook: &str, symbol: &str, signal: &str) -> bool {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let body = json!({
            "symbol": symbol,
            "signal": signal,
            "time": now_ms(),
            "id": NEXT_ID.fetch_add(1, Ordering::Relaxed),
        });
        let res = self
            .client
            .post(format!("{}{webhook}", self.base))
            .json(&body)
            .send()
            .await;
        matches!(res, Ok(r) if r.status() == StatusCode::ACCEPTED)
    }

    /// The symbols the server trades, from the user's latest signals (empty until the
    /// first candles are rated).
    pub async fn universe(&self) -> anyhow::Result<Vec<String>> {
        let signals = self.call(Method::GET, "/api/signals/", None).await?;
        Ok(signals
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|s| s["symbol"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The user's id.
    pub async fn user_id(&self) -> anyhow::Result<i64> {
        let me = self.call(Method::GET, "/api/auth/me/", None).await?;
        me["id"].as_i64().context("/api/auth/me/ answered no id")
    }

    /// Where the user's bot trades: the status's `venue` object (`{"exchange": "paper" |
    /// "bybit", "environment": …}`).
    pub async fn venue(&self) -> anyhow::Result<Value> {
        let status = self.call(Method::GET, "/api/bot/status/", None).await?;
        Ok(status["venue"].clone())
    }

    /// Whether `/healthz` answers 200 (the database is reachable).
    pub async fn healthy(&self) -> bool {
        let res = self
            .client
            .get(format!("{}/healthz", self.base))
            .send()
            .await;
        matches!(res, Ok(r) if r.status() == StatusCode::OK)
    }

    /// Whether the bot runs with signal fetching active on this server: the flags are on and
    /// `/metrics` says this instance runs the user's workers (a flag alone stays on while
    /// the workers wait for a lease).
    pub async fn bot_running(&self) -> anyhow::Result<bool> {
        let status = self.call(Method::GET, "/api/bot/status/", None).await?;
        if status["is_bot_running"] != true || status["is_signals_fetching_active"] != true {
            return Ok(false);
        }
        let me = self.call(Method::GET, "/api/auth/me/", None).await?;
        let user = format!("user_id=\"{}\"", me["id"]);
        let metrics = self
            .client
            .get(format!("{}/metrics", self.base))
            .send()
            .await?
            .text()
            .await?;
        Ok(metrics.lines().any(|line| {
            line.starts_with("signaldesk_bot_owned{")
                && line.contains(&user)
                && line.ends_with(" 1")
        }))
    }

    pub async fn trade_counts(&self) -> anyhow::Result<TradeCounts> {
        let count = |status: &'static str| async move {
            let page = self
                .call(
                    Method::GET,
                    &format!("/api/trades/?status={status}&page_size=1"),
                    None,
                )
                .await?;
            page["count"].as_i64().context("no trade count")
        };
        Ok(TradeCounts {
            pending: count("pending").await?,
            open: count("open").await?,
            closed: count("closed").await?,
            cancelled: count("cancelled").await?,
        })
    }
}
