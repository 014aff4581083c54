//! What pins the simulated market's path, so it continues across restarts.
//!
//! The prices at market time `t` are a function of the [`PathKey`] (seed, symbols, interval,
//! tick sizes), the origin (the market time where the generated history ends and the live
//! 2-second ticks begin) and `t`. A [`MarketClock`] maps wall time to market time. Together
//! they make a [`SimAnchor`], which the engine records in the data dir on the first start and
//! reads back on the next one: [`SimAnchor::resume`] decides whether the old path goes on
//! (same key), goes on at a new speed (the clock is re-based at the current market time, so
//! market time stays continuous), or is replaced (the key changed, or the path has grown
//! longer than [`MAX_REPLAY_DAYS`] of market, which a start would have to replay: a fresh
//! start).

use serde::{Deserialize, Serialize};

use super::SimConfig;
use crate::market::candles::bucket_start;

/// Bump when the price model or the default universe changes, so a recorded anchor from an
/// older build is replaced instead of continued along a path it never had.
pub const MODEL_VERSION: u32 = 1;

/// The longest path a start replays, in market days (about 3 s of one core in release,
/// docs/benchmarks.md); an older path is replaced by a fresh one.
pub const MAX_REPLAY_DAYS: i64 = 30;

/// How wall time maps to market time: `market = market_ms + (wall - wall_ms) * speed`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarketClock {
    /// A wall-clock instant (Unix ms)...
    pub wall_ms: i64,
    /// ...and the market time at that instant (Unix ms).
    pub market_ms: i64,
    /// Simulated seconds per real second.
    pub speed: f64,
}

impl MarketClock {
    /// The market time at wall time `wall_ms`.
    pub fn market_at(&self, wall_ms: i64) -> i64 {
        self.market_ms + ((wall_ms - self.wall_ms) as f64 * self.speed) as i64
    }

    /// The same clock re-based at `wall_ms` (market time unchanged there), running at `speed`
    /// from then on.
    pub fn with_speed(&self, wall_ms: i64, speed: f64) -> MarketClock {
        MarketClock {
            wall_ms,
            market_ms: self.market_at(wall_ms),
            speed,
        }
    }
}

/// Everything the simulated path depends on besides time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathKey {
    pub model_version: u32,
    pub seed: u64,
    pub symbols: Vec<String>,
    pub interval_minutes: u32,
    pub history_candles: usize,
    pub tick_seconds: u32,
    pub history_tick_seconds: u32,
}

impl PathKey {
    pub fn of(config: &SimConfig) -> PathKey {
        PathKey {
            model_version: MODEL_VERSION,
            seed: config.seed,
            symbols: config
                .symbols
                .iter()
                .map(|s| s.instrument.symbol.clone())
                .collect(),
            interval_minutes: config.interval_minutes.max(1),
            history_candles: config.history_candles,
            tick_seconds: config.tick_seconds.max(1),
            history_tick_seconds: config.history_tick_seconds.max(1),
        }
    }

    /// The configuration that walks this path (at real-time speed): what a replay of a
    /// recorded market needs. Fails for a path of another model version or naming a symbol
    /// this build's universe does not have.
    pub fn config(&self) -> Result<SimConfig, String> {
        if self.model_version != MODEL_VERSION {
            return Err(format!(
                "the simulated market was recorded by price model {}, this build has model {MODEL_VERSION}",
                self.model_version
            ));
        }
        let universe = super::default_symbols();
        let symbols = self
            .symbols
            .iter()
            .map(|name| {
                universe
                    .iter()
                    .find(|s| &s.instrument.symbol == name)
                    .cloned()
                    .ok_or_else(|| format!("the simulated market has no symbol {name}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SimConfig {
            seed: self.seed,
            symbols,
            interval_minutes: self.interval_minutes,
            history_candles: self.history_candles,
            tick_seconds: self.tick_seconds,
            history_tick_seconds: self.history_tick_seconds,
            ..SimConfig::default()
        })
    }

    /// The first field that differs from `other`, named as in the configuration.
    fn first_difference(&self, other: &PathKey) -> Option<&'static str> {
        [
            (self.model_version != other.model_version, "model version"),
            (self.seed != other.seed, "seed"),
            (self.symbols != other.symbols, "symbols"),
            (
                self.interval_minutes != other.interval_minutes,
                "interval_minutes",
            ),
            (
                self.history_candles != other.history_candles,
                "history_candles",
            ),
            (self.tick_seconds != other.tick_seconds, "tick_seconds"),
            (
                self.history_tick_seconds != other.history_tick_seconds,
                "history_tick_seconds",
            ),
        ]
        .into_iter()
        .find_map(|(differs, name)| differs.then_some(name))
    }
}

/// A recorded simulated market: its path and its clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimAnchor {
    pub path: PathKey,
    /// Market time where the history ends and the live ticks begin (Unix ms, on a minute).
    pub origin_ms: i64,
    pub clock: MarketClock,
}

