//! Entries: a transition into a strong signal opens a classic trade or starts a martingale
//! chain; a losing chain trade opens the chain's next step.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use signaldesk_core::market::PositionSide;
use signaldesk_core::martingale::step_margin;
use signaldesk_core::settings::BotMode;
use signaldesk_core::signal::TradeSignal;
use signaldesk_core::trading::{
    entry_forbidden, entry_side, is_entry_transition, plan_entry, symbol_not_chosen, AccountView,
    EntryPlan, Skip,
};
use signaldesk_store::{Chain, ChainStatus, StoredSignal, Trade, TradeStatus};
use signaldesk_venue::OrderRequest;

use super::books::{opening_execution_id, Booked};
use super::TradingWorker;
use crate::EngineError;

/// Where an entry comes from.
pub(super) struct EntrySource<'a> {
    pub signal: Option<&'a StoredSignal>,
    /// The chain and step a martingale trade belongs to.
    pub chain: Option<(i64, u32)>,
}

pub(super) fn side_name(side: PositionSide) -> &'static str {
    match side {
        PositionSide::Long => "long",
        PositionSide::Short => "short",
    }
}

impl TradingWorker {
    /// A new signal: a transition into STRONG_BUY or STRONG_SELL is an entry decision;
    /// anything else only updates what the worker knows.
    pub async fn on_signal(&mut self, signal: &StoredSignal, now: DateTime<Utc>) {
        let new = TradeSignal::from_rating(&signal.rating);
        let previous = self.signals.insert(signal.symbol.clone(), new);
        if !is_entry_transition(previous, new) {
            return;
        }
        let Some(side) = entry_side(new, self.settings.reverse_mode) else {
            return;
        };
        let label = format!("{} {}", signal.symbol, new);
        self.last_skip = None;
        if let Err(skip) = self.try_entry(signal, side, now).await {
            self.info(&format!("{label}: skipped, {skip}")).await;
            self.last_skip = Some(skip);
        }
        self.resume_waiting_chains(now).await;
    }

    async fn try_entry(
        &mut self,
        signal: &StoredSignal,
        side: PositionSide,
        now: DateTime<Utc>,
    ) -> Result<(), Skip> {
        if let Some(why) = entry_forbidden(&self.settings, now) {
            return Err(Skip::ForbiddenWindow(why.to_string()));
        }
        if let Some(why) = self.circuit_breaker(now).await {
            return Err(Skip::CircuitBreaker(why));
        }
        let from_alert = signal.source == "webhook";
        if let Some(why) = symbol_not_chosen(&self.settings, &signal.symbol, from_alert) {
            return Err(Skip::SymbolNotChosen(why));
        }
        if self.out_of_sync.active {
            return Err(Skip::Forbidden(
                "the books are not yet reconciled with the venue after a storage fault".into(),
            ));
        }
        let symbol = signal.symbol.as_str();
        let source = EntrySource {
            signal: Some(signal),
            chain: None,
        };
        match self.settings.bot_mode {
            BotMode::Classic => {
                let margin = self.settings.max_trade_usdt;
                self.enter(symbol, side, margin, source, now).await
            }
            BotMode::Martingale => {
                let (on_symbol, open) = self.open_chains_view(symbol).await?;
                if on_symbol {
                    return Err(Skip::MartingaleLimit(
                        "a martingale chain on this symbol is still open".into(),
                    ));
                }
                let max = self.settings.martingale_max_active_chains;
                if open >= max as usize {
                    return Err(Skip::MartingaleLimit(format!(
                        "{open} martingale chain(s) are open (martingale_max_active_chains {max})"
                    )));
                }
                self.start_chain(symbol, side, signal, now).await
            }
        }
    }

    /// Whether a martingale chain is open on `symbol`, and how many are open. While no open
    /// chain waits for its next step, every open chain has a trade open here, so the books
    /// in memory answer; otherwise the store does.
    async fn open_chains_view(&self, symbol: &str) -> Result<(bool, usize), Skip> {
        if self.no_waiting_chains {
            let mut ids: Vec<i64> = self.open.values().filter_map(|t| t.chain_id).collect();
            ids.sort_unstable();
            ids.dedup();
            let on_symbol = self.open.get(symbol).is_some_and(|t| t.chain_id.is_some());
            return Ok((on_symbol, ids.len()));
        }
        let chains = self
            .deps
            .ledger
            .open_chains(self.user_id)
            .await
            .map_err(|e| Skip::Forbidden(format!("the chains could not be read: {e}")))?;
        Ok((chains.iter().any(|c| c.symbol == symbol), chains.len()))
    }

