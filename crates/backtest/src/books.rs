//! A run's books kept in memory: the trading worker's [`Ledger`] as plain collections, read
//! and written on the trading thread itself. The scratch SQLite database cost a run about
//! fifteen statements a trade, each handed to sqlx's SQLite thread and back (the busy case
//! of issue 32 trades every few minutes); these answer every call as the store's statements
//! would (the same ids, the same order, an execution booked once), so the worker, its rules
//! and what it decides are the live ones (docs/backtesting.md, "Fast without a second set of
//! rules"). A test runs the scenarios on both books and compares every trade and chain.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_engine::trading::Ledger;
use signaldesk_store::repo::stats::{ChainTrade, ChainWithTrades};
use signaldesk_store::{Chain, ChainStatus, SettingsRecord, StoreError, Trade, TradeStatus};

/// One user's books in memory.
#[derive(Debug)]
pub struct MemoryLedger {
    settings: SettingsRecord,
    books: Mutex<Books>,
}

#[derive(Debug, Default)]
struct Books {
    /// Every trade, trade `id` at `id - 1` (ids are given in order and never removed).
    trades: Vec<Trade>,
    /// Opening order ids in use (unique, as the table's).
    order_ids: HashSet<String>,
    chains: BTreeMap<i64, Chain>,
    /// The last chain id given (a deleted chain's id is not given again, as AUTOINCREMENT).
    last_chain: i64,
    /// The venue ids of the executions booked (unique per user, as the table's index).
    executions: HashSet<String>,
    /// Each trade's booked executions, in booking order.
    by_trade: HashMap<i64, Vec<String>>,
}

impl MemoryLedger {
    /// Empty books for the user of `settings`, who trades with them.
    pub fn new(settings: SettingsRecord) -> MemoryLedger {
        MemoryLedger {
            settings,
            books: Mutex::new(Books::default()),
        }
    }

    fn books(&self) -> MutexGuard<'_, Books> {
        self.books.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every trade of the user, oldest first (as [`signaldesk_store::Store::all_trades`]).
    pub fn all_trades(&self, user_id: i64) -> Vec<Trade> {
        self.books()
            .trades
            .iter()
            .filter(|t| t.user_id == user_id)
            .cloned()
            .collect()
    }

    /// The user's chains on account `venue` with their trades there, as
    /// [`signaldesk_store::Store::chains_with_trades`] answers for the whole time.
    pub fn chains_with_trades(&self, user_id: i64, venue: AccountVenue) -> Vec<ChainWithTrades> {
        let books = self.books();
        let mut chains: Vec<(ChainWithTrades, bool)> = books
            .chains
            .values()
            .filter(|c| c.user_id == user_id)
            .map(|c| {
                let chain = ChainWithTrades {
                    id: c.id,
                    status: c.status,
                    created_at: c.created_at,
                    trades: Vec::new(),
                };
                (chain, false)
            })
            .collect();
        let index: HashMap<i64, usize> = chains
            .iter()
            .enumerate()
            .map(|(at, (c, _))| (c.id, at))
            .collect();
        let mut trades: Vec<&Trade> = books
            .trades
            .iter()
            .filter(|t| t.user_id == user_id && t.chain_id.is_some())
            .collect();
        trades.sort_by_key(|t| (t.created_at, t.id));
        for trade in trades {
            let Some(&at) = trade.chain_id.and_then(|id| index.get(&id)) else {
                continue;
            };
            if trade.venue != Some(venue) {
                chains[at].1 = true;
                continue;
            }
            chains[at].0.trades.push(ChainTrade {
                id: trade.id,
                status: trade.status,
                pnl: trade.pnl,
                created_at: trade.created_at,
            });
        }
        let mut kept: Vec<ChainWithTrades> = chains
            .into_iter()
            .filter(|(c, elsewhere)| !elsewhere || !c.trades.is_empty())
            .map(|(c, _)| c)
            .collect();
        kept.sort_by_key(|c| {
            (
                c.trades.first().map_or(c.created_at, |t| t.created_at),
                c.id,
            )
        });
        kept
    }
}