/// What [`SimAnchor::resume`] did with the recorded anchor.
#[derive(Debug, Clone, PartialEq)]
pub enum Resumption {
    /// Nothing was recorded: a new path starts now.
    Fresh,
    /// The recorded path and clock go on unchanged.
    Continued,
    /// The recorded path goes on; the clock was re-based at the current market time.
    SpeedChanged { from: f64, to: f64 },
    /// The configuration names another path (`changed` says what differs): a new path
    /// starts now.
    Replaced { changed: &'static str },
    /// The path would need more than [`MAX_REPLAY_DAYS`] of replay (`market_days`): a new
    /// path starts now.
    Expired { market_days: i64 },
}

impl Resumption {
    /// Whether the anchor changed and must be recorded again.
    pub fn needs_saving(&self) -> bool {
        !matches!(self, Resumption::Continued)
    }
}

/// The speed a market runs at: `speed` when positive, else real time.
pub fn running_speed(speed: f64) -> f64 {
    if speed > 0.0 && speed.is_finite() {
        speed
    } else {
        1.0
    }
}

impl SimAnchor {
    /// A new path for `config` starting at wall time `wall_ms` (or at `config.start_ms`).
    pub fn fresh(config: &SimConfig, wall_ms: i64) -> SimAnchor {
        let origin_ms = bucket_start(config.start_ms.unwrap_or(wall_ms), 1);
        SimAnchor {
            path: PathKey::of(config),
            origin_ms,
            clock: MarketClock {
                wall_ms,
                market_ms: origin_ms,
                speed: running_speed(config.speed),
            },
        }
    }

    /// The anchor to run `config` with at wall time `wall_ms`, given what was recorded.
    pub fn resume(
        recorded: Option<SimAnchor>,
        config: &SimConfig,
        wall_ms: i64,
    ) -> (SimAnchor, Resumption) {
        let Some(recorded) = recorded else {
            return (SimAnchor::fresh(config, wall_ms), Resumption::Fresh);
        };
        if let Some(changed) = PathKey::of(config).first_difference(&recorded.path) {
            return (
                SimAnchor::fresh(config, wall_ms),
                Resumption::Replaced { changed },
            );
        }
        let speed = running_speed(config.speed);
        let age_days = (recorded.clock.market_at(wall_ms) - recorded.origin_ms) / 86_400_000;
        if age_days > MAX_REPLAY_DAYS {
            return (
                SimAnchor::fresh(config, wall_ms),
                Resumption::Expired {
                    market_days: age_days,
                },
            );
        }
        if speed == recorded.clock.speed {
            return (recorded, Resumption::Continued);
        }
        let from = recorded.clock.speed;
        let anchor = SimAnchor {
            clock: recorded.clock.with_speed(wall_ms, speed),
            ..recorded
        };
        (anchor, Resumption::SpeedChanged { from, to: speed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_maps_wall_time_to_market_time() {
        let clock = MarketClock {
            wall_ms: 1_000,
            market_ms: 60_000,
            speed: 180.0,
        };
        assert_eq!(clock.market_at(1_000), 60_000);
        assert_eq!(clock.market_at(2_000), 60_000 + 180_000);
        let faster = clock.with_speed(2_000, 600.0);
        assert_eq!(faster.market_at(2_000), clock.market_at(2_000));
        assert_eq!(faster.market_at(3_000), 240_000 + 600_000);
    }

    #[test]
    fn odd_speeds_run_in_real_time() {
        assert_eq!(running_speed(0.0), 1.0);
        assert_eq!(running_speed(-5.0), 1.0);
        assert_eq!(running_speed(f64::NAN), 1.0);
        assert_eq!(running_speed(60.0), 60.0);
    }
}