    async fn start_chain(
        &mut self,
        symbol: &str,
        side: PositionSide,
        signal: &StoredSignal,
        now: DateTime<Utc>,
    ) -> Result<(), Skip> {
        // The new chain may end up waiting (its entry refused): look at the chains again.
        self.no_waiting_chains = false;
        let ledger = self.deps.ledger.clone();
        let chain = ledger
            .insert_chain(&Chain {
                id: 0,
                user_id: self.user_id,
                symbol: symbol.to_string(),
                status: ChainStatus::Open,
                step: 1,
                side,
                won: None,
                created_at: now.timestamp_millis(),
                closed_at: None,
            })
            .await
            .map_err(|e| Skip::Forbidden(format!("the chain could not be stored: {e}")))?;
        let margin = step_margin(&self.settings, 1);
        let source = EntrySource {
            signal: Some(signal),
            chain: Some((chain.id, 1)),
        };
        let entered = self.enter(symbol, side, margin, source, now).await;
        if entered.is_err() {
            // Nothing was traded: the chain never began.
            let _ = ledger.delete_chain(self.user_id, chain.id).await;
        } else {
            self.info(&format!(
                "{symbol}: martingale chain #{} started ({} USDT margin, step 1 of {})",
                chain.id, margin, self.settings.martingale_max_depth
            ))
            .await;
        }
        entered
    }

    /// Opens the next step of `chain` (its newest trade lost), or leaves it waiting while
    /// the clock forbids entries, or ends it when the step cannot be placed.
    pub(super) async fn next_chain_step(&mut self, mut chain: Chain, now: DateTime<Utc>) {
        let step = chain.step + 1;
        if let Some(why) = match entry_forbidden(&self.settings, now) {
            Some(why) => Some(why.to_string()),
            None => self.circuit_breaker(now).await,
        } {
            self.info(&format!(
                "{}: martingale chain #{} step {step} waits: {why}",
                chain.symbol, chain.id
            ))
            .await;
            return;
        }
        // The symbol's current strong signal, else the previous trade's direction.
        let side = self
            .signals
            .get(&chain.symbol)
            .and_then(|s| entry_side(*s, self.settings.reverse_mode))
            .unwrap_or(chain.side);
        let margin = step_margin(&self.settings, step);
        let source = EntrySource {
            signal: None,
            chain: Some((chain.id, step)),
        };
        let symbol = chain.symbol.clone();
        match self.enter(&symbol, side, margin, source, now).await {
            Ok(()) => {
                chain.step = step;
                chain.side = side;
                if let Err(e) = self.deps.ledger.save_chain(&chain).await {
                    self.error(&format!(
                        "Could not store martingale chain #{}: {e}",
                        chain.id
                    ))
                    .await;
                }
                self.info(&format!(
                    "{symbol}: martingale chain #{} step {step} of {} opened ({margin} USDT margin)",
                    chain.id, self.settings.martingale_max_depth
                ))
                .await;
            }
            Err(skip) => {
                self.end_chain(&mut chain, false, now).await;
                self.warning(&format!(
                    "{symbol}: martingale chain #{} ended in a loss: step {step} could not open, {skip}",
                    chain.id
                ))
                .await;
            }
        }
    }

    /// Chains whose newest trade has closed in a loss and whose next step waits (a forbidden
    /// window at the time, or a restart in between).
    pub(super) async fn resume_waiting_chains(&mut self, now: DateTime<Utc>) {
        if self.no_waiting_chains {
            return;
        }
        let Ok(chains) = self.deps.ledger.open_chains(self.user_id).await else {
            return;
        };
        let mut ids = Vec::with_capacity(chains.len());
        for chain in chains {
            ids.push(chain.id);
            let trading = self.open.values().any(|t| t.chain_id == Some(chain.id));
            if !trading
                && entry_forbidden(&self.settings, now).is_none()
                && self.circuit_breaker(now).await.is_none()
            {
                self.next_chain_step(chain, now).await;
            }
        }
        let trading = |id: i64| self.open.values().any(|t| t.chain_id == Some(id));
        self.no_waiting_chains = ids.into_iter().all(trading);
    }

