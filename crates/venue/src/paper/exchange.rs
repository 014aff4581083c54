//! [`PaperExchange`]: every user's paper account behind one lock, fed by a market; and
//! [`PaperAccount`]: one user's [`Venue`] on it.

use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use rust_decimal::Decimal;
use signaldesk_core::market::Instrument;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::task::JoinHandle;

use super::account::{position_view, Quote, Submitted};
use super::journal::PaperJournal;
use super::snapshot::{AccountSnapshot, UserId};
use super::PaperConfig;
use crate::error::VenueError;
use crate::market::{MarketData, MarketEvent};
use crate::quiet::QuietBand;
use crate::venue::{
    Fill, FundingPayment, OrderRequest, Position, PositionClose, Stops, Venue, VenueEvent, Wallet,
};

const EVENT_CAPACITY: usize = 1024;

/// The paper exchange shared by all users. Cheap to clone (one shared state).
#[derive(Clone)]
pub struct PaperExchange {
    shared: Arc<Shared>,
}

struct Shared {
    config: PaperConfig,
    market: Arc<dyn MarketData>,
    instruments: FxHashMap<String, Instrument>,
    journal: Arc<dyn PaperJournal>,
    state: Mutex<State>,
    /// The market subscription until [`PaperExchange::spawn`] takes it.
    feed: Mutex<Option<broadcast::Receiver<MarketEvent>>>,
}

#[derive(Default)]
struct State {
    accounts: HashMap<UserId, AccountSnapshot>,
    senders: HashMap<UserId, broadcast::Sender<VenueEvent>>,
    prices: FxHashMap<String, Decimal>,
    /// The market time of the price in `prices`: an older tick arriving late is ignored.
    price_times: FxHashMap<String, i64>,
}

impl State {
    fn account(
        &mut self,
        user_id: UserId,
        config: &PaperConfig,
        journal: &dyn PaperJournal,
        now_ms: i64,
    ) -> &mut AccountSnapshot {
        self.accounts.entry(user_id).or_insert_with(|| {
            let fresh = AccountSnapshot::new(config.starting_balance, now_ms);
            journal.save(user_id, &fresh);
            fresh
        })
    }

    fn wallet(&self, user_id: UserId) -> Option<Wallet> {
        let prices = &self.prices;
        self.accounts
            .get(&user_id)
            .map(|a| a.wallet(|s| prices.get(s).copied()))
    }

    fn publish(&self, user_id: UserId, event: VenueEvent) {
        if let Some(tx) = self.senders.get(&user_id) {
            // No subscriber is not an error: events are for whoever listens.
            let _ = tx.send(event);
        }
    }

    fn publish_close(&self, user_id: UserId, close: PositionClose) {
        self.publish(user_id, VenueEvent::PositionClosed(close));
        if let Some(w) = self.wallet(user_id) {
            self.publish(user_id, VenueEvent::Wallet(w));
        }
    }
}

impl PaperExchange {
    /// An exchange trading `market`'s instruments at its prices. Accounts are created on
    /// first use with the configured balance; [`restore`](Self::restore) brings saved ones
    /// back. Every change is written to `journal`.
    pub async fn new(
        market: Arc<dyn MarketData>,
        config: PaperConfig,
        journal: Arc<dyn PaperJournal>,
    ) -> Result<Self, VenueError> {
        let feed = market.subscribe();
        let instruments = market
            .instruments()
            .await?
            .into_iter()
            .map(|i| (i.symbol.clone(), i))
            .collect();
        Ok(Self {
            shared: Arc::new(Shared {
                config,
                market,
                instruments,
                journal,
                state: Mutex::new(State::default()),
                feed: Mutex::new(Some(feed)),
            }),
        })
    }