/// Closed trades of the user in `[from_ms, to_ms)` by close time, ordered by it and id.
fn closed_between(
    books: &Books,
    user_id: i64,
    venue: Option<AccountVenue>,
    from_ms: i64,
    to_ms: i64,
) -> Vec<&Trade> {
    let mut found: Vec<&Trade> = books
        .trades
        .iter()
        .filter(|t| {
            t.user_id == user_id
                && t.status == TradeStatus::Closed
                && t.closed_at.is_some_and(|c| c >= from_ms && c < to_ms)
                && venue.is_none_or(|v| t.venue == Some(v))
        })
        .collect();
    found.sort_by_key(|t| (t.closed_at, t.id));
    found
}

#[async_trait]
impl Ledger for MemoryLedger {
    async fn settings_or_default(
        &self,
        user_id: i64,
        _now_ms: i64,
    ) -> Result<SettingsRecord, StoreError> {
        if user_id != self.settings.user_id {
            return Err(StoreError::NotFound);
        }
        Ok(self.settings.clone())
    }

    async fn insert_trade(&self, trade: &Trade) -> Result<Trade, StoreError> {
        let mut books = self.books();
        if !books.order_ids.insert(trade.client_order_id.clone()) {
            return Err(StoreError::Conflict(format!(
                "a trade with opening order {} exists",
                trade.client_order_id
            )));
        }
        let stored = Trade {
            id: books.trades.len() as i64 + 1,
            ..trade.clone()
        };
        books.trades.push(stored.clone());
        Ok(stored)
    }

    async fn save_trade(&self, trade: &Trade) -> Result<(), StoreError> {
        update_trade(&mut self.books(), trade)
    }

    async fn book_execution(
        &self,
        trade: &Trade,
        venue_id: &str,
        _notional: Decimal,
        _at_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut books = self.books();
        if books.executions.contains(venue_id) {
            return Ok(false);
        }
        update_trade(&mut books, trade)?;
        books.executions.insert(venue_id.to_string());
        books
            .by_trade
            .entry(trade.id)
            .or_default()
            .push(venue_id.to_string());
        Ok(true)
    }

    async fn book_funding(
        &self,
        trade: &Trade,
        funding_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        self.book_execution(
            trade,
            &format!("funding:{funding_id}"),
            Decimal::ZERO,
            at_ms,
        )
        .await
    }

    async fn funding_trade(
        &self,
        user_id: i64,
        venue: AccountVenue,
        symbol: &str,
        position_id: &str,
        at_ms: i64,
    ) -> Result<Option<Trade>, StoreError> {
        let books = self.books();
        let found = books
            .trades
            .iter()
            .filter(|t| {
                t.user_id == user_id
                    && t.symbol == symbol
                    && t.venue == Some(venue)
                    && t.opened_at.is_some_and(|o| o <= at_ms)
                    && matches!(t.status, TradeStatus::Open | TradeStatus::Closed)
                    && (position_id.is_empty() || t.client_order_id == position_id)
            })
            .max_by_key(|t| (t.opened_at, t.id));
        Ok(found.cloned())
    }

    async fn trade(&self, user_id: i64, id: i64) -> Result<Option<Trade>, StoreError> {
        let books = self.books();
        Ok(usize::try_from(id - 1)
            .ok()
            .and_then(|at| books.trades.get(at))
            .filter(|t| t.user_id == user_id)
            .cloned())
    }

    async fn active_trades(&self, user_id: i64) -> Result<Vec<Trade>, StoreError> {
        Ok(self
            .books()
            .trades
            .iter()
            .filter(|t| {
                t.user_id == user_id && matches!(t.status, TradeStatus::Pending | TradeStatus::Open)
            })
            .cloned()
            .collect())
    }

