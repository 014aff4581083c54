//! The simulated market: seeded and deterministic (the same seed and start time give the
//! same prices and candles), offline, with volatility clustering, trending and ranging
//! regimes and jumps ([`model`]). It generates enough history before "now" for slow
//! indicators to be warm, then moves either by hand ([`SimulatedMarket::step`],
//! [`SimulatedMarket::advance_ticks`], [`SimulatedMarket::advance_to`]; tests never sleep)
//! or on a task at `speed` simulated seconds per real second ([`SimulatedMarket::spawn`]).
//!
//! Every tick moves every symbol; ticks build 1-minute candles, which are kept (the history
//! plus a day) and aggregated on request to any interval; a candle of the configured
//! interval is published when it closes, just before the tick that opens the next one.
//!
//! # Across restarts
//!
//! The path is a function of the seed, the universe and market time: the history always ends
//! at the origin and live ticks follow every `tick_seconds` from there. A [`SimAnchor`]
//! records that origin and the [`MarketClock`] (wall time to market time); the engine keeps it
//! in the data dir. [`SimulatedMarket::resume`] rebuilds the same history and replays the
//! live ticks quietly up to the clock's market time, so after a restart the market shows at
//! market time `t` exactly the prices the first run had at `t` (the replay runs at several
//! simulated days a second; docs/benchmarks.md). A new speed re-bases the clock at the
//! current market time; another seed, universe or interval starts a new path.

pub mod anchor;
pub mod model;
pub mod rng;
pub mod symbols;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use signaldesk_core::market::{Candle, Instrument};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use self::anchor::running_speed;
pub use self::anchor::{MarketClock, Resumption, SimAnchor};
use self::model::PriceProcess;
use self::rng::Rng;
pub use self::symbols::{default_symbols, SimSymbol};
use super::candles::{aggregate, bucket_start, minutes_ms};
use super::{MarketData, MarketEvent};
use crate::error::VenueError;

/// The simulated market's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    pub seed: u64,
    pub symbols: Vec<SimSymbol>,
    /// The interval whose closed candles are published (minutes).
    pub interval_minutes: u32,
    /// Simulated seconds per real second when spawned (60 = an hour of market a minute).
    pub speed: f64,
    /// Candles of `interval_minutes` generated before the start.
    pub history_candles: usize,
    /// Simulated seconds between live ticks.
    pub tick_seconds: u32,
    /// Simulated seconds between ticks while generating the history (coarser is faster;
    /// the process is the same).
    pub history_tick_seconds: u32,
    /// The origin: where the history ends and the live ticks begin (Unix ms, floored to the
    /// minute); the wall clock if `None`.
    pub start_ms: Option<i64>,
    /// Capacity of the event channel (a subscriber further behind loses events).
    pub event_capacity: usize,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 42,
            symbols: default_symbols(),
            interval_minutes: 15,
            speed: 1.0,
            history_candles: 300,
            tick_seconds: 2,
            history_tick_seconds: 10,
            start_ms: None,
            event_capacity: 16_384,
        }
    }
}

/// The seeded simulated market.
pub struct SimulatedMarket {
    config: SimConfig,
    /// Where a spawned market's time comes from.
    clock: MarketClock,
    instruments: Vec<Instrument>,
    state: Mutex<SimState>,
    events: broadcast::Sender<MarketEvent>,
}

struct SimState {
    now_ms: i64,
    market_rng: Rng,
    symbols: Vec<SymbolState>,
    index: HashMap<String, usize>,
    interval_minutes: u32,
    retain_minutes: usize,
}

struct SymbolState {
    spec: SimSymbol,
    process: PriceProcess,
    last_price: Decimal,
    bar: Option<MinuteBar>,
    minutes: VecDeque<Candle>,
}

/// A 1-minute candle in the making, in the process's own numbers.
struct MinuteBar {
    open_time_ms: i64,
    open: f64,
    high: f64,
    low: f64,
    close: f64,
    volume: f64,
}

/// The time between two ticks of generated history.
fn history_step_ms(config: &SimConfig) -> i64 {
    i64::from(config.history_tick_seconds.max(1)) * 1000
}

fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// `price` as a quoted price: rounded to the tick, at least one tick.
fn quote(price: f64, instrument: &Instrument) -> Decimal {
    fast_round(price, instrument.tick_size, Rounding::Nearest)
        .unwrap_or_else(|| {
            Decimal::from_f64(price)
                .map(|p| instrument.round_price(p))
                .unwrap_or(instrument.tick_size)
        })
        .max(instrument.tick_size)
}