    /// Notes `rating` as `symbol`'s latest signal without acting on it: what the worker
    /// knew before a replayed period (a live worker starts from the stored latest ones).
    pub fn note_signal(&mut self, symbol: &str, rating: &str) {
        self.signals
            .insert(symbol.to_string(), TradeSignal::from_rating(rating));
    }

    /// Whether [`on_signal`](Self::on_signal) would act on `rating` for `symbol` (try an
    /// entry); any other signal only updates the latest one.
    pub fn acts_on(&self, symbol: &str, rating: &str) -> bool {
        let new = TradeSignal::from_rating(rating);
        is_entry_transition(self.signals.get(symbol).copied(), new)
            && entry_side(new, self.settings.reverse_mode).is_some()
    }

    pub(super) async fn end_chain(&mut self, chain: &mut Chain, won: bool, now: DateTime<Utc>) {
        chain.status = ChainStatus::Closed;
        chain.won = Some(won);
        chain.closed_at = Some(now.timestamp_millis());
        if let Err(e) = self.deps.ledger.save_chain(chain).await {
            self.error(&format!(
                "Could not store martingale chain #{}: {e}",
                chain.id
            ))
            .await;
        }
    }

    async fn account_view(&self, symbol: &str) -> Result<AccountView, Skip> {
        let wallet = self
            .deps
            .venue
            .wallet()
            .await
            .map_err(|e| Skip::Forbidden(format!("the wallet could not be read: {e}")))?;
        Ok(AccountView {
            open_trades: self.open.len(),
            margin_in_use: self.open.values().map(|t| t.margin).sum(),
            symbol_has_position: self.open.contains_key(symbol),
            available_balance: wallet.available_balance,
            max_slippage: self.deps.venue.max_slippage(symbol),
        })
    }

    /// Plans and places an entry of `margin` USDT: leverage, a PENDING record, the market
    /// order (idempotent by its client order id), then the stop loss and trailing stop.
    async fn enter(
        &mut self,
        symbol: &str,
        side: PositionSide,
        margin: Decimal,
        source: EntrySource<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), Skip> {
        let instrument = self
            .instrument(symbol)
            .await
            .map_err(|e| Skip::Forbidden(format!("the instrument could not be read: {e}")))?;
        let price = self.price(symbol).await.ok_or(Skip::NoPrice)?;
        let account = self.account_view(symbol).await?;
        let plan = plan_entry(&self.settings, &instrument, &account, side, margin, price)?;
        if let Err(e) = self.deps.venue.set_leverage(symbol, plan.leverage).await {
            return Err(Skip::Forbidden(format!(
                "leverage {}x was refused: {e}",
                plan.leverage
            )));
        }
        let trade = match self
            .record_pending(symbol, &plan, &source, price, now)
            .await
        {
            Ok(trade) => trade,
            Err(e) => {
                let why = format!("the trade could not be stored: {e}");
                self.fall_out_of_sync(&format!("{symbol}: {why}")).await;
                return Err(Skip::Forbidden(why));
            }
        };
        self.open_recorded(trade, &plan, price, now).await;
        Ok(())
    }

    async fn record_pending(
        &self,
        symbol: &str,
        plan: &EntryPlan,
        source: &EntrySource<'_>,
        price: Decimal,
        now: DateTime<Utc>,
    ) -> Result<Trade, EngineError> {
        let now_ms = now.timestamp_millis();
        let trade = Trade {
            id: 0,
            user_id: self.user_id,
            symbol: symbol.to_string(),
            side: plan.side,
            status: TradeStatus::Pending,
            client_order_id: opening_order_id(self.user_id, now_ms),
            leverage: plan.leverage,
            margin: plan.margin,
            qty: plan.qty,
            open_qty: Decimal::ZERO,
            entry_price: None,
            exit_price: None,
            closed_qty: Decimal::ZERO,
            exit_value: Decimal::ZERO,
            pnl: Decimal::ZERO,
            fees: Decimal::ZERO,
            funding: Decimal::ZERO,
            volume: Decimal::ZERO,
            stop_loss: None,
            tp_step: 0,
            close_reason: None,
            chain_id: source.chain.map(|c| c.0),
            chain_step: source.chain.map(|c| c.1),
            signal_id: source.signal.map(|s| s.id),
            signal_at: source.signal.map(|s| s.created_at),
            signal_price: Some(price),
            created_at: now_ms,
            opened_at: None,
            closed_at: None,
            venue: Some(self.deps.account_venue),
        };
        Ok(self.deps.ledger.insert_trade(&trade).await?)
    }