    pub fn config(&self) -> &PaperConfig {
        &self.shared.config
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts saved accounts back (replacing any account of the same user).
    pub fn restore(&self, snapshots: impl IntoIterator<Item = (UserId, AccountSnapshot)>) {
        let mut state = self.lock();
        for (user_id, snapshot) in snapshots {
            state.accounts.insert(user_id, snapshot);
        }
    }

    /// Takes one account out (its bot moved to another instance): no tick moves it here any
    /// more and no save of it is made here. Its event subscribers stay.
    pub fn evict(&self, user_id: UserId) -> Option<AccountSnapshot> {
        self.lock().accounts.remove(&user_id)
    }

    /// The wallet and positions of an account this exchange does not hold (one read from the
    /// store, say), at the current prices, without taking the account in: a read for a user
    /// whose bot another instance runs.
    pub async fn view(
        &self,
        snapshot: &AccountSnapshot,
    ) -> Result<(Wallet, Vec<Position>), VenueError> {
        for symbol in snapshot.positions.keys() {
            self.ensure_price(symbol).await?;
        }
        let state = self.lock();
        let mark = |symbol: &str| state.prices.get(symbol).copied();
        let positions = snapshot
            .positions
            .values()
            .map(|p| {
                let instrument = self.instrument(&p.symbol)?;
                let price = mark(&p.symbol).unwrap_or(p.entry_price);
                Ok(position_view(p, price, instrument, &self.shared.config))
            })
            .collect::<Result<Vec<_>, VenueError>>()?;
        Ok((snapshot.wallet(mark), positions))
    }

    /// A copy of one account's state, if it exists.
    pub fn snapshot(&self, user_id: UserId) -> Option<AccountSnapshot> {
        self.lock().accounts.get(&user_id).cloned()
    }

    /// All accounts' states, by user.
    pub fn snapshots(&self) -> Vec<(UserId, AccountSnapshot)> {
        let mut all: Vec<_> = self
            .lock()
            .accounts
            .iter()
            .map(|(u, a)| (*u, a.clone()))
            .collect();
        all.sort_by_key(|(u, _)| *u);
        all
    }

    /// `user_id`'s account as a [`Venue`].
    pub fn account(&self, user_id: UserId) -> PaperAccount {
        PaperAccount {
            exchange: self.clone(),
            user_id,
        }
    }

    /// Applies a market event: a tick moves the price and runs every account's stops on
    /// that symbol; closed candles change nothing here.
    pub fn apply(&self, event: &MarketEvent) {
        if let MarketEvent::Tick {
            symbol,
            price,
            ts_ms,
        } = event
        {
            self.on_tick(symbol, *price, *ts_ms);
        }
    }

    /// A new last price for `symbol`: funding settles for every settlement time since the
    /// last tick, then trailing stops move, stops and liquidations fire.
    pub fn on_tick(&self, symbol: &str, price: Decimal, ts_ms: i64) {
        let Some(instrument) = self.shared.instruments.get(symbol) else {
            return;
        };
        let config = &self.shared.config;
        let quote = Quote {
            instrument,
            price,
            ts_ms,
        };
        let mut state = self.lock();
        if state
            .price_times
            .get(symbol)
            .is_some_and(|seen| *seen > ts_ms)
        {
            return;
        }
        // The price at a settlement time is the last one before it, or this tick's when it
        // falls on it.
        let before = state.prices.get(symbol).copied().unwrap_or(price);
        let mark_at = |at: i64| if at == ts_ms { price } else { before };
        let rate_at = |at: i64| self.shared.market.funding_rate(symbol, at);
        set_for(&mut state.price_times, symbol, ts_ms);
        set_for(&mut state.prices, symbol, price);
        let mut users: Vec<UserId> = state
            .accounts
            .iter()
            .filter(|(_, a)| a.positions.contains_key(symbol))
            .map(|(u, _)| *u)
            .collect();
        if users.is_empty() {
            return;
        }
        users.sort_unstable();
        for user_id in users {
            let Some(account) = state.accounts.get_mut(&user_id) else {
                continue;
            };
            let funding = account.settle_funding(symbol, ts_ms, mark_at, rate_at, config);
            let outcome = account.on_price(quote, config);
            if outcome.changed || !funding.is_empty() {
                self.shared.journal.save(user_id, account);
            }
            if !funding.is_empty() {
                for payment in funding {
                    state.publish(user_id, VenueEvent::Funding(payment));
                }
                if outcome.close.is_none() {
                    if let Some(w) = state.wallet(user_id) {
                        state.publish(user_id, VenueEvent::Wallet(w));
                    }
                }
            }
            if let Some(close) = outcome.close {
                tracing::info!(
                    user_id,
                    symbol,
                    reason = ?close.reason,
                    exit_price = %close.exit_price,
                    pnl = %close.realized_pnl,
                    "paper position closed by price"
                );
                state.publish_close(user_id, close);
            }
        }
    }

    /// The prices of `symbol` at which a tick would change nothing in `user_id`'s account
    /// ([`AccountSnapshot::quiet_band`]).
    pub fn quiet_band(&self, user_id: UserId, symbol: &str) -> QuietBand {
        let Some(instrument) = self.shared.instruments.get(symbol) else {
            return QuietBand::EVERYWHERE;
        };
        self.lock()
            .accounts
            .get(&user_id)
            .map_or(QuietBand::EVERYWHERE, |a| {
                a.quiet_band(instrument, &self.shared.config)
            })
    }

    /// Applies every market event received since the last call, without waiting: the way to
    /// step the exchange in tests (until [`spawn`](Self::spawn) takes the subscription).
    /// Returns how many events were applied.
    pub fn process_pending(&self) -> usize {
        let mut feed = self.shared.feed.lock().unwrap_or_else(|e| e.into_inner());
        let Some(rx) = feed.as_mut() else {
            return 0;
        };
        let mut n = 0;
        loop {
            match rx.try_recv() {
                Ok(event) => {
                    self.apply(&event);
                    n += 1;
                }
                Err(TryRecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "paper exchange fell behind the market feed");
                }
                Err(TryRecvError::Empty | TryRecvError::Closed) => return n,
            }
        }
    }

