//! What the trading worker reads and writes in its books: its settings, trades, executions
//! and martingale chains. The live books are the [`Store`] (each call a statement on the
//! database, every execution durable before the worker acts on it); a backtest may keep the
//! same books in memory (`signaldesk_backtest::books::MemoryLedger`), with the same types
//! and answers, so the worker's rules are the same code in both (docs/backtesting.md, "Fast
//! without a second set of rules").

use async_trait::async_trait;
use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_store::{Chain, SettingsRecord, Store, StoreError, Trade};

/// The worker's books. Each method answers as the [`Store`] method of the same name does.
#[async_trait]
pub trait Ledger: Send + Sync {
    async fn settings_or_default(
        &self,
        user_id: i64,
        now_ms: i64,
    ) -> Result<SettingsRecord, StoreError>;
    async fn insert_trade(&self, trade: &Trade) -> Result<Trade, StoreError>;
    async fn save_trade(&self, trade: &Trade) -> Result<(), StoreError>;
    async fn book_execution(
        &self,
        trade: &Trade,
        venue_id: &str,
        notional: Decimal,
        at_ms: i64,
    ) -> Result<bool, StoreError>;
    async fn book_funding(
        &self,
        trade: &Trade,
        funding_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError>;
    async fn funding_trade(
        &self,
        user_id: i64,
        venue: AccountVenue,
        symbol: &str,
        position_id: &str,
        at_ms: i64,
    ) -> Result<Option<Trade>, StoreError>;
    async fn trade(&self, user_id: i64, id: i64) -> Result<Option<Trade>, StoreError>;
    async fn active_trades(&self, user_id: i64) -> Result<Vec<Trade>, StoreError>;
    async fn booked_executions(
        &self,
        user_id: i64,
        trade_id: i64,
    ) -> Result<Vec<String>, StoreError>;
    async fn insert_chain(&self, chain: &Chain) -> Result<Chain, StoreError>;
    async fn save_chain(&self, chain: &Chain) -> Result<(), StoreError>;
    async fn open_chains(&self, user_id: i64) -> Result<Vec<Chain>, StoreError>;
    async fn delete_chain(&self, user_id: i64, id: i64) -> Result<(), StoreError>;
    async fn closed_pnls_between(
        &self,
        user_id: i64,
        venue: Option<AccountVenue>,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Decimal>, StoreError>;
    async fn recent_closed_results(
        &self,
        user_id: i64,
        venue: AccountVenue,
        before_ms: i64,
        limit: i64,
    ) -> Result<Vec<(Decimal, i64)>, StoreError>;
    async fn closed_money_between(
        &self,
        user_id: i64,
        venue: AccountVenue,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<(Vec<Decimal>, Decimal), StoreError>;
}

#[async_trait]
impl Ledger for Store {
    async fn settings_or_default(
        &self,
        user_id: i64,
        now_ms: i64,
    ) -> Result<SettingsRecord, StoreError> {
        Store::settings_or_default(self, user_id, now_ms).await
    }
    async fn insert_trade(&self, trade: &Trade) -> Result<Trade, StoreError> {
        Store::insert_trade(self, trade).await
    }
    async fn save_trade(&self, trade: &Trade) -> Result<(), StoreError> {
        Store::save_trade(self, trade).await
    }
    async fn book_execution(
        &self,
        trade: &Trade,
        venue_id: &str,
        notional: Decimal,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        Store::book_execution(self, trade, venue_id, notional, at_ms).await
    }
    async fn book_funding(
        &self,
        trade: &Trade,
        funding_id: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        Store::book_funding(self, trade, funding_id, at_ms).await
    }
    async fn funding_trade(
        &self,
        user_id: i64,
        venue: AccountVenue,
        symbol: &str,
        position_id: &str,
        at_ms: i64,
    ) -> Result<Option<Trade>, StoreError> {
        Store::funding_trade(self, user_id, venue, symbol, position_id, at_ms).await
    }
    async fn trade(&self, user_id: i64, id: i64) -> Result<Option<Trade>, StoreError> {
        Store::trade(self, user_id, id).await
    }
    async fn active_trades(&self, user_id: i64) -> Result<Vec<Trade>, StoreError> {
        Store::active_trades(self, user_id).await
    }
    async fn booked_executions(
        &self,
        user_id: i64,
        trade_id: i64,
    ) -> Result<Vec<String>, StoreError> {
        Store::booked_executions(self, user_id, trade_id).await
    }
    async fn insert_chain(&self, chain: &Chain) -> Result<Chain, StoreError> {
        Store::insert_chain(self, chain).await
    }
    async fn save_chain(&self, chain: &Chain) -> Result<(), StoreError> {
        Store::save_chain(self, chain).await
    }
    async fn open_chains(&self, user_id: i64) -> Result<Vec<Chain>, StoreError> {
        Store::open_chains(self, user_id).await
    }
    async fn delete_chain(&self, user_id: i64, id: i64) -> Result<(), StoreError> {
        Store::delete_chain(self, user_id, id).await
    }
    async fn closed_pnls_between(
        &self,
        user_id: i64,
        venue: Option<AccountVenue>,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Decimal>, StoreError> {
        Store::closed_pnls_between(self, user_id, venue, from_ms, to_ms).await
    }
    async fn recent_closed_results(
        &self,
        user_id: i64,
        venue: AccountVenue,
        before_ms: i64,
        limit: i64,
    ) -> Result<Vec<(Decimal, i64)>, StoreError> {
        Store::recent_closed_results(self, user_id, venue, before_ms, limit).await
    }
    async fn closed_money_between(
        &self,
        user_id: i64,
        venue: AccountVenue,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<(Vec<Decimal>, Decimal), StoreError> {
        Store::closed_money_between(self, user_id, venue, from_ms, to_ms).await
    }
}
