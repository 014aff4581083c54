//! One run: scratch books (in memory, [`crate::books`]), a paper exchange on a hand-driven
//! market, the user's trading worker, and the clock moved minute by minute through the
//! history, read a day at a time ([`crate::feed`]).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_core::market::Instrument;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::signal::TradeSignal;
use signaldesk_core::trading::SkipKind;
use signaldesk_engine::journal::BotJournal;
use signaldesk_engine::trading::{Ledger, TradingDeps, TradingWorker};
use signaldesk_engine::EventBus;
use signaldesk_store::repo::stats::ChainWithTrades;
use signaldesk_store::{Store, StoredSignal, Trade};
use signaldesk_venue::market::funding::{FundingRates, FUNDING_INTERVAL_MS};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::market::MarketData;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::{QuietBand, Venue, VenueEvent};
use tokio::sync::broadcast;

use crate::books::MemoryLedger;
use crate::feed::{Candles, Chunk, Feed, Part, MINUTE_MS};
use crate::path::{price_path, OFFSETS_MS};
use crate::threads::{keep_to_one_core, on_a_core, yield_to_the_live_bots};
use crate::{BacktestError, Summary};

/// The bot log lines a run keeps (the newest).
const LOG_KEPT: usize = 1_000;

/// Where the run's signals come from.
#[derive(Debug, Clone)]
pub enum Signals {
    /// The rating engine over candles of this many minutes, built from the 1-minute ones.
    Ratings { interval_minutes: u32 },
    /// Given signals (recorded alerts, a test's script, ratings computed once for a sweep),
    /// each taken at its time.
    Scripted(Arc<Vec<ScriptedSignal>>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedSignal {
    /// When the signal is known: it is taken at the first minute at or after it.
    pub at_ms: i64,
    /// The time of the candle it rates (its arrival for an alert).
    pub candle_ms: i64,
    pub symbol: String,
    /// STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL.
    pub rating: String,
    /// A stored signal replayed (parity): its id and source (`ratings` or `webhook`), so
    /// the run's trades name the signal the live bot acted on and alerts keep their rules.
    pub stored: Option<(i64, String)>,
}

/// Where a run keeps its books.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScratchBooks {
    /// In memory, on the trading thread ([`MemoryLedger`]): what every run uses.
    #[default]
    Memory,
    /// An in-memory SQLite database written by the live store's statements, each handed to
    /// sqlx's SQLite thread: what runs used before, kept so a test can show both give the
    /// same trades.
    Store,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Backtest {
    pub settings: BotSettings,
    /// What each symbol trades by: the simulated market's specification, or Bybit's stored
    /// instrument on stored history.
    pub instruments: Vec<Instrument>,
    /// The 1-minute candles; those before `from_ms` only warm the ratings up.
    pub candles: Candles,
    /// The funding rates open positions pay at each settlement (the simulated market's
    /// series, Bybit's stored history).
    pub funding: FundingRates,
    /// Trading starts here (Unix ms).
    pub from_ms: i64,
    pub signals: Signals,
    /// The paper exchange (on stored history, with each symbol's maintenance margin rate
    /// from its first Bybit risk tier).
    pub paper: PaperConfig,
    /// Walk every candle through the exchange and the worker, even one whose prices all lie
    /// where neither would act (the same trades, slower: what a test compares with).
    pub walk_every_candle: bool,
}

/// How far a run is, and whether it should stop; shared with whoever watches it.
#[derive(Debug, Default)]
pub struct Progress {
    /// The share done (0 to 1), as `f64` bits.
    done: AtomicU64,
    cancelled: AtomicBool,
}

impl Progress {
    pub fn share(&self) -> f64 {
        f64::from_bits(self.done.load(Ordering::Relaxed))
    }

    pub(crate) fn set(&self, share: f64) {
        self.done.store(share.to_bits(), Ordering::Relaxed);
    }

    /// Asks the run to stop at its next check (its next day of history; a sweep, its next
    /// cell).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every trade, oldest first, as the scratch books hold them at the end.
    pub trades: Vec<Trade>,
    /// The martingale chains, with their trades.
    pub chains: Vec<ChainWithTrades>,
    pub summary: Summary,
    /// The bot log of the run, oldest first (at most the last 1,000 lines).
    pub log: Vec<String>,
    /// The signals acted on that opened nothing, by signal id, with the worker's reason.
    pub skipped: Vec<(i64, String)>,
    /// Every signal of the period the worker heard (any rating).
    pub signals_seen: usize,
    /// The signals it tried to enter on (a change into STRONG_BUY or STRONG_SELL).
    pub entries_tried: usize,
    /// The skipped entries counted by their kind of reason.
    pub skips_by_kind: BTreeMap<SkipKind, usize>,
}

/// What became of the period's signals, counted as the run takes them.
#[derive(Debug, Default)]
pub(crate) struct SignalTally {
    seen: usize,
    tried: usize,
    skipped: Vec<(i64, String)>,
    by_kind: BTreeMap<SkipKind, usize>,
}

impl Backtest {
    /// Runs the history through the bot, telling `progress` the share done and stopping
    /// with [`BacktestError::Cancelled`] once it is cancelled. The same inputs give the same
    /// trades.
    pub async fn run(&self, progress: &Progress) -> Result<Outcome, BacktestError> {
        self.run_keeping(ScratchBooks::Memory, progress).await
    }

    /// [`run`](Self::run) with its books kept in `books`.
    pub async fn run_keeping(
        &self,
        books: ScratchBooks,
        progress: &Progress,
    ) -> Result<Outcome, BacktestError> {
        let (first_ms, total_minutes) = self.candles.timeline()?;
        let symbols = self.candles.symbols();
        let mut chunks = Chunks::start(&self.candles, &self.signals)?;
        let mut scratch = Scratch::open(
            &self.settings,
            self.instruments.clone(),
            self.funding.clone(),
            self.paper.clone(),
            first_ms,
            &symbols,
            books,
        )
        .await?;
        let mut driver = scratch.driver(&symbols, self.walk_every_candle);

        let mut due: VecDeque<ScriptedSignal> = VecDeque::new();
        let mut walked = 0;
        while let Some(chunk) = chunks.next()? {
            if progress.is_cancelled() {
                return Err(BacktestError::Cancelled);
            }
            driver.first_prices(&chunk.candles, first_ms);
            due.extend(chunk.signals);
            for step in 0..chunk.minutes {
                let minute_ms = chunk.start_ms + step as i64 * MINUTE_MS;
                while let Some(signal) = due.pop_front_if(|s| s.at_ms <= minute_ms) {
                    if minute_ms >= self.from_ms {
                        driver.signal(signal, minute_ms).await?;
                    } else if signal.stored.is_some() {
                        driver.note(&signal);
                    }
                }
                if minute_ms >= self.from_ms {
                    driver.minute(&chunk.candles, minute_ms).await?;
                } else {
                    driver.warm_up_minute(&chunk.candles, minute_ms);
                }
            }
            walked += chunk.minutes;
            progress.set(walked as f64 / total_minutes.max(1) as f64);
        }
        chunks.finish()?;
        driver.show_closes().await;
        let tally = std::mem::take(&mut driver.tally);
        progress.set(1.0);
        scratch
            .outcome(&self.settings, self.paper.starting_balance, tally)
            .await
    }

    /// [`run`](Self::run) on a thread of its own, below the live bots and kept to one core
    /// together with its books' SQLite thread (see [`crate::threads`]); waits for it.
    pub fn run_on_a_core(&self, progress: &Progress) -> Result<Outcome, BacktestError> {
        on_a_core(self.run(progress))
    }

    /// Every signal the run would take, computed without trading: the same for any settings,
    /// so a sweep computes them once and gives each cell [`Signals::Scripted`].
    pub fn signals_once(&self) -> Result<Arc<Vec<ScriptedSignal>>, BacktestError> {
        if let Signals::Scripted(list) = &self.signals {
            return Ok(list.clone());
        }
        let mut feed = Feed::new(&self.candles, &self.signals)?;
        let mut all = Vec::new();
        while let Some(chunk) = feed.next_chunk()? {
            all.extend(chunk.signals);
        }
        Ok(Arc::new(all))
    }
}

/// The chunks of a run: read here, or made on a thread of their own while the run trades
/// (generating the simulated market and rating it take as long as the trading; stored
/// candles also wait for their reader's thread).
enum Chunks {
    Here(Box<Feed>),
    Made {
        chunks: mpsc::Receiver<Result<Chunk, BacktestError>>,
        maker: std::thread::JoinHandle<()>,
    },
}

impl Chunks {
    fn start(candles: &Candles, signals: &Signals) -> Result<Chunks, BacktestError> {
        let mut feed = Feed::new(candles, signals)?;
        let heavy =
            !matches!(candles, Candles::Loaded(_)) || matches!(signals, Signals::Ratings { .. });
        if !heavy {
            return Ok(Chunks::Here(Box::new(feed)));
        }
        // Stored candles are read on the other core (`StoredCandles::read_ahead`): their
        // rating takes turns with the trading here rather than with the reading there (the
        // busy year 3.8 s against 4.9 s, docs/benchmarks.md).
        let off_the_trading_core = !matches!(candles, Candles::Stored(_));
        let (sender, chunks) = mpsc::sync_channel(2);
        let maker = std::thread::Builder::new()
            .name("backtest-feed".into())
            .spawn(move || {
                yield_to_the_live_bots();
                // Making the history (generating, rating) is as heavy as the trading.
                if off_the_trading_core {
                    keep_to_one_core();
                }
                while let Some(next) = feed.next_chunk().transpose() {
                    let failed = next.is_err();
                    // A failed read ends the history; a run that stopped (cancelled or
                    // failed) reads no more.
                    if sender.send(next).is_err() || failed {
                        break;
                    }
                }
            })?;
        Ok(Chunks::Made { chunks, maker })
    }

    /// The next chunk (waiting for it to be made); `None` once the period is done.
    fn next(&mut self) -> Result<Option<Chunk>, BacktestError> {
        match self {
            Chunks::Here(feed) => feed.next_chunk(),
            Chunks::Made { chunks, .. } => chunks.recv().ok().transpose(),
        }
    }

    fn finish(self) -> Result<(), BacktestError> {
        if let Chunks::Made { maker, .. } = self {
            maker
                .join()
                .map_err(|_| BacktestError::Data("the history's thread failed".into()))?;
        }
        Ok(())
    }
}

/// The world a run trades in: scratch books, a market moved by hand, the paper exchange on
/// it and the user's trading worker.
pub(crate) struct Scratch {
    /// An in-memory SQLite database: the user and settings, and the books with
    /// [`ScratchBooks::Store`].
    store: Store,
    /// The books with [`ScratchBooks::Memory`].
    memory: Option<Arc<MemoryLedger>>,
    user: i64,
    market: Arc<ManualMarket>,
    exchange: PaperExchange,
    venue: Arc<dyn Venue>,
    events: broadcast::Receiver<VenueEvent>,
    journal: BotJournal,
    worker: TradingWorker,
}

impl Scratch {
    /// A fresh account with `settings` trading `symbols` (their instruments), the clock at
    /// `first_ms`.
    pub(crate) async fn open(
        settings: &BotSettings,
        instruments: Vec<Instrument>,
        funding: FundingRates,
        paper: PaperConfig,
        first_ms: i64,
        symbols: &[String],
        books: ScratchBooks,
    ) -> Result<Scratch, BacktestError> {
        let store = Store::in_memory().await?;
        let user = store.create_user("backtest", "-", 0).await?.id;
        let record = store.settings_or_default(user, 0).await?;
        store.update_settings(user, record.id, settings, 0).await?;
        let memory = match books {
            // The settings as the store gives them back, so both books trade the same.
            ScratchBooks::Memory => Some(Arc::new(MemoryLedger::new(
                store.settings_or_default(user, 0).await?,
            ))),
            ScratchBooks::Store => None,
        };
        let ledger: Arc<dyn Ledger> = match &memory {
            Some(memory) => memory.clone(),
            None => Arc::new(store.clone()),
        };
        let market = Arc::new(ManualMarket::new(instruments, first_ms).with_funding(funding));
        let exchange = PaperExchange::new(market.clone(), paper, Arc::new(NoJournal)).await?;
        // The driver hands the exchange every price it sets on the market (`Driver::tick`,
        // `first_price`, `show_closes`).
        exchange.driven_by_hand();
        let venue: Arc<dyn Venue> = Arc::new(exchange.account(user));
        let events = venue.subscribe();
        let bus = EventBus::new();
        let journal = BotJournal::kept_in_memory(store.clone(), bus.clone(), LOG_KEPT);
        let deps = TradingDeps {
            account_venue: signaldesk_core::account::AccountVenue::Paper,
            store: store.clone(),
            ledger,
            journal: journal.clone(),
            bus,
            venue: venue.clone(),
            market: market.clone(),
            notices: signaldesk_engine::Notifications::disabled(),
            alerts: signaldesk_engine::Alerts::disabled(),
            feed_stale_after: signaldesk_engine::trading::DEFAULT_FEED_STALE_AFTER,
        };
        let known = symbols.iter().map(|s| (s.clone(), TradeSignal::Neutral));
        let worker = TradingWorker::new(user, deps, known).await?;
        Ok(Scratch {
            store,
            memory,
            user,
            market,
            exchange,
            venue,
            events,
            journal,
            worker,
        })
    }

    /// What moves this world, one step at a time.
    pub(crate) fn driver<'a>(
        &'a mut self,
        symbols: &'a [String],
        walk_every_candle: bool,
    ) -> Driver<'a> {
        Driver {
            user: self.user,
            market: &self.market,
            exchange: &self.exchange,
            venue: &self.venue,
            events: &mut self.events,
            worker: &mut self.worker,
            symbols,
            signals_taken: 0,
            tally: SignalTally::default(),
            bands: vec![QuietBand::EVERYWHERE; symbols.len()],
            unseen: vec![None; symbols.len()],
            opened: vec![false; symbols.len()],
            walk_every_candle,
        }
    }