    /// Stops listening to the market: whoever drives this exchange hands it every price
    /// through [`on_tick`](Self::on_tick) itself (a backtest, which moves its market and this
    /// exchange together). Pending market events would only repeat ticks already applied.
    pub fn driven_by_hand(&self) {
        self.shared
            .feed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }

    /// Follows the market on a task of its own from now on.
    pub fn spawn(&self) -> JoinHandle<()> {
        let taken = self
            .shared
            .feed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let mut rx = taken.unwrap_or_else(|| self.shared.market.subscribe());
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(event) => this.apply(&event),
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "paper exchange fell behind the market feed");
                    }
                    Err(RecvError::Closed) => break,
                }
            }
        })
    }

    fn instrument(&self, symbol: &str) -> Result<&Instrument, VenueError> {
        self.shared
            .instruments
            .get(symbol)
            .ok_or_else(|| VenueError::UnknownSymbol(symbol.to_string()))
    }

    /// Brings `symbol` up to the market's latest price before an order or a stop is placed:
    /// pending ticks first, then the market's last price applied as a tick (its stops run
    /// first). An order therefore fills at a price the exchange saw at or after the decision
    /// that made it, never at one from before the tick the trader's bot reacted to.
    async fn ensure_price(&self, symbol: &str) -> Result<(), VenueError> {
        self.process_pending();
        let latest = self.shared.market.last_price(symbol).await;
        let known = self.lock().prices.get(symbol).copied();
        match (latest, known) {
            (Ok(price), Some(known)) if price == known => Ok(()),
            (Ok(price), _) => {
                self.on_tick(symbol, price, self.shared.market.now_ms());
                Ok(())
            }
            (Err(_), Some(_)) => Ok(()),
            (Err(e), None) => Err(e),
        }
    }

    /// Makes sure a price is known for every symbol `user_id` holds (after a restart the
    /// first tick may not have come yet).
    async fn ensure_prices_of(&self, user_id: UserId) -> Result<(), VenueError> {
        let symbols: Vec<String> = self
            .lock()
            .accounts
            .get(&user_id)
            .map(|a| a.positions.keys().cloned().collect())
            .unwrap_or_default();
        for symbol in symbols {
            self.ensure_price(&symbol).await?;
        }
        Ok(())
    }
}

/// One user's account on the [`PaperExchange`].
#[derive(Clone)]
pub struct PaperAccount {
    exchange: PaperExchange,
    user_id: UserId,
}

impl PaperAccount {
    pub fn user_id(&self) -> UserId {
        self.user_id
    }

    /// Runs `f` on this user's account (created if new) with the current price of `symbol`.
    fn with_quote<R>(
        &self,
        symbol: &str,
        f: impl FnOnce(&mut State, Quote<'_>) -> Result<R, VenueError>,
    ) -> Result<R, VenueError> {
        let ex = &self.exchange;
        let instrument = ex.instrument(symbol)?;
        let now = ex.shared.market.now_ms();
        let mut state = ex.lock();
        let price = state
            .prices
            .get(symbol)
            .copied()
            .ok_or_else(|| VenueError::Network(format!("no price for {symbol} yet")))?;
        state.account(
            self.user_id,
            &ex.shared.config,
            ex.shared.journal.as_ref(),
            now,
        );
        f(
            &mut state,
            Quote {
                instrument,
                price,
                ts_ms: now,
            },
        )
    }
}

#[async_trait]
impl Venue for PaperAccount {
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError> {
        self.exchange.instrument(symbol).cloned()
    }

    async fn set_leverage(&self, symbol: &str, leverage: u32) -> Result<(), VenueError> {
        let ex = &self.exchange;
        let instrument = ex.instrument(symbol)?;
        let now = ex.shared.market.now_ms();
        let mut state = ex.lock();
        let account = state.account(
            self.user_id,
            &ex.shared.config,
            ex.shared.journal.as_ref(),
            now,
        );
        if account.set_leverage(instrument, leverage, &ex.shared.config, now)? {
            ex.shared.journal.save(self.user_id, account);
        }
        Ok(())
    }

