//! Choosing and starting the market data source: the simulated market (the default, offline)
//! or Bybit's public market data.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use signaldesk_venue::bybit::BybitMarketData;
use signaldesk_venue::market::sim::{default_symbols, SimConfig, SimulatedMarket};
use signaldesk_venue::market::MarketData;
use tokio::task::JoinHandle;

use crate::EngineError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarketSource {
    Simulated,
    Bybit,
}

/// The `[market]` section of the configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct MarketConfig {
    pub source: MarketSource,
    /// The signal universe; empty means the default list of about 20 liquid USDT perpetuals.
    pub symbols: Vec<String>,
    /// Candle interval of the signals, in minutes.
    pub interval_minutes: u32,
    /// Simulated market: the seed (same seed, same market).
    pub seed: u64,
    /// Simulated market: simulated seconds per real second (60 = an hour of market a minute).
    pub speed: f64,
    pub bybit_rest_url: String,
    pub bybit_ws_url: String,
}

impl Default for MarketConfig {
    fn default() -> Self {
        let bybit = signaldesk_venue::bybit::BybitMarketConfig::default();
        MarketConfig {
            source: MarketSource::Simulated,
            symbols: Vec::new(),
            interval_minutes: 15,
            seed: 42,
            speed: 1.0,
            bybit_rest_url: bybit.rest_url,
            bybit_ws_url: bybit.ws_url,
        }
    }
}

impl MarketConfig {
    /// The configured universe, or the default one.
    pub fn universe(&self) -> Vec<String> {
        if self.symbols.is_empty() {
            default_symbols()
                .into_iter()
                .map(|s| s.instrument.symbol)
                .collect()
        } else {
            self.symbols.clone()
        }
    }
}

/// A started market: its data and the task that drives it.
pub struct RunningMarket {
    pub data: Arc<dyn MarketData>,
    pub task: JoinHandle<()>,
}

pub async fn start_market(config: &MarketConfig) -> Result<RunningMarket, EngineError> {
    let universe = config.universe();
    match config.source {
        MarketSource::Simulated => {
            let symbols: Vec<_> = default_symbols()
                .into_iter()
                .filter(|s| universe.contains(&s.instrument.symbol))
                .collect();
            if symbols.len() != universe.len() {
                return Err(EngineError::Config(
                    "market.symbols names a symbol the simulated market does not have".into(),
                ));
            }
            let sim = SimConfig {
                seed: config.seed,
                symbols,
                interval_minutes: config.interval_minutes,
                speed: config.speed,
                ..SimConfig::default()
            };
            // Generating the warm-up history takes a moment of CPU.
            let market = tokio::task::spawn_blocking(move || Arc::new(SimulatedMarket::new(sim)))
                .await
                .map_err(|e| EngineError::Config(e.to_string()))?;
            let task = market.spawn();
            Ok(RunningMarket { data: market, task })
        }
        MarketSource::Bybit => {
            let market = BybitMarketData::new(signaldesk_venue::bybit::BybitMarketConfig {
                rest_url: config.bybit_rest_url.clone(),
                ws_url: config.bybit_ws_url.clone(),
                symbols: universe,
                interval_minutes: config.interval_minutes,
                ..Default::default()
            })?;
            let task = market.start();
            Ok(RunningMarket {
                data: Arc::new(market),
                task,
            })
        }
    }
}