    /// The run's trades, chains, summary and log, as the books hold them now.
    pub(crate) async fn outcome(
        self,
        settings: &BotSettings,
        starting_balance: Decimal,
        tally: SignalTally,
    ) -> Result<Outcome, BacktestError> {
        let paper = signaldesk_core::account::AccountVenue::Paper;
        let (trades, chains) = match &self.memory {
            Some(memory) => (
                memory.all_trades(self.user),
                memory.chains_with_trades(self.user, paper),
            ),
            None => (
                self.store.all_trades(self.user).await?,
                self.store
                    .chains_with_trades(self.user, paper, i64::MIN, i64::MAX)
                    .await?,
            ),
        };
        let wallet = self.venue.wallet().await?;
        let summary = Summary::of(
            &trades,
            settings.timezone(),
            starting_balance,
            wallet.wallet_balance,
        );
        self.store.close().await;
        Ok(Outcome {
            trades,
            chains,
            summary,
            log: self.journal.kept_lines(),
            skipped: tally.skipped,
            signals_seen: tally.seen,
            entries_tried: tally.tried,
            skips_by_kind: tally.by_kind,
        })
    }
}

/// Moves the world one step at a time and lets the worker hear it. A candle whose prices
/// all lie in its symbol's [`QuietBand`] (where neither the exchange nor the worker would
/// act) is not walked: its close is shown to the market and the exchange before anything
/// next reads prices.
pub(crate) struct Driver<'a> {
    user: i64,
    market: &'a ManualMarket,
    exchange: &'a PaperExchange,
    venue: &'a Arc<dyn Venue>,
    events: &'a mut broadcast::Receiver<VenueEvent>,
    worker: &'a mut TradingWorker,
    symbols: &'a [String],
    /// How many signals the worker acted on: their ids in the scratch books (no trade
    /// refers to a signal row, so none is written).
    signals_taken: i64,
    pub(crate) tally: SignalTally,
    bands: Vec<QuietBand>,
    /// Each symbol's last close the market and the exchange have not been shown, with its
    /// time.
    unseen: Vec<Option<(Decimal, i64)>>,
    /// Whether each symbol's first price is set.
    opened: Vec<bool>,
    walk_every_candle: bool,
}

