//! [`BybitMarketData`]: Bybit V5 public market data behind [`MarketData`], no keys needed.
//! Candles and instruments come from REST; live prices and closed candles from the public
//! websocket once [`BybitMarketData::start`] has been called.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rust_decimal::Decimal;
use signaldesk_core::market::{Candle, Instrument};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::http::client::{KLINE_PAGE, MAINNET_REST_URL};
use super::http::BybitHttpClient;
use super::ws::messages::{kline_topic, tickers_topic};
use super::ws::{spawn_public_stream, PublicMessage, WsConfig, MAINNET_PUBLIC_LINEAR_URL};
use super::{interval_minutes, interval_name};
use crate::error::VenueError;
use crate::market::candles::minutes_ms;
use crate::market::{MarketData, MarketEvent};

/// Where and what to read. The URLs can point at a local fake server for tests.
#[derive(Debug, Clone)]
pub struct BybitMarketConfig {
    pub rest_url: String,
    pub ws_url: String,
    /// Symbols to stream (ticks and closed candles); every trading USDT perpetual is listed.
    pub symbols: Vec<String>,
    /// Interval of the streamed candles, in minutes (a Bybit interval).
    pub interval_minutes: u32,
    pub ping_interval: Duration,
    pub reconnect_min: Duration,
    pub reconnect_max: Duration,
    pub request_timeout: Duration,
    pub event_capacity: usize,
}

impl Default for BybitMarketConfig {
    fn default() -> Self {
        Self {
            rest_url: MAINNET_REST_URL.into(),
            ws_url: MAINNET_PUBLIC_LINEAR_URL.into(),
            symbols: Vec::new(),
            interval_minutes: 15,
            ping_interval: Duration::from_secs(20),
            reconnect_min: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(30),
            request_timeout: Duration::from_secs(10),
            event_capacity: 16_384,
        }
    }
}

pub struct BybitMarketData {
    config: BybitMarketConfig,
    http: BybitHttpClient,
    events: broadcast::Sender<MarketEvent>,
    prices: Arc<Mutex<HashMap<String, Decimal>>>,
    /// The latest streamed `fundingRate` of each symbol.
    funding_rates: Arc<Mutex<HashMap<String, Decimal>>>,
    instruments: tokio::sync::Mutex<Option<Vec<Instrument>>>,
    /// Adds a topic to the running stream (set by [`BybitMarketData::start`]).
    watch: Mutex<Option<mpsc::UnboundedSender<String>>>,
}

fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn bybit_interval(minutes: u32) -> Result<&'static str, VenueError> {
    interval_name(minutes)
        .ok_or_else(|| VenueError::InvalidRequest(format!("Bybit has no {minutes}-minute candles")))
}

impl BybitMarketData {
    pub fn new(config: BybitMarketConfig) -> Result<Self, VenueError> {
        bybit_interval(config.interval_minutes)?;
        let http = BybitHttpClient::new(&config.rest_url, config.request_timeout)?;
        let (events, _) = broadcast::channel(config.event_capacity.max(16));
        Ok(Self {
            config,
            http,
            events,
            prices: Arc::new(Mutex::new(HashMap::new())),
            funding_rates: Arc::new(Mutex::new(HashMap::new())),
            instruments: tokio::sync::Mutex::new(None),
            watch: Mutex::new(None),
        })
    }