/// `volume` as a traded quantity: rounded down to the quantity step.
fn quantity(volume: f64, instrument: &Instrument) -> Decimal {
    fast_round(volume, instrument.qty_step, Rounding::Down).unwrap_or_else(|| {
        Decimal::from_f64(volume)
            .map(|v| instrument.round_qty_down(v))
            .unwrap_or(Decimal::ZERO)
    })
}

#[derive(Clone, Copy)]
enum Rounding {
    /// Half a step away from zero, as [`Instrument::round_price`].
    Nearest,
    /// Towards negative infinity, as [`Instrument::round_qty_down`].
    Down,
}

/// `value` rounded to a multiple of `step` in floating point, which is what generating a long
/// history costs most in exact decimals; `None` (so the exact path decides) when `value` is
/// so near a rounding boundary that floating point could put it on the wrong side.
fn fast_round(value: f64, step: Decimal, rounding: Rounding) -> Option<Decimal> {
    use rust_decimal::prelude::ToPrimitive;
    let steps = value / step.to_f64().filter(|s| *s > 0.0)?;
    if !steps.is_finite() || steps.abs() > 1e15 {
        return None;
    }
    let margin = 1e-9 + steps.abs() * 1e-12;
    let below = steps.floor();
    let fraction = steps - below;
    let whole = match rounding {
        Rounding::Nearest if (fraction - 0.5).abs() < margin => return None,
        Rounding::Nearest => steps.round(),
        Rounding::Down if fraction < margin || fraction > 1.0 - margin => return None,
        Rounding::Down => below,
    };
    let mantissa = step.mantissa().checked_mul(whole as i128)?;
    Decimal::try_from_i128_with_scale(mantissa, step.scale())
        .ok()
        .map(|d| d.normalize())
}

impl MinuteBar {
    fn candle(&self, instrument: &Instrument) -> Candle {
        // Rounding is monotonic, so these equal the extremes of the rounded ticks.
        Candle {
            open_time_ms: self.open_time_ms,
            open: quote(self.open, instrument),
            high: quote(self.high, instrument),
            low: quote(self.low, instrument),
            close: quote(self.close, instrument),
            volume: quantity(self.volume, instrument),
        }
    }
}

impl SimState {
    /// Every symbol of `config` at its start price at `now_ms`, keeping `retain_minutes`
    /// closed 1-minute candles each.
    fn new(
        config: &SimConfig,
        now_ms: i64,
        interval_minutes: u32,
        retain_minutes: usize,
    ) -> SimState {
        let symbols: Vec<SymbolState> = config
            .symbols
            .iter()
            .map(|spec| {
                let rng = Rng::for_stream(config.seed, &spec.instrument.symbol);
                let start_price = spec.start_price.try_into().unwrap_or(1.0);
                SymbolState {
                    spec: spec.clone(),
                    process: PriceProcess::new(rng, start_price, spec.daily_vol),
                    last_price: spec.start_price,
                    bar: None,
                    minutes: VecDeque::new(),
                }
            })
            .collect();
        let index = symbols
            .iter()
            .enumerate()
            .map(|(i, s)| (s.spec.instrument.symbol.clone(), i))
            .collect();
        SimState {
            now_ms,
            market_rng: Rng::for_stream(config.seed, "market"),
            symbols,
            index,
            interval_minutes,
            retain_minutes,
        }
    }

    /// One quiet tick of history from `t`, `step` later but not past `end`; answers its time.
    fn history_tick(&mut self, t: i64, end: i64, step: i64) -> i64 {
        let next = (t + step).min(end);
        self.tick(next, (next - t) as f64 / 60_000.0, None);
        next
    }