    async fn submit_market_order(&self, order: OrderRequest) -> Result<Fill, VenueError> {
        self.exchange.instrument(&order.symbol)?;
        self.exchange.ensure_price(&order.symbol).await?;
        let ex = &self.exchange;
        let user_id = self.user_id;
        self.with_quote(&order.symbol, |state, quote| {
            let account = state.account(
                user_id,
                &ex.shared.config,
                ex.shared.journal.as_ref(),
                quote.ts_ms,
            );
            match account.submit(&order, quote, &ex.shared.config)? {
                Submitted::Duplicate(fill) => Ok(fill),
                Submitted::New { fill, close } => {
                    ex.shared.journal.save(user_id, account);
                    tracing::info!(
                        user_id,
                        symbol = %fill.symbol,
                        side = ?fill.side,
                        qty = %fill.qty,
                        price = %fill.price,
                        reduce_only = fill.reduce_only,
                        "paper order filled"
                    );
                    state.publish(user_id, VenueEvent::Fill(fill.clone()));
                    match close {
                        Some(close) => state.publish_close(user_id, *close),
                        None => {
                            if let Some(w) = state.wallet(user_id) {
                                state.publish(user_id, VenueEvent::Wallet(w));
                            }
                        }
                    }
                    Ok(fill)
                }
            }
        })
    }

    async fn set_stops(&self, symbol: &str, stops: Stops) -> Result<(), VenueError> {
        self.exchange.ensure_price(symbol).await?;
        let ex = &self.exchange;
        let user_id = self.user_id;
        self.with_quote(symbol, |state, quote| {
            let account = state.account(
                user_id,
                &ex.shared.config,
                ex.shared.journal.as_ref(),
                quote.ts_ms,
            );
            account.set_stops(&stops, quote, &ex.shared.config)?;
            ex.shared.journal.save(user_id, account);
            Ok(())
        })
    }

    async fn positions(&self) -> Result<Vec<Position>, VenueError> {
        let ex = &self.exchange;
        ex.ensure_prices_of(self.user_id).await?;
        let state = ex.lock();
        let Some(account) = state.accounts.get(&self.user_id) else {
            return Ok(Vec::new());
        };
        account
            .positions
            .values()
            .map(|p| {
                let instrument = ex.instrument(&p.symbol)?;
                let mark = state
                    .prices
                    .get(&p.symbol)
                    .copied()
                    .unwrap_or(p.entry_price);
                Ok(position_view(p, mark, instrument, &ex.shared.config))
            })
            .collect()
    }

    async fn wallet(&self) -> Result<Wallet, VenueError> {
        let ex = &self.exchange;
        ex.ensure_prices_of(self.user_id).await?;
        let now = ex.shared.market.now_ms();
        let mut state = ex.lock();
        state.account(
            self.user_id,
            &ex.shared.config,
            ex.shared.journal.as_ref(),
            now,
        );
        state
            .wallet(self.user_id)
            .ok_or_else(|| VenueError::InvalidRequest("no paper account".into()))
    }

    async fn position_closes(
        &self,
        symbol: &str,
        position_id: &str,
    ) -> Result<Vec<PositionClose>, VenueError> {
        let state = self.exchange.lock();
        Ok(state
            .accounts
            .get(&self.user_id)
            .map(|a| {
                a.closes
                    .iter()
                    .filter(|c| c.symbol == symbol && c.position_id == position_id)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn funding_since(
        &self,
        symbol: &str,
        from_ms: i64,
    ) -> Result<Vec<FundingPayment>, VenueError> {
        let state = self.exchange.lock();
        Ok(state
            .accounts
            .get(&self.user_id)
            .map(|a| {
                a.fundings
                    .iter()
                    .filter(|f| f.symbol == symbol && f.ts_ms >= from_ms)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn maintenance_margin_rate(&self, symbol: &str) -> Result<Decimal, VenueError> {
        self.exchange.instrument(symbol)?;
        Ok(self
            .exchange
            .shared
            .config
            .maintenance_margin_rate_of(symbol))
    }

    fn max_slippage(&self, _symbol: &str) -> Decimal {
        self.exchange.shared.config.slippage_bps / Decimal::from(10_000)
    }

    async fn persisted(&self) -> Result<(), VenueError> {
        self.exchange
            .shared
            .journal
            .persisted()
            .await
            .map_err(VenueError::Network)
    }

    fn subscribe(&self) -> broadcast::Receiver<VenueEvent> {
        self.exchange
            .lock()
            .senders
            .entry(self.user_id)
            .or_insert_with(|| broadcast::channel(EVENT_CAPACITY).0)
            .subscribe()
    }
}

/// Sets `symbol`'s entry, allocating its key only the first time (ticks come by the million
/// in a backtest).
fn set_for<V>(map: &mut FxHashMap<String, V>, symbol: &str, value: V) {
    match map.get_mut(symbol) {
        Some(slot) => *slot = value,
        None => {
            map.insert(symbol.to_string(), value);
        }
    }
}