    /// The `n` trading USDT perpetuals with the largest 24-hour turnover, largest first: the
    /// universe rated when none is configured.
    pub async fn largest_by_turnover(&self, n: usize) -> Result<Vec<String>, VenueError> {
        let listed: std::collections::HashSet<String> = self
            .instruments()
            .await?
            .into_iter()
            .map(|i| i.symbol)
            .collect();
        let mut ranked: Vec<(Decimal, String)> = self
            .http
            .tickers()
            .await?
            .into_iter()
            .filter(|t| listed.contains(&t.symbol))
            .map(|t| {
                let turnover = t
                    .turnover_24h
                    .as_deref()
                    .and_then(|v| v.parse::<Decimal>().ok())
                    .unwrap_or_default();
                (turnover, t.symbol)
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        Ok(ranked.into_iter().take(n).map(|(_, s)| s).collect())
    }

    /// Opens the public stream for the configured symbols: ticks from `tickers.{symbol}`,
    /// closed candles from `kline.{interval}.{symbol}` pushes with `confirm=true`. Every
    /// closed candle is published once and in order: a repeated one is dropped, and candles
    /// missed while disconnected are read from REST and published before the next one.
    /// Runs until the returned task is aborted.
    pub fn start(&self) -> JoinHandle<()> {
        let interval = interval_name(self.config.interval_minutes).unwrap_or("15");
        let topics = self
            .config
            .symbols
            .iter()
            .flat_map(|s| [tickers_topic(s), kline_topic(interval, s)])
            .collect();
        let ws = WsConfig {
            url: self.config.ws_url.clone(),
            topics,
            ping_interval: self.config.ping_interval,
            reconnect_min: self.config.reconnect_min,
            reconnect_max: self.config.reconnect_max,
        };
        let (watch, added) = mpsc::unbounded_channel();
        *self.watch.lock().unwrap_or_else(|e| e.into_inner()) = Some(watch);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let stream = spawn_public_stream(ws, added, move |message| {
            let _ = tx.send(message);
        });
        let mut publisher = Publisher {
            http: self.http.clone(),
            events: self.events.clone(),
            prices: Arc::clone(&self.prices),
            funding_rates: Arc::clone(&self.funding_rates),
            last_closed: HashMap::new(),
        };
        tokio::spawn(async move {
            let _stream = AbortOnDrop(stream);
            while let Some(message) = rx.recv().await {
                publisher.handle(message).await;
            }
        })
    }
}

/// Aborts a task when dropped (the stream lives as long as the publisher).
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Turns stream messages into market events.
struct Publisher {
    http: BybitHttpClient,
    events: broadcast::Sender<MarketEvent>,
    prices: Arc<Mutex<HashMap<String, Decimal>>>,
    funding_rates: Arc<Mutex<HashMap<String, Decimal>>>,
    /// Open time of the last closed candle published, per symbol and interval.
    last_closed: HashMap<(String, u32), i64>,
}

impl Publisher {
    fn publish(&self, event: MarketEvent) {
        // Nobody listening is fine.
        let _ = self.events.send(event);
    }

    async fn handle(&mut self, message: PublicMessage) {
        match message {
            PublicMessage::Ticker {
                symbol,
                last_price,
                funding_rate,
                ts_ms,
            } => {
                if let Some(rate) = funding_rate {
                    self.funding_rates
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(symbol.clone(), rate);
                }
                let Some(price) = last_price else {
                    return;
                };
                self.prices
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(symbol.clone(), price);
                self.publish(MarketEvent::Tick {
                    symbol,
                    price,
                    ts_ms,
                });
            }
            PublicMessage::Kline {
                symbol,
                interval,
                candle,
                confirm: true,
            } => {
                let Some(minutes) = interval_minutes(&interval) else {
                    return;
                };
                let key = (symbol.clone(), minutes);
                if let Some(&last) = self.last_closed.get(&key) {
                    if candle.open_time_ms <= last {
                        return; // published already
                    }
                    if candle.open_time_ms > last + minutes_ms(minutes) {
                        self.backfill(&symbol, &interval, minutes, last, candle.open_time_ms)
                            .await;
                    }
                }
                self.last_closed.insert(key, candle.open_time_ms);
                self.publish(MarketEvent::CandleClosed {
                    symbol,
                    interval_minutes: minutes,
                    candle,
                });
            }
            _ => {}
        }
    }

    /// Publishes the closed candles strictly between `after` and `before` (open times).
    async fn backfill(&self, symbol: &str, interval: &str, minutes: u32, after: i64, before: i64) {
        let missing = ((before - after) / minutes_ms(minutes)) as usize;
        match self
            .http
            .klines(symbol, interval, missing.min(KLINE_PAGE), Some(before - 1))
            .await
        {
            Ok((candles, _)) => {
                for candle in candles
                    .into_iter()
                    .filter(|c| c.open_time_ms > after && c.open_time_ms < before)
                {
                    self.publish(MarketEvent::CandleClosed {
                        symbol: symbol.to_string(),
                        interval_minutes: minutes,
                        candle,
                    });
                }
            }
            Err(e) => tracing::warn!(
                symbol,
                error = %e,
                "could not read the candles missed while disconnected"
            ),
        }
    }
}

#[async_trait]
impl MarketData for BybitMarketData {
    /// Every trading USDT perpetual Bybit lists, whatever the streamed symbols: any of them
    /// can be traded (read once, then kept).
    async fn instruments(&self) -> Result<Vec<Instrument>, VenueError> {
        let mut cache = self.instruments.lock().await;
        if let Some(list) = cache.as_ref() {
            return Ok(list.clone());
        }
        let list = self.http.instruments().await?;
        *cache = Some(list.clone());
        Ok(list)
    }

    async fn history(
        &self,
        symbol: &str,
        interval_minutes: u32,
        limit: usize,
    ) -> Result<Vec<Candle>, VenueError> {
        let interval = bybit_interval(interval_minutes)?;
        let len = minutes_ms(interval_minutes);
        // One more than asked: the newest row is the candle still open.
        let wanted = limit + 1;
        let mut candles: Vec<Candle> = Vec::with_capacity(wanted);
        let mut end = None;
        let mut now = None;
        while candles.len() < wanted {
            let ask = (wanted - candles.len()).min(KLINE_PAGE);
            let (page, server_time) = self.http.klines(symbol, interval, ask, end).await?;
            now = now.or(server_time);
            let Some(oldest) = page.first().map(|c| c.open_time_ms) else {
                break;
            };
            let full = page.len() >= ask;
            candles.extend(page);
            if !full {
                break;
            }
            end = Some(oldest - 1);
        }
        candles.sort_by_key(|c| c.open_time_ms);
        candles.dedup_by_key(|c| c.open_time_ms);
        let now = now.unwrap_or_else(wall_clock_ms);
        candles.retain(|c| c.open_time_ms + len <= now);
        let excess = candles.len().saturating_sub(limit);
        candles.drain(..excess);
        Ok(candles)
    }

    async fn last_price(&self, symbol: &str) -> Result<Decimal, VenueError> {
        let streamed = self
            .prices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(symbol)
            .copied();
        if let Some(price) = streamed {
            return Ok(price);
        }
        let ticker = self
            .http
            .ticker(symbol)
            .await?
            .ok_or_else(|| VenueError::UnknownSymbol(symbol.to_string()))?;
        super::http::models::dec("lastPrice", &ticker.last_price).map_err(VenueError::from)
    }

    /// Streams the ticker of a symbol outside the configured ones from now on (a trade on a
    /// symbol Bybit lists but the ratings do not cover needs its ticks).
    fn watch(&self, symbol: &str) {
        if self.config.symbols.iter().any(|s| s == symbol) {
            return;
        }
        if let Some(watch) = self
            .watch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            let _ = watch.send(tickers_topic(symbol));
        }
    }

    /// The `fundingRate` the tickers stream last gave: Bybit's rate of the coming
    /// settlement, whatever `at_ms` (the public stream has no history).
    fn funding_rate(&self, symbol: &str, _at_ms: i64) -> Option<Decimal> {
        self.funding_rates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(symbol)
            .copied()
    }

    fn subscribe(&self) -> broadcast::Receiver<MarketEvent> {
        self.events.subscribe()
    }

    fn now_ms(&self) -> i64 {
        wall_clock_ms()
    }
}