    async fn booked_executions(
        &self,
        _user_id: i64,
        trade_id: i64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(self
            .books()
            .by_trade
            .get(&trade_id)
            .cloned()
            .unwrap_or_default())
    }

    async fn insert_chain(&self, chain: &Chain) -> Result<Chain, StoreError> {
        let mut books = self.books();
        books.last_chain += 1;
        let stored = Chain {
            id: books.last_chain,
            ..chain.clone()
        };
        books.chains.insert(stored.id, stored.clone());
        Ok(stored)
    }

    async fn save_chain(&self, chain: &Chain) -> Result<(), StoreError> {
        let mut books = self.books();
        if let Some(kept) = books
            .chains
            .get_mut(&chain.id)
            .filter(|c| c.user_id == chain.user_id)
        {
            // The columns the store's UPDATE writes.
            kept.status = chain.status;
            kept.step = chain.step;
            kept.side = chain.side;
            kept.won = chain.won;
            kept.closed_at = chain.closed_at;
        }
        Ok(())
    }

    async fn open_chains(&self, user_id: i64) -> Result<Vec<Chain>, StoreError> {
        Ok(self
            .books()
            .chains
            .values()
            .filter(|c| c.user_id == user_id && c.status == ChainStatus::Open)
            .cloned()
            .collect())
    }

    async fn delete_chain(&self, user_id: i64, id: i64) -> Result<(), StoreError> {
        let mut books = self.books();
        if books.chains.get(&id).is_some_and(|c| c.user_id == user_id) {
            books.chains.remove(&id);
        }
        Ok(())
    }

    async fn closed_pnls_between(
        &self,
        user_id: i64,
        venue: Option<AccountVenue>,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Decimal>, StoreError> {
        let books = self.books();
        Ok(closed_between(&books, user_id, venue, from_ms, to_ms)
            .into_iter()
            .map(|t| t.pnl)
            .collect())
    }

    async fn recent_closed_results(
        &self,
        user_id: i64,
        venue: AccountVenue,
        before_ms: i64,
        limit: i64,
    ) -> Result<Vec<(Decimal, i64)>, StoreError> {
        let books = self.books();
        let mut found = closed_between(&books, user_id, Some(venue), i64::MIN, before_ms);
        found.reverse();
        Ok(found
            .into_iter()
            .take(usize::try_from(limit).unwrap_or(0))
            .filter_map(|t| Some((t.pnl, t.closed_at?)))
            .collect())
    }

    async fn closed_money_between(
        &self,
        user_id: i64,
        venue: AccountVenue,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<(Vec<Decimal>, Decimal), StoreError> {
        let books = self.books();
        let closed = closed_between(&books, user_id, Some(venue), from_ms, to_ms);
        let funding = closed.iter().map(|t| t.funding).sum();
        Ok((closed.into_iter().map(|t| t.pnl).collect(), funding))
    }
}

/// Writes the fields the store's UPDATE of a trade writes (those an execution or a stop
/// changes); the rest stay as inserted.
fn update_trade(books: &mut Books, t: &Trade) -> Result<(), StoreError> {
    let kept = usize::try_from(t.id - 1)
        .ok()
        .and_then(|at| books.trades.get_mut(at))
        .filter(|kept| kept.user_id == t.user_id)
        .ok_or(StoreError::NotFound)?;
    kept.status = t.status;
    kept.margin = t.margin;
    kept.qty = t.qty;
    kept.open_qty = t.open_qty;
    kept.entry_price = t.entry_price;
    kept.exit_price = t.exit_price;
    kept.closed_qty = t.closed_qty;
    kept.exit_value = t.exit_value;
    kept.pnl = t.pnl;
    kept.fees = t.fees;
    kept.volume = t.volume;
    kept.stop_loss = t.stop_loss;
    kept.tp_step = t.tp_step;
    kept.close_reason.clone_from(&t.close_reason);
    kept.opened_at = t.opened_at;
    kept.closed_at = t.closed_at;
    kept.funding = t.funding;
    Ok(())
}