    /// Moves every symbol to `ts_ms`, `dt_minutes` after the previous tick; pushes the
    /// events to `out` when given (live), keeps quiet otherwise (history).
    fn tick(&mut self, ts_ms: i64, dt_minutes: f64, mut out: Option<&mut Vec<MarketEvent>>) {
        let market_shock = self.market_rng.normal();
        let minute = bucket_start(ts_ms, 1);
        let interval = self.interval_minutes;
        for s in &mut self.symbols {
            if let Some(bar) = s.bar.take_if(|b| b.open_time_ms != minute) {
                let candle = bar.candle(&s.spec.instrument);
                s.process.end_minute();
                let closes_interval = (candle.open_time_ms + 60_000) % minutes_ms(interval) == 0;
                s.minutes.push_back(candle);
                while s.minutes.len() > self.retain_minutes {
                    s.minutes.pop_front();
                }
                if let (true, Some(out)) = (closes_interval, out.as_deref_mut()) {
                    let n = s.minutes.len();
                    let last = s.minutes.range(n.saturating_sub(interval as usize)..);
                    let last: Vec<Candle> = last.cloned().collect();
                    if let Some(candle) = aggregate(&last, 1, interval).pop() {
                        out.push(MarketEvent::CandleClosed {
                            symbol: s.spec.instrument.symbol.clone(),
                            interval_minutes: interval,
                            candle,
                        });
                    }
                }
            }
            s.process.tick(dt_minutes, market_shock);
            let price = s.process.price();
            let per_minute = s.spec.daily_turnover / 1440.0;
            let volume =
                per_minute * dt_minutes * s.process.vol_ratio() * (0.4 + 1.2 * s.process.uniform())
                    / price;
            match s.bar.as_mut() {
                Some(b) => {
                    b.high = b.high.max(price);
                    b.low = b.low.min(price);
                    b.close = price;
                    b.volume += volume;
                }
                None => {
                    s.bar = Some(MinuteBar {
                        open_time_ms: minute,
                        open: price,
                        high: price,
                        low: price,
                        close: price,
                        volume,
                    })
                }
            }
            if let Some(out) = out.as_deref_mut() {
                s.last_price = quote(price, &s.spec.instrument);
                out.push(MarketEvent::Tick {
                    symbol: s.spec.instrument.symbol.clone(),
                    price: s.last_price,
                    ts_ms,
                });
            }
        }
        self.now_ms = ts_ms;
    }

    /// Sets every last price from its process (after quiet ticks, which leave them alone).
    fn refresh_last_prices(&mut self) {
        for s in &mut self.symbols {
            s.last_price = quote(s.process.price(), &s.spec.instrument);
        }
    }
}

impl SimulatedMarket {
    /// Builds the market and generates its history up to the start time.
    pub fn new(config: SimConfig) -> Self {
        let interval = config.interval_minutes.max(1);
        let start = bucket_start(config.start_ms.unwrap_or_else(wall_clock_ms), 1);
        let history_ms = minutes_ms(interval) * config.history_candles as i64;
        let history_start = bucket_start(start - history_ms, interval);
        let retain_minutes = config.history_candles * interval as usize + 1440;
        let mut state = SimState::new(&config, history_start, interval, retain_minutes);
        let step = history_step_ms(&config);
        let mut t = history_start;
        while t < start {
            t = state.history_tick(t, start, step);
        }
        state.refresh_last_prices();
        let instruments = config
            .symbols
            .iter()
            .map(|s| s.instrument.clone())
            .collect();
        let (events, _) = broadcast::channel(config.event_capacity.max(16));
        let clock = MarketClock {
            wall_ms: wall_clock_ms(),
            market_ms: start,
            speed: running_speed(config.speed),
        };
        Self {
            config: SimConfig {
                interval_minutes: interval,
                ..config
            },
            clock,
            instruments,
            state: Mutex::new(state),
            events,
        }
    }

    /// Builds the market of `anchor` as it stands at wall time `wall_ms`: the same history
    /// up to the anchor's origin, then the live ticks replayed quietly (nothing published) up
    /// to the anchor's clock. `config` gives the universe and the tick sizes; its `start_ms`
    /// and `speed` are the anchor's.
    pub fn resume(config: SimConfig, anchor: &SimAnchor, wall_ms: i64) -> Self {
        let mut market = Self::new(SimConfig {
            start_ms: Some(anchor.origin_ms),
            speed: anchor.clock.speed,
            ..config
        });
        market.clock = anchor.clock;
        market.replay_to(anchor.clock.market_at(wall_ms));
        market
    }

    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The wall-clock to market-time mapping a spawned market follows.
    pub fn clock(&self) -> MarketClock {
        self.clock
    }

    /// Ticks quietly (no events) until the next tick would pass `ts_ms`: the state is the
    /// one [`SimulatedMarket::advance_to`] reaches, without anyone hearing about it.
    pub fn replay_to(&self, ts_ms: i64) {
        let tick_ms = self.tick_ms();
        let mut state = self.lock();
        while state.now_ms + tick_ms <= ts_ms {
            let next = state.now_ms + tick_ms;
            state.tick(next, tick_ms as f64 / 60_000.0, None);
        }
        state.refresh_last_prices();
    }