impl Driver<'_> {
    /// Sets the first price of each symbol whose candles start in this chunk: its first
    /// open, at the start of the run.
    fn first_prices(&mut self, parts: &[Part], first_ms: i64) {
        for (i, part) in parts.iter().enumerate() {
            if let (false, Some(candle)) = (self.opened[i], part.candles.first()) {
                self.first_price(i, candle.open, first_ms);
            }
        }
    }

    /// Symbol `i`'s first price, at the start of the run.
    pub(crate) fn first_price(&mut self, i: usize, price: Decimal, at_ms: i64) {
        self.opened[i] = true;
        let symbol = &self.symbols[i];
        self.market.set_price(symbol, price);
        self.exchange.on_tick(symbol, price, at_ms);
    }

    pub(crate) async fn signal(
        &mut self,
        scripted: ScriptedSignal,
        now_ms: i64,
    ) -> Result<(), BacktestError> {
        self.market.set_time(now_ms);
        let (stored_id, source) = scripted
            .stored
            .map_or((None, "backtest".to_string()), |(id, source)| {
                (Some(id), source)
            });
        let mut signal = StoredSignal {
            id: 0,
            user_id: self.user,
            symbol: scripted.symbol,
            rating: scripted.rating,
            total: None,
            ma: None,
            osc: None,
            candle_time: scripted.candle_ms,
            source,
            created_at: now_ms,
        };
        self.tally.seen += 1;
        if !self.worker.acts_on(&signal.symbol, &signal.rating) {
            // Only noted as the latest signal.
            self.worker.on_signal(&signal, at(now_ms)).await;
            return Ok(());
        }
        self.show_closes().await;
        self.signals_taken += 1;
        signal.id = stored_id.unwrap_or(self.signals_taken);
        self.tally.tried += 1;
        self.worker.on_signal(&signal, at(now_ms)).await;
        if let Some(skip) = self.worker.take_last_skip() {
            *self.tally.by_kind.entry(skip.kind()).or_default() += 1;
            self.tally.skipped.push((signal.id, skip.to_string()));
        }
        self.pump(now_ms).await?;
        self.refresh_bands();
        Ok(())
    }

    /// Every symbol's candle of the minute, each walked as its price path unless it is
    /// quiet; then the worker's timers.
    async fn minute(&mut self, parts: &[Part], minute_ms: i64) -> Result<(), BacktestError> {
        for (i, part) in parts.iter().enumerate() {
            let Some(candle) = part.at(minute_ms) else {
                continue;
            };
            // A minute that opens on a funding settlement is walked: its open is the price
            // positions settle at.
            let settles = minute_ms % FUNDING_INTERVAL_MS == 0;
            if !self.walk_every_candle && !settles && self.bands[i].holds(candle.low, candle.high) {
                self.unseen[i] = Some((candle.close, minute_ms + OFFSETS_MS[3]));
                continue;
            }
            self.unseen[i] = None;
            let mut heard = false;
            for (after, price) in price_path(candle) {
                heard |= self.tick(i, price, minute_ms + after).await?;
            }
            if heard {
                self.refresh_bands();
            } else {
                // Nothing happened but this symbol's prices: only its band can have moved
                // (a new best price for its trailing stop, a take profit taken).
                self.refresh_band(i);
            }
        }
        if self.walk_every_candle || self.worker.clock_due() {
            self.timers(minute_ms + MINUTE_MS - 1).await?;
        }
        Ok(())
    }

    /// A minute of the warm-up: nothing trades, but its close is the price the period
    /// starts from (a signal in the period's first minute trades at it, not at the warm-up's
    /// first open).
    fn warm_up_minute(&mut self, parts: &[Part], minute_ms: i64) {
        for (i, part) in parts.iter().enumerate() {
            if let Some(candle) = part.at(minute_ms) {
                self.unseen[i] = Some((candle.close, minute_ms + OFFSETS_MS[3]));
            }
        }
    }

    /// The worker's timers at `now_ms` (what the live worker does on its clock: retrying a
    /// reconciliation, resuming waiting martingale chains).
    pub(crate) async fn timers(&mut self, now_ms: i64) -> Result<(), BacktestError> {
        self.show_closes().await;
        self.market.set_time(now_ms);
        self.worker.on_clock(at(now_ms)).await;
        self.pump(now_ms).await?;
        self.refresh_bands();
        Ok(())
    }

    /// Whether the worker's timers have anything to do.
    pub(crate) fn timers_due(&self) -> bool {
        self.worker.clock_due()
    }

    /// A replayed signal from before the period: what the bot knew then, not traded.
    pub(crate) fn note(&mut self, signal: &ScriptedSignal) {
        self.worker.note_signal(&signal.symbol, &signal.rating);
    }

    /// One price of symbol `i` at `now_ms`: the market, then the exchange, then the worker
    /// hear it. Answers whether the exchange did anything but move the wallet.
    pub(crate) async fn tick(
        &mut self,
        i: usize,
        price: Decimal,
        now_ms: i64,
    ) -> Result<bool, BacktestError> {
        let symbol = &self.symbols[i];
        self.market.set_time(now_ms);
        self.market.set_price(symbol, price);
        self.exchange.on_tick(symbol, price, now_ms);
        let mut heard = self.pump(now_ms).await?;
        self.worker.on_tick(symbol, price, at(now_ms)).await;
        heard |= self.pump(now_ms).await?;
        Ok(heard)
    }

    /// Shows the market, the exchange and the worker each symbol's last close they have
    /// not seen (a quiet price: nobody acts on it).
    async fn show_closes(&mut self) {
        let now_ms = self.market.now_ms();
        for (i, unseen) in self.unseen.iter_mut().enumerate() {
            if let Some((price, ts_ms)) = unseen.take() {
                let symbol = &self.symbols[i];
                // The market's tick carries the close's own time: a later one could cross a
                // funding settlement at a price from before it.
                self.market.set_time(ts_ms);
                self.market.set_price(symbol, price);
                self.market.set_time(now_ms);
                self.exchange.on_tick(symbol, price, ts_ms);
                self.worker.on_tick(symbol, price, at(ts_ms)).await;
            }
        }
    }

    /// Where each symbol's prices may move unwalked, after anything that may have changed
    /// a position, a stop or a take profit.
    fn refresh_bands(&mut self) {
        for i in 0..self.symbols.len() {
            self.refresh_band(i);
        }
    }

    fn refresh_band(&mut self, i: usize) {
        let symbol = &self.symbols[i];
        self.bands[i] = self
            .exchange
            .quiet_band(self.user, symbol)
            .and(self.worker.quiet_band(symbol));
    }

    /// Hands the worker everything the exchange did so far; answers whether there was any
    /// event but a wallet update.
    async fn pump(&mut self, now_ms: i64) -> Result<bool, BacktestError> {
        self.venue.catch_up().await?;
        let mut heard = false;
        while let Ok(event) = self.events.try_recv() {
            heard |= !matches!(event, VenueEvent::Wallet(_));
            self.worker.on_venue_event(event, at(now_ms)).await;
        }
        Ok(heard)
    }
}
fn at(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
