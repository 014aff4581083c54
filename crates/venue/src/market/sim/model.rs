//! The price process of one simulated symbol, in log-price space:
//!
//! * **Volatility clustering**: a GARCH(1,1) variance updated every simulated minute from
//!   that minute's return (`var = omega + alpha r^2 + beta var`, persistence 0.98, so calm
//!   and wild hours come in runs), clamped to 0.25x..6x the long-run variance.
//! * **Regimes**: ranging (the price is pulled back to where the range began, half-life
//!   about 35 minutes) or trending (a drift of 0.05 to 0.15 long-run minute sigmas a minute,
//!   up or down). A regime lasts 5 hours on average (memoryless), then a new one is drawn:
//!   ranging 45%, trending 55%.
//! * **Jumps**: about one every two days per symbol, 2 to 5 hourly sigmas either way.
//! * **Correlation**: each tick's shock is 60% a market-wide shock shared by all symbols.
//! * A weak pull (a time constant of four days) back to the start price keeps a long run believable.
//!
//! Floating point is fine here: this is the random source of prices, not money. Prices
//! leave the simulator as `Decimal` rounded to the instrument's tick.

use super::rng::Rng;

const MINUTES_PER_DAY: f64 = 1440.0;
const GARCH_ALPHA: f64 = 0.10;
const GARCH_BETA: f64 = 0.88;
const RANGE_PULL_PER_MINUTE: f64 = 0.02;
const HOME_PULL_PER_MINUTE: f64 = 1.0 / (4.0 * MINUTES_PER_DAY);
const REGIME_SWITCH_PER_MINUTE: f64 = 1.0 / 300.0;
const RANGING_SHARE: f64 = 0.45;
const JUMPS_PER_MINUTE: f64 = 1.0 / (2.0 * MINUTES_PER_DAY);
const MARKET_CORRELATION: f64 = 0.6;

/// The kind of market a symbol is in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Regime {
    /// Mean-reverting around `anchor` (a log price).
    Ranging { anchor: f64 },
    /// Drifting by `drift` long-run minute sigmas a minute (negative: down).
    Trending { drift: f64 },
}

/// One symbol's random walk.
#[derive(Debug, Clone)]
pub struct PriceProcess {
    rng: Rng,
    log_price: f64,
    home: f64,
    long_var: f64,
    var: f64,
    minute_return: f64,
    regime: Regime,
}

impl PriceProcess {
    /// A process starting at `price` with a long-run daily volatility of `daily_vol`
    /// (0.03 = 3%).
    pub fn new(rng: Rng, price: f64, daily_vol: f64) -> Self {
        let log_price = price.max(f64::MIN_POSITIVE).ln();
        let long_var = daily_vol * daily_vol / MINUTES_PER_DAY;
        Self {
            rng,
            log_price,
            home: log_price,
            long_var,
            var: long_var,
            minute_return: 0.0,
            regime: Regime::Ranging { anchor: log_price },
        }
    }

    pub fn price(&self) -> f64 {
        self.log_price.exp()
    }

    pub fn regime(&self) -> Regime {
        self.regime
    }

    /// Current volatility relative to the long run (1.0 = normal).
    pub fn vol_ratio(&self) -> f64 {
        (self.var / self.long_var).sqrt()
    }

    /// A draw for the volume model, from this symbol's own stream.
    pub fn uniform(&mut self) -> f64 {
        self.rng.uniform()
    }

    /// Moves the price by one tick of `dt_minutes`, with `market_shock` the standard normal
    /// shock shared by all symbols this tick.
    pub fn tick(&mut self, dt_minutes: f64, market_shock: f64) {
        let long_sigma = self.long_var.sqrt();
        let drift = match self.regime {
            Regime::Ranging { anchor } => -RANGE_PULL_PER_MINUTE * (self.log_price - anchor),
            Regime::Trending { drift } => drift * long_sigma,
        } - HOME_PULL_PER_MINUTE * (self.log_price - self.home);
        let own = self.rng.normal();
        let shock = MARKET_CORRELATION * market_shock
            + (1.0 - MARKET_CORRELATION * MARKET_CORRELATION).sqrt() * own;
        let mut r = drift * dt_minutes + (self.var * dt_minutes).sqrt() * shock;
        if self.rng.uniform() < JUMPS_PER_MINUTE * dt_minutes {
            let size = self.rng.between(2.0, 5.0) * long_sigma * 60f64.sqrt();
            r += if self.rng.uniform() < 0.5 {
                size
            } else {
                -size
            };
        }
        self.log_price += r;
        self.minute_return += r;
    }

    /// Closes a simulated minute: updates the volatility and maybe switches regime.
    pub fn end_minute(&mut self) {
        let omega = (1.0 - GARCH_ALPHA - GARCH_BETA) * self.long_var;
        let r2 = self.minute_return * self.minute_return;
        self.var = (omega + GARCH_ALPHA * r2 + GARCH_BETA * self.var)
            .clamp(0.25 * self.long_var, 6.0 * self.long_var);
        self.minute_return = 0.0;
        if self.rng.uniform() < REGIME_SWITCH_PER_MINUTE {
            self.regime = if self.rng.uniform() < RANGING_SHARE {
                Regime::Ranging {
                    anchor: self.log_price,
                }
            } else {
                let drift = self.rng.between(0.05, 0.15);
                Regime::Trending {
                    drift: if self.rng.uniform() < 0.5 {
                        drift
                    } else {
                        -drift
                    },
                }
            };
        }
    }
}