    fn lock(&self) -> MutexGuard<'_, SimState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn tick_ms(&self) -> i64 {
        i64::from(self.config.tick_seconds.max(1)) * 1000
    }

    /// One tick for every symbol: publishes and returns its events (candles that closed,
    /// then the ticks).
    pub fn step(&self) -> Vec<MarketEvent> {
        let tick_ms = self.tick_ms();
        let mut out = Vec::with_capacity(self.config.symbols.len() * 2);
        {
            let mut state = self.lock();
            let next = state.now_ms + tick_ms;
            state.tick(next, tick_ms as f64 / 60_000.0, Some(&mut out));
        }
        for event in &out {
            // Nobody listening is fine.
            let _ = self.events.send(event.clone());
        }
        out
    }

    /// `n` ticks; returns how many events were published.
    pub fn advance_ticks(&self, n: usize) -> usize {
        (0..n).map(|_| self.step().len()).sum()
    }

    /// Ticks until the next tick would pass `ts_ms`; returns how many events were published.
    pub fn advance_to(&self, ts_ms: i64) -> usize {
        let mut published = 0;
        while self.now_ms() + self.tick_ms() <= ts_ms {
            published += self.step().len();
        }
        published
    }

    /// Runs the market along its [`MarketClock`] (the wall clock times `speed`) until the
    /// task is aborted.
    pub fn spawn(self: &Arc<Self>) -> JoinHandle<()> {
        let this = Arc::clone(self);
        let period = (this.tick_ms() as f64 / 1000.0 / this.clock.speed).max(0.02);
        // Never more than an hour of market per wake-up, even after a stall.
        let max_catch_up = 3_600_000;
        tokio::spawn(async move {
            let mut timer = tokio::time::interval(Duration::from_secs_f64(period));
            timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                timer.tick().await;
                let target = this.clock.market_at(wall_clock_ms());
                let target = target.min(this.now_ms() + max_catch_up);
                this.advance_to(target);
            }
        })
    }

    fn with_symbol<R>(
        &self,
        symbol: &str,
        f: impl FnOnce(&SymbolState) -> R,
    ) -> Result<R, VenueError> {
        let state = self.lock();
        let i = state
            .index
            .get(symbol)
            .copied()
            .ok_or_else(|| VenueError::UnknownSymbol(symbol.to_string()))?;
        Ok(f(&state.symbols[i]))
    }
}

/// The simulated market's 1-minute history of `[from_ms, to_ms)`, generated forward a piece
/// at a time and never held whole (a backtest's year is millions of candles): the minutes
/// [`SimulatedMarket::new`] generates for a market of 1-minute candles starting at `to_ms`
/// with that many candles of history. Only the chosen symbols are generated; each one's path
/// is the same whichever others are chosen.
pub struct MinuteHistory {
    state: SimState,
    t: i64,
    end: i64,
    step: i64,
}

impl MinuteHistory {
    /// The history of `config`'s seed and symbols (its interval, start and speed do not
    /// matter), both ends floored to the minute.
    pub fn new(config: &SimConfig, from_ms: i64, to_ms: i64) -> MinuteHistory {
        let from = bucket_start(from_ms, 1);
        let end = bucket_start(to_ms, 1).max(from);
        MinuteHistory {
            state: SimState::new(config, from, 1, usize::MAX),
            t: from,
            end,
            step: history_step_ms(config),
        }
    }

    pub fn instruments(&self) -> Vec<Instrument> {
        self.state
            .symbols
            .iter()
            .map(|s| s.spec.instrument.clone())
            .collect()
    }

    /// The next `minutes` (at least one) closed 1-minute candles of every symbol, in the
    /// config's order, oldest first; fewer at the end, none once the period is done.
    pub fn next_minutes(&mut self, minutes: usize) -> Vec<Vec<Candle>> {
        let closed = |state: &SimState| state.symbols.first().map_or(0, |s| s.minutes.len());
        while self.t < self.end && closed(&self.state) < minutes.max(1) {
            self.t = self.state.history_tick(self.t, self.end, self.step);
        }
        self.state
            .symbols
            .iter_mut()
            .map(|s| s.minutes.drain(..).collect())
            .collect()
    }
}

