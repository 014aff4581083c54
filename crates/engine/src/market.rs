//! Choosing and starting the market data source: the simulated market (the default, offline,
//! continuing its path across restarts through its anchor in the data dir) or Bybit's public
//! market data.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use signaldesk_venue::bybit::BybitMarketData;
use signaldesk_venue::market::sim::{
    default_symbols, Resumption, SimAnchor, SimConfig, SimulatedMarket,
};
use signaldesk_venue::market::MarketData;
use tokio::task::JoinHandle;

use crate::{market_anchor, EngineError};

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

/// Starts the configured market; the simulated one keeps its anchor in `data_dir`.
pub async fn start_market(
    config: &MarketConfig,
    data_dir: &Path,
) -> Result<RunningMarket, EngineError> {
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
            let anchor_path = market_anchor::path_in(data_dir);
            // Generating the history and replaying the ticks since the origin take CPU.
            let market = tokio::task::spawn_blocking(move || {
                resume_simulated(sim, &anchor_path).map(Arc::new)
            })
            .await
            .map_err(|e| EngineError::Config(e.to_string()))??;
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

/// The simulated market of `config`, continuing the path recorded at `anchor_path` when the
/// configuration still names it (docs/reliability.md, "Simulated market across restarts").
fn resume_simulated(config: SimConfig, anchor_path: &Path) -> Result<SimulatedMarket, EngineError> {
    let wall_ms = wall_clock_ms();
    let recorded = market_anchor::load(anchor_path);
    let (anchor, resumption) = SimAnchor::resume(recorded, &config, wall_ms);
    if resumption.needs_saving() {
        market_anchor::save(anchor_path, &anchor)?;
    }
    let began = Instant::now();
    let market = SimulatedMarket::resume(config, &anchor, wall_ms);
    let took_ms = began.elapsed().as_millis() as u64;
    let replayed_hours = (market.now_ms() - anchor.origin_ms) as f64 / 3_600_000.0;
    match resumption {
        Resumption::Fresh => tracing::info!(took_ms, "simulated market started"),
        Resumption::Continued => tracing::info!(
            took_ms,
            replayed_hours,
            "simulated market continued from its anchor"
        ),
        Resumption::SpeedChanged { from, to } => tracing::info!(
            took_ms,
            replayed_hours,
            from,
            to,
            "simulated market continued from its anchor at a new speed"
        ),
        Resumption::Replaced { changed } => tracing::warn!(
            changed,
            "the simulated market's {changed} changed: starting a new market (prices restart from the seed)"
        ),
        Resumption::Expired { market_days } => tracing::warn!(
            market_days,
            "the simulated market's path is {market_days} market days long, more than a start replays: starting a new market (prices restart from the seed)"
        ),
    }
    Ok(market)
}

fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
