//! Parity's replay of a paper account on the simulated market (docs/parity.md): the live
//! market's own ticks, regenerated from its anchor, walked one at a time through the scratch
//! world (the live bot's trading worker and paper exchange), with each stored signal taken
//! at the tick the live bot took it. Same prices at the same times on one clock: the same
//! trades.

use std::collections::VecDeque;

use signaldesk_core::settings::BotSettings;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::market::sim::{LiveTicks, SimAnchor};
use signaldesk_venue::paper::PaperConfig;

use crate::feed::MINUTE_MS;
use crate::run::{Scratch, ScratchBooks};
use crate::{BacktestError, Outcome, ScriptedSignal};

/// A period of a recorded simulated market, replayed tick by tick.
pub struct TickReplay {
    pub settings: BotSettings,
    /// The live market's anchor (`market.json` in the data dir).
    pub anchor: SimAnchor,
    pub symbols: Vec<String>,
    /// The period, `[from_ms, to_ms)` of market time.
    pub from_ms: i64,
    pub to_ms: i64,
    /// The signals, each taken at the first tick at or after its `at_ms`; those before
    /// `from_ms` are only noted (what the bot knew when the period began).
    pub signals: Vec<ScriptedSignal>,
    pub paper: PaperConfig,
}

impl TickReplay {
    pub async fn run(&self) -> Result<Outcome, BacktestError> {
        let mut ticks = LiveTicks::new(&self.anchor, &self.symbols, self.from_ms, self.to_ms)?;
        let symbols = ticks.symbols().to_vec();
        let (start_ms, prices) = ticks.start();
        let funding = FundingRates::Simulated {
            seed: self.anchor.path.seed,
        };
        let mut scratch = Scratch::open(
            &self.settings,
            ticks.instruments().to_vec(),
            funding,
            self.paper.clone(),
            start_ms,
            &symbols,
            ScratchBooks::Memory,
        )
        .await?;
        let mut driver = scratch.driver(&symbols, true);
        for (i, price) in prices.into_iter().enumerate() {
            driver.first_price(i, price, start_ms);
        }
        let mut signals: Vec<ScriptedSignal> = self
            .signals
            .iter()
            .filter(|s| symbols.contains(&s.symbol))
            .cloned()
            .collect();
        signals.sort_by_key(|s| s.at_ms);
        let mut due = VecDeque::from(signals);
        while let Some(signal) = due.pop_front_if(|s| s.at_ms < self.from_ms) {
            driver.note(&signal);
        }
        let mut minute = start_ms.div_euclid(MINUTE_MS);
        while let Some((ts_ms, prices)) = ticks.next_tick() {
            for (i, price) in prices.into_iter().enumerate() {
                driver.tick(i, price, ts_ms).await?;
            }
            while let Some(signal) = due.pop_front_if(|s| s.at_ms <= ts_ms) {
                driver.signal(signal, ts_ms).await?;
            }
            // The live worker's timers run every few seconds; here once a minute.
            if ts_ms.div_euclid(MINUTE_MS) != minute {
                minute = ts_ms.div_euclid(MINUTE_MS);
                if driver.timers_due() {
                    driver.timers(ts_ms).await?;
                }
            }
        }
        // Signals after the period's last tick and before its end: at their own time, on its
        // prices.
        while let Some(signal) = due.pop_front_if(|s| s.at_ms < self.to_ms) {
            let at_ms = signal.at_ms;
            driver.signal(signal, at_ms).await?;
        }
        let tally = std::mem::take(&mut driver.tally);
        scratch
            .outcome(&self.settings, self.paper.starting_balance, tally)
            .await
    }
}