/// The live ticks a recorded market ([`SimAnchor`]) published in a period of market time,
/// regenerated: the same history up to the anchor's origin, the live ticks before the period
/// replayed quietly, then each tick of the period with every chosen symbol's price, exactly
/// as the live market published them (each symbol's path is the same whichever others are
/// chosen). What a replay of a paper account's period walks (docs/parity.md).
pub struct LiveTicks {
    market: SimulatedMarket,
    symbols: Vec<String>,
    end_ms: i64,
}

impl LiveTicks {
    /// The ticks of `symbols` in `[from_ms, to_ms)` of the market `anchor` recorded.
    pub fn new(
        anchor: &SimAnchor,
        symbols: &[String],
        from_ms: i64,
        to_ms: i64,
    ) -> Result<LiveTicks, VenueError> {
        let mut config = anchor.path.config().map_err(VenueError::InvalidRequest)?;
        config
            .symbols
            .retain(|s| symbols.contains(&s.instrument.symbol));
        if let Some(missing) = symbols
            .iter()
            .find(|name| !config.symbols.iter().any(|s| &s.instrument.symbol == *name))
        {
            return Err(VenueError::UnknownSymbol(missing.clone()));
        }
        let market = SimulatedMarket::new(SimConfig {
            start_ms: Some(anchor.origin_ms),
            ..config
        });
        // Every tick before the period, quietly.
        market.replay_to(from_ms - 1);
        let symbols = market
            .instruments
            .iter()
            .map(|i| i.symbol.clone())
            .collect();
        Ok(LiveTicks {
            market,
            symbols,
            end_ms: to_ms,
        })
    }

    /// The symbols, in the order of each tick's prices.
    pub fn symbols(&self) -> &[String] {
        &self.symbols
    }

    pub fn instruments(&self) -> &[Instrument] {
        &self.market.instruments
    }

    /// The market time and each symbol's last price before the first tick of the period.
    pub fn start(&self) -> (i64, Vec<Decimal>) {
        let state = self.market.lock();
        let prices = state.symbols.iter().map(|s| s.last_price).collect();
        (state.now_ms, prices)
    }

    /// The next tick of the period: its time and each symbol's price; `None` at its end.
    pub fn next_tick(&mut self) -> Option<(i64, Vec<Decimal>)> {
        if self.market.now_ms() + self.market.tick_ms() >= self.end_ms {
            return None;
        }
        let events = self.market.step();
        let prices: Vec<Decimal> = events
            .iter()
            .filter_map(|e| match e {
                MarketEvent::Tick { price, .. } => Some(*price),
                _ => None,
            })
            .collect();
        Some((self.market.now_ms(), prices))
    }
}

#[async_trait]
impl MarketData for SimulatedMarket {
    async fn instruments(&self) -> Result<Vec<Instrument>, VenueError> {
        Ok(self.instruments.clone())
    }

    async fn history(
        &self,
        symbol: &str,
        interval_minutes: u32,
        limit: usize,
    ) -> Result<Vec<Candle>, VenueError> {
        if interval_minutes == 0 {
            return Err(VenueError::InvalidRequest(
                "candle interval must be at least one minute".into(),
            ));
        }
        let minutes: Vec<Candle> = self.with_symbol(symbol, |s| {
            // Only as many minutes as `limit` candles can use, plus one partial bucket.
            let need = (limit + 1).saturating_mul(interval_minutes as usize);
            let n = s.minutes.len();
            s.minutes.range(n.saturating_sub(need)..).cloned().collect()
        })?;
        let mut candles = aggregate(&minutes, 1, interval_minutes);
        let excess = candles.len().saturating_sub(limit);
        candles.drain(..excess);
        Ok(candles)
    }

    async fn last_price(&self, symbol: &str) -> Result<Decimal, VenueError> {
        self.with_symbol(symbol, |s| s.last_price)
    }

    fn subscribe(&self) -> broadcast::Receiver<MarketEvent> {
        self.events.subscribe()
    }

    fn funding_rate(&self, symbol: &str, at_ms: i64) -> Option<Decimal> {
        self.instruments
            .iter()
            .any(|i| i.symbol == symbol)
            .then(|| super::funding::simulated_rate(self.config.seed, symbol, at_ms))
    }