    /// Sends the opening order of a PENDING trade, protects the position, then records the
    /// outcome. An answer that never came is not a rejection: the trade stays PENDING and the
    /// reconciliation settles it by its client order id.
    async fn open_recorded(
        &mut self,
        mut trade: Trade,
        plan: &EntryPlan,
        price: Decimal,
        now: DateTime<Utc>,
    ) {
        let order = OrderRequest {
            client_order_id: trade.client_order_id.clone(),
            symbol: trade.symbol.clone(),
            side: plan.side.entry_side(),
            qty: plan.qty,
            reduce_only: false,
        };
        let fill = match self.deps.venue.submit_market_order(order).await {
            Ok(fill) => fill,
            Err(e) if e.is_retryable() => {
                self.fall_out_of_sync(&format!(
                    "{}: the {} order's outcome is unknown ({e}); it will be settled with the venue",
                    trade.symbol,
                    side_name(plan.side)
                ))
                .await;
                return;
            }
            Err(e) => {
                trade.status = TradeStatus::Cancelled;
                trade.close_reason = Some("rejected".into());
                self.save(&trade).await;
                self.error(&format!(
                    "{}: the {} order was rejected: {e}",
                    trade.symbol,
                    side_name(plan.side)
                ))
                .await;
                return;
            }
        };
        trade.status = TradeStatus::Open;
        trade.entry_price = Some(fill.price);
        trade.qty = fill.qty;
        trade.open_qty = fill.qty;
        trade.fees += fill.fee;
        trade.volume += fill.price * fill.qty;
        trade.margin = fill.price * fill.qty / Decimal::from(plan.leverage);
        // The venue's time of the fill, on the worker's clock (the market's; never before the
        // decision, whatever the venue's clock says).
        let filled_at = fill.ts_ms.max(now.timestamp_millis());
        trade.opened_at = Some(filled_at);
        let latency_ms = trade.signal_at.map(|at| filled_at - at);
        let slippage_pct = (fill.price - price) / price * Decimal::ONE_HUNDRED;
        self.open.insert(trade.symbol.clone(), trade.clone());
        // The position is protected before anything is written.
        let protected = self.protect(&mut trade).await;
        let stops = match (&protected, trade.stop_loss) {
            (Ok(()), Some(sl)) => format!("stop loss {sl}"),
            _ => "no stop loss".to_string(),
        };
        let opening = opening_execution_id(&trade);
        let booked = self
            .commit_execution(&trade, &opening, fill.price * fill.qty, filled_at)
            .await;
        self.info(&format!(
            "{}: opened {} {} at {} ({} USDT margin, {}x, fee {}); {stops}{}",
            trade.symbol,
            side_name(trade.side),
            trade.qty,
            fill.price,
            trade.margin.round_dp(2),
            trade.leverage,
            fill.fee.round_dp(4),
            match latency_ms {
                Some(ms) => format!(
                    "; {ms} ms after the signal, slippage {:+}%",
                    slippage_pct.round_dp(3)
                ),
                None => String::new(),
            }
        ))
        .await;
        if booked != Booked::Failed {
            self.notify_opened(&trade);
        }
        if let Err(e) = protected {
            self.error(&format!(
                "{}: the stop loss could not be placed ({e}): closing the position",
                trade.symbol
            ))
            .await;
            let _ = self.close_trade(trade.id, now).await;
        }
        self.publish_account().await;
    }

    /// Places the stop loss and the trailing stop of a freshly opened trade.
    async fn protect(&mut self, trade: &mut Trade) -> Result<(), EngineError> {
        let stop_loss = self.place_stops(trade, None).await?;
        trade.stop_loss = Some(stop_loss);
        if let Some(open) = self.open.get_mut(&trade.symbol) {
            open.stop_loss = Some(stop_loss);
        }
        Ok(())
    }
}

/// The opening order's client order id, at most 36 characters (Bybit's orderLinkId): the
/// time, a counter of this process and a random part never repeat, and the venue answers a
/// retried submit of the same id with its first fill instead of opening twice.
fn opening_order_id(user_id: i64, now_ms: i64) -> String {
    static SEQUENCE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nonce: u16 = rand::random();
    format!("sd-{user_id}-{now_ms:x}-{n:x}{nonce:04x}")
}
