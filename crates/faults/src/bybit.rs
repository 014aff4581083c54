//! The Bybit of the mixed process: a fake Bybit V5 (`signaldesk-fake-bybit`) running inside
//! the harness, so it outlives every SIGKILL and restart of the server as the real Bybit
//! would. It lists the simulated universe's instruments at their starting prices and moves
//! every price a little, bounded, so Bybit stops and take profits fire; the server reaches it
//! through the `SIGNALDESK_BYBIT__DEMO_*` and `SIGNALDESK_MARKET__BYBIT_*` variables.
//!
//! Besides the Bybit user's demo key it knows the paper user's key pair: a paper key never
//! leaves the server, so any order on it here is a paper order that reached Bybit.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, KeySpec};
use signaldesk_venue::market::sim::default_symbols;
use tokio::task::JoinHandle;

/// The Bybit user's demo key.
pub const BYBIT_KEY: &str = "faults-bybit-key";
pub const BYBIT_SECRET: &str = "faults-bybit-secret";
/// The paper user's key pair (`"exchange": "paper"`), known to the fake as a trap.
pub const PAPER_KEY: &str = "faults-key";
pub const PAPER_SECRET: &str = "faults-secret";

/// How often every price moves.
const TICK: Duration = Duration::from_millis(500);
/// The largest move of one tick, as a fraction of the price (0.15 %): about 0.4 % in 10 s,
/// past the bots' 0.3 % stops and take profits.
const STEP: f64 = 0.0015;
/// How far a price may wander from where it started (3 %): past it, it only moves back.
const BAND: f64 = 0.03;

/// One symbol's price, in ticks of its instrument.
struct Price {
    symbol: String,
    tick: Decimal,
    start: i64,
    now: i64,
}

impl Price {
    fn decimal(&self) -> Decimal {
        Decimal::from(self.now) * self.tick
    }

    /// A random step, pulled back towards the start once outside the band.
    fn step(&mut self, rng: &mut StdRng) {
        let mut change = rng.gen_range(-STEP..=STEP);
        let off = (self.now - self.start) as f64 / self.start as f64;
        if off.abs() > BAND && change.signum() == off.signum() {
            change = -change;
        }
        let ticks = (self.now as f64 * change).round() as i64;
        self.now = (self.now + ticks).max(1);
    }
}

/// The prices and whether they move.
struct Market {
    prices: Vec<Price>,
    paused: bool,
    /// Price changes sent to the fake.
    moves: u64,
}

/// The fake Bybit and the task moving its prices. Dropping it stops both.
pub struct Bybit {
    fake: Arc<FakeBybit>,
    market: Arc<Mutex<Market>>,
    mover: JoinHandle<()>,
}

impl Bybit {
    /// Starts the fake with the simulated universe's instruments at their starting prices,
    /// the two keys, and the prices moving (seeded by `seed`).
    pub async fn start(seed: u64) -> anyhow::Result<Bybit> {
        let symbols = default_symbols();
        let fake = FakeBybit::start(FakeConfig::new(
            symbols.iter().map(|s| s.instrument.clone()).collect(),
        ))
        .await?;
        fake.add_key(KeySpec::new(BYBIT_KEY, BYBIT_SECRET));
        fake.add_key(KeySpec::new(PAPER_KEY, PAPER_SECRET));
        let mut prices = Vec::new();
        for s in &symbols {
            let tick = s.instrument.tick_size;
            let start = (s.start_price / tick)
                .round()
                .try_into()
                .map_err(|_| anyhow::anyhow!("{}'s price is out of range", s.instrument.symbol))?;
            let price = Price {
                symbol: s.instrument.symbol.clone(),
                tick,
                start,
                now: start,
            };
            fake.set_price(&price.symbol, price.decimal());
            prices.push(price);
        }
        let fake = Arc::new(fake);
        let market = Arc::new(Mutex::new(Market {
            prices,
            paused: false,
            moves: 0,
        }));
        let mover = tokio::spawn(move_prices(
            fake.clone(),
            market.clone(),
            StdRng::seed_from_u64(seed),
        ));
        Ok(Bybit {
            fake,
            market,
            mover,
        })
    }

    /// The variables pointing the server's Bybit demo accounts and Bybit market at the fake.
    pub fn env(&self) -> Vec<(String, String)> {
        let fake = &self.fake;
        vec![
            ("SIGNALDESK_BYBIT__DEMO_REST_URL".into(), fake.rest_url()),
            (
                "SIGNALDESK_BYBIT__DEMO_WS_URL".into(),
                fake.private_ws_url(),
            ),
            ("SIGNALDESK_MARKET__BYBIT_REST_URL".into(), fake.rest_url()),
            (
                "SIGNALDESK_MARKET__BYBIT_WS_URL".into(),
                fake.public_ws_url(),
            ),
        ]
    }

    /// Whether the fake lists `symbol`.
    pub fn lists(&self, symbol: &str) -> bool {
        self.lock().prices.iter().any(|p| p.symbol == symbol)
    }

    fn lock(&self) -> MutexGuard<'_, Market> {
        self.market.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the prices; when this returns no price change is under way, so nothing fires
    /// on the fake until [`Bybit::resume`].
    pub fn pause(&self) {
        self.lock().paused = true;
    }

    pub fn resume(&self) {
        self.lock().paused = false;
    }

    /// Price changes so far.
    pub fn moves(&self) -> u64 {
        self.lock().moves
    }

    /// Filled orders on `key` (the bot's, and those its stops fired).
    pub fn orders(&self, key: &str) -> usize {
        self.fake.order_count(key)
    }
}

impl Drop for Bybit {
    fn drop(&mut self) {
        self.mover.abort();
    }
}

/// Moves every price one step each [`TICK`] unless paused. The lock is held through a whole
/// round, so [`Bybit::pause`] waits for a round under way.
async fn move_prices(fake: Arc<FakeBybit>, market: Arc<Mutex<Market>>, mut rng: StdRng) {
    let mut timer = tokio::time::interval(TICK);
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        timer.tick().await;
        let mut market = market.lock().unwrap_or_else(|e| e.into_inner());
        if market.paused {
            continue;
        }
        let Market { prices, moves, .. } = &mut *market;
        for price in prices.iter_mut() {
            price.step(&mut rng);
            fake.set_price(&price.symbol, price.decimal());
            *moves += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_price_stays_near_its_start() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut price = Price {
            symbol: "BTCUSDT".into(),
            tick: Decimal::new(1, 1),
            start: 900_000,
            now: 900_000,
        };
        let mut widest = 0f64;
        for _ in 0..100_000 {
            price.step(&mut rng);
            let off = (price.now - price.start) as f64 / price.start as f64;
            widest = widest.max(off.abs());
        }
        assert!(widest <= BAND + 2.0 * STEP, "wandered {widest}");
        assert!(widest > BAND / 2.0, "barely moved: {widest}");
    }
}