    fn now_ms(&self) -> i64 {
        self.lock().now_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn quick_rounding_equals_the_exact_decimal_rounding() {
        let mut rng = Rng::new(3);
        for instrument in default_symbols().into_iter().map(|s| s.instrument) {
            let tick: f64 = instrument.tick_size.try_into().unwrap();
            let step: f64 = instrument.qty_step.try_into().unwrap();
            for i in 0..20_000 {
                // Random values, and values on and next to every kind of boundary.
                let ticks = rng.between(1.0, 2e6).floor();
                let value = match i % 4 {
                    0 => rng.between(tick, 2e6 * tick),
                    1 => (ticks + 0.5) * tick,
                    2 => ticks * tick,
                    _ => (ticks + 0.5) * tick * (1.0 + 1e-15),
                };
                let exact_price = Decimal::from_f64(value)
                    .map(|p| instrument.round_price(p))
                    .unwrap()
                    .max(instrument.tick_size);
                assert_eq!(quote(value, &instrument), exact_price, "price {value}");
                let volume = value / tick * step;
                let exact_qty = Decimal::from_f64(volume)
                    .map(|v| instrument.round_qty_down(v))
                    .unwrap();
                assert_eq!(quantity(volume, &instrument), exact_qty, "qty {volume}");
            }
        }
        let btc = &default_symbols()[0].instrument;
        assert_eq!(
            quote(95_000.05, btc).to_string(),
            (dec!(95000.1)).to_string()
        );
    }

    #[test]
    fn the_history_read_a_piece_at_a_time_is_the_market_s_own_history() {
        let start = 1_795_435_200_000;
        let minutes = 3 * 1440 + 7;
        let config = SimConfig {
            seed: 9,
            interval_minutes: 1,
            history_candles: minutes,
            start_ms: Some(start),
            ..SimConfig::default()
        };
        let market = SimulatedMarket::new(config.clone());
        let mut pieces = MinuteHistory::new(&config, start - minutes as i64 * 60_000, start);
        let mut read: Vec<Vec<Candle>> = vec![Vec::new(); config.symbols.len()];
        loop {
            let piece = pieces.next_minutes(1000);
            if piece[0].is_empty() {
                break;
            }
            for (all, part) in read.iter_mut().zip(piece) {
                all.extend(part);
            }
        }
        for (spec, candles) in config.symbols.iter().zip(&read) {
            let whole = market.with_symbol(&spec.instrument.symbol, |s| {
                s.minutes.iter().cloned().collect::<Vec<_>>()
            });
            assert_eq!(candles.len(), minutes);
            assert_eq!(candles, &whole.unwrap()[..]);
        }
        // One symbol alone walks the same path as among all of them.
        let alone = SimConfig {
            symbols: vec![config.symbols[3].clone()],
            ..config.clone()
        };
        let mut single = MinuteHistory::new(&alone, start - minutes as i64 * 60_000, start);
        assert_eq!(single.next_minutes(500)[0], read[3][..500]);
    }

    #[test]
    fn live_ticks_regenerate_what_the_live_market_published() {
        let origin = 1_795_435_200_000;
        let config = SimConfig {
            seed: 5,
            start_ms: Some(origin),
            ..SimConfig::default()
        };
        let anchor = SimAnchor::fresh(&config, origin + 1234);
        let live = SimulatedMarket::new(config.clone());
        let mut published: Vec<(i64, String, Decimal)> = Vec::new();
        for _ in 0..600 {
            for event in live.step() {
                if let MarketEvent::Tick {
                    symbol,
                    price,
                    ts_ms,
                } = event
                {
                    published.push((ts_ms, symbol, price));
                }
            }
        }
        let chosen = vec!["SOLUSDT".to_string(), "BTCUSDT".to_string()];
        let (from, to) = (origin + 201_000, origin + 1_001_000);
        let mut ticks = LiveTicks::new(&anchor, &chosen, from, to).unwrap();
        // In the universe's order.
        assert_eq!(ticks.symbols(), ["BTCUSDT", "SOLUSDT"]);
        let (start, prices) = ticks.start();
        assert_eq!(start, origin + 200_000);
        let before: Vec<Decimal> = ticks
            .symbols()
            .iter()
            .map(|sym| {
                published
                    .iter()
                    .rfind(|(t, s, _)| *t <= start && s == sym)
                    .unwrap()
                    .2
            })
            .collect();
        assert_eq!(prices, before);
        let mut regenerated = Vec::new();
        while let Some((ts, prices)) = ticks.next_tick() {
            for (sym, price) in ticks.symbols().iter().zip(prices) {
                regenerated.push((ts, sym.clone(), price));
            }
        }
        let expected: Vec<_> = published
            .into_iter()
            .filter(|(t, s, _)| (from..to).contains(t) && chosen.contains(s))
            .collect();
        assert_eq!(regenerated.len(), 400 * 2);
        assert_eq!(regenerated, expected);
    }
}
