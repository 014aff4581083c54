//! The markets a process trades on, each its data and its rating hub: the simulated market
//! (offline, continuing its path across restarts through its anchor in the data dir), which
//! paper accounts use by default, and Bybit's public market data, which every Bybit account
//! reads (and paper accounts with `[paper] market = "bybit"`).

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

use crate::background::Background;
use crate::signals::RatingHub;
use crate::{market_anchor, EngineError};

/// The `[market]` section of the configuration: the simulated market's settings, where
/// Bybit's public market is, and what both rate. Which market a user trades on is not a
/// setting here: their account decides (docs/accounts.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct MarketConfig {
    /// Gone: each user's account chooses its market. Given, the configuration is refused with
    /// a sentence saying what replaced it ([`MarketConfig::refuse_retired`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The rated universe of both markets; empty means each market's default: the simulated
    /// market's ~20 symbols, Bybit's [`BYBIT_DEFAULT_UNIVERSE`] largest by 24-hour turnover.
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
            source: None,
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
    /// The simulated market's universe: the configured one, or its default.
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

/// A market as the bot uses it: its prices and candles, and the ratings made from them. An
/// account is always paired with the market it trades on ([`crate::accounts::UserAccount`]).
pub struct Market {
    pub data: Arc<dyn MarketData>,
    pub hub: Arc<RatingHub>,
}

impl Market {
    /// A market over parts made elsewhere (tests).
    pub fn assembled(data: Arc<dyn MarketData>, hub: Arc<RatingHub>) -> Arc<Market> {
        Arc::new(Market { data, hub })
    }

    /// Whether the market lists `symbol` for trading (Bybit: any trading USDT perpetual it
    /// lists, not only the rated universe).
    pub async fn lists(&self, symbol: &str) -> Result<bool, EngineError> {
        if self.hub.covers(symbol) {
            return Ok(true);
        }
        Ok(self
            .data
            .instruments()
            .await?
            .iter()
            .any(|i| i.symbol == symbol))
    }

    /// Starts the simulated market and its ratings.
    pub async fn start_simulated(
        config: &MarketConfig,
        data_dir: &Path,
        background: &Background,
    ) -> Result<Arc<Market>, EngineError> {
        let running = start_market(config, data_dir, true).await?;
        Market::rated(running, config, background).await
    }

    /// Starts following Bybit's public market and its ratings.
    pub async fn start_bybit(
        config: &MarketConfig,
        background: &Background,
    ) -> Result<Arc<Market>, EngineError> {
        let running = start_market(config, Path::new(""), false).await?;
        let market = Market::rated(running, config, background).await?;
        tracing::info!(rest = %config.bybit_rest_url, "Bybit market data started");
        Ok(market)
    }

    async fn rated(
        running: RunningMarket,
        config: &MarketConfig,
        background: &Background,
    ) -> Result<Arc<Market>, EngineError> {
        background.keep(running.task);
        let (hub, hub_task) = RatingHub::start(
            running.data.clone(),
            running.universe,
            config.interval_minutes,
        )
        .await?;
        background.keep(hub_task);
        Ok(Arc::new(Market {
            data: running.data,
            hub,
        }))
    }
}

impl MarketConfig {
    /// Refuses a setting that no longer exists, saying what replaced it.
    pub fn refuse_retired(&self) -> Result<(), EngineError> {
        match &self.source {
            None => Ok(()),
            Some(_) => Err(EngineError::Config(
                "[market] source is gone: each user's active API key chooses where their bot \
                 trades and the market it reads (Bybit keys read Bybit's public market); \
                 set [paper] market = \"simulated\" or \"bybit\" for paper accounts"
                    .into(),
            )),
        }
    }
}

/// A started market: its data, the task that drives it and the symbols it rates.
struct RunningMarket {
    data: Arc<dyn MarketData>,
    task: JoinHandle<()>,
    universe: Vec<String>,
}

/// How many symbols Bybit's market rates when `[market] symbols` is empty: its largest by
/// 24-hour turnover.
pub const BYBIT_DEFAULT_UNIVERSE: usize = 20;

/// Starts the simulated market (keeping its anchor in `data_dir`) or Bybit's.
async fn start_market(
    config: &MarketConfig,
    data_dir: &Path,
    simulated: bool,
) -> Result<RunningMarket, EngineError> {
    match simulated {
        true => {
            let universe = config.universe();
            let sim = simulated_config(config)?;
            let anchor_path = market_anchor::path_in(data_dir);
            // Generating the history and replaying the ticks since the origin take CPU.
            let market = tokio::task::spawn_blocking(move || {
                resume_simulated(sim, &anchor_path).map(Arc::new)
            })
            .await
            .map_err(|e| EngineError::Config(e.to_string()))??;
            let task = market.spawn();
            Ok(RunningMarket {
                data: market,
                task,
                universe,
            })
        }
        false => {
            let bybit = |symbols: Vec<String>| {
                BybitMarketData::new(signaldesk_venue::bybit::BybitMarketConfig {
                    rest_url: config.bybit_rest_url.clone(),
                    ws_url: config.bybit_ws_url.clone(),
                    symbols,
                    interval_minutes: config.interval_minutes,
                    ..Default::default()
                })
            };
            let universe = match config.symbols.is_empty() {
                false => config.symbols.clone(),
                true => {
                    bybit(Vec::new())?
                        .largest_by_turnover(BYBIT_DEFAULT_UNIVERSE)
                        .await?
                }
            };
            let market = bybit(universe.clone())?;
            let task = market.start();
            Ok(RunningMarket {
                data: Arc::new(market),
                task,
                universe,
            })
        }
    }
}

/// The simulated market `config` describes.
pub fn simulated_config(config: &MarketConfig) -> Result<SimConfig, EngineError> {
    let universe = config.universe();
    let symbols: Vec<_> = default_symbols()
        .into_iter()
        .filter(|s| universe.contains(&s.instrument.symbol))
        .collect();
    if symbols.len() != universe.len() {
        return Err(EngineError::Config(
            "market.symbols names a symbol the simulated market does not have".into(),
        ));
    }
    Ok(SimConfig {
        seed: config.seed,
        symbols,
        interval_minutes: config.interval_minutes,
        speed: config.speed,
        ..SimConfig::default()
    })
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

pub(crate) fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
