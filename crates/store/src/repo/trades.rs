//! The bot's trades and martingale chains. Decimals are stored as their exact strings.

use std::str::FromStr;

use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;
use sqlx::Any;
use sqlx::Row;

use crate::{Store, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TradeStatus {
    /// The opening order was sent; its fill is not recorded yet.
    Pending,
    Open,
    Closed,
    /// The opening order never filled.
    Cancelled,
}

impl TradeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TradeStatus::Pending => "PENDING",
            TradeStatus::Open => "OPEN",
            TradeStatus::Closed => "CLOSED",
            TradeStatus::Cancelled => "CANCELLED",
        }
    }

    pub fn parse(s: &str) -> Option<TradeStatus> {
        match s {
            "PENDING" => Some(TradeStatus::Pending),
            "OPEN" => Some(TradeStatus::Open),
            "CLOSED" => Some(TradeStatus::Closed),
            "CANCELLED" => Some(TradeStatus::Cancelled),
            _ => None,
        }
    }
}

pub fn side_str(side: PositionSide) -> &'static str {
    match side {
        PositionSide::Long => "long",
        PositionSide::Short => "short",
    }
}

fn parse_side(s: &str) -> Result<PositionSide, StoreError> {
    match s {
        "long" => Ok(PositionSide::Long),
        "short" => Ok(PositionSide::Short),
        other => Err(StoreError::Corrupt(format!("trade side {other}"))),
    }
}

/// The opening order id of every imported trade starts with this: history from before the
/// account's venue records, which no venue can confirm.
pub const IMPORTED_ORDER_PREFIX: &str = "imp-";

#[derive(Debug, Clone, PartialEq)]
pub struct Trade {
    pub id: i64,
    pub user_id: i64,
    pub symbol: String,
    pub side: PositionSide,
    pub status: TradeStatus,
    pub client_order_id: String,
    pub leverage: u32,
    /// Margin asked for when opening; after the fill, the margin held.
    pub margin: Decimal,
    /// Quantity filled when opening.
    pub qty: Decimal,
    /// Quantity still open.
    pub open_qty: Decimal,
    pub entry_price: Option<Decimal>,
    /// Average exit price of what has been closed.
    pub exit_price: Option<Decimal>,
    pub closed_qty: Decimal,
    /// Sum of exit price x quantity of every close.
    pub exit_value: Decimal,
    /// Realized pnl net of fees and funding.
    pub pnl: Decimal,
    pub fees: Decimal,
    /// Funding settled on the position while it was open, signed: received is positive,
    /// paid is negative. Already counted in `pnl`.
    pub funding: Decimal,
    /// Notional of every fill of the trade.
    pub volume: Decimal,
    /// The stop loss now on the venue.
    pub stop_loss: Option<Decimal>,
    /// Take profits taken so far.
    pub tp_step: u32,
    /// stop_loss, take_profit, trailing, manual, liquidation (or reconciled).
    pub close_reason: Option<String>,
    pub chain_id: Option<i64>,
    pub chain_step: Option<u32>,
    /// The signal that opened it, its time and the price then.
    pub signal_id: Option<i64>,
    pub signal_at: Option<i64>,
    pub signal_price: Option<Decimal>,
    pub created_at: i64,
    pub opened_at: Option<i64>,
    pub closed_at: Option<i64>,
    /// The account it was made on; `None` for trades from before venues were recorded.
    pub venue: Option<AccountVenue>,
}

pub(crate) const COLUMNS: &str =
    "id, user_id, symbol, side, status, client_order_id, leverage, margin, qty, \
    open_qty, entry_price, exit_price, closed_qty, exit_value, pnl, fees, volume, stop_loss, \
    tp_step, close_reason, chain_id, chain_step, signal_id, signal_at, signal_price, \
    created_at, opened_at, closed_at, venue, funding";

pub(crate) fn decimal(row: &AnyRow, column: &str) -> Result<Decimal, StoreError> {
    let text: String = row.try_get(column)?;
    Decimal::from_str(&text).map_err(|e| StoreError::Corrupt(format!("{column} {text}: {e}")))
}

fn optional_decimal(row: &AnyRow, column: &str) -> Result<Option<Decimal>, StoreError> {
    let text: Option<String> = row.try_get(column)?;
    text.map(|t| {
        Decimal::from_str(&t).map_err(|e| StoreError::Corrupt(format!("{column} {t}: {e}")))
    })
    .transpose()
}

fn small(row: &AnyRow, column: &str) -> Result<u32, StoreError> {
    let v: i64 = row.try_get(column)?;
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{column} {v}")))
}

pub(crate) fn trade_from_row(row: &AnyRow) -> Result<Trade, StoreError> {
    let status: String = row.try_get("status")?;
    let side: String = row.try_get("side")?;
    let chain_step: Option<i64> = row.try_get("chain_step")?;
    Ok(Trade {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        symbol: row.try_get("symbol")?,
        side: parse_side(&side)?,
        status: TradeStatus::parse(&status)
            .ok_or_else(|| StoreError::Corrupt(format!("trade status {status}")))?,
        client_order_id: row.try_get("client_order_id")?,
        leverage: small(row, "leverage")?,
        margin: decimal(row, "margin")?,
        qty: decimal(row, "qty")?,
        open_qty: decimal(row, "open_qty")?,
        entry_price: optional_decimal(row, "entry_price")?,
        exit_price: optional_decimal(row, "exit_price")?,
        closed_qty: decimal(row, "closed_qty")?,
        exit_value: decimal(row, "exit_value")?,
        pnl: decimal(row, "pnl")?,
        fees: decimal(row, "fees")?,
        funding: decimal(row, "funding")?,
        volume: decimal(row, "volume")?,
        stop_loss: optional_decimal(row, "stop_loss")?,
        tp_step: small(row, "tp_step")?,
        close_reason: row.try_get("close_reason")?,
        chain_id: row.try_get("chain_id")?,
        chain_step: chain_step.map(|s| s as u32),
        signal_id: row.try_get("signal_id")?,
        signal_at: row.try_get("signal_at")?,
        signal_price: optional_decimal(row, "signal_price")?,
        created_at: row.try_get("created_at")?,
        opened_at: row.try_get("opened_at")?,
        closed_at: row.try_get("closed_at")?,
        venue: row
            .try_get::<Option<String>, _>("venue")?
            .map(|text| {
                AccountVenue::parse(&text)
                    .ok_or_else(|| StoreError::Corrupt(format!("trade venue {text}")))
            })
            .transpose()?,
    })
}

/// Filters of the trade list.
#[derive(Debug, Clone, Default)]
pub struct TradeQuery {
    pub status: Option<TradeStatus>,
    pub symbol: Option<String>,
    /// Created at or after (Unix ms).
    pub from: Option<i64>,
    /// Created before (Unix ms).
    pub to: Option<i64>,
    pub offset: i64,
    pub limit: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainStatus {
    Open,
    Closed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub id: i64,
    pub user_id: i64,
    pub symbol: String,
    pub status: ChainStatus,
    /// The step of the newest trade (1 is the first).
    pub step: u32,
    /// The newest trade's direction.
    pub side: PositionSide,
    /// Some(true) won, Some(false) lost, None while open.
    pub won: Option<bool>,
    pub created_at: i64,
    pub closed_at: Option<i64>,
}

const CHAIN_COLUMNS: &str =
    "id, user_id, symbol, status, step, side, result, created_at, closed_at";

/// The columns a new chain is written with, in [`chain_values`]' order.
pub(crate) const INSERTED_CHAIN_COLUMNS: &str =
    "user_id, symbol, status, step, side, result, created_at, closed_at";

/// A new chain's values in [`INSERTED_CHAIN_COLUMNS`]' order, as `user_id`'s.
pub(crate) fn chain_values(c: &Chain, user_id: i64) -> [Value<'_>; 8] {
    [
        Value::Int(Some(user_id)),
        Value::Text(Some(c.symbol.as_str())),
        Value::Text(Some(chain_status_str(c.status))),
        Value::Int(Some(i64::from(c.step))),
        Value::Text(Some(side_str(c.side))),
        Value::Text(c.won.map(|w| if w { "won" } else { "lost" })),
        Value::Int(Some(c.created_at)),
        Value::Int(c.closed_at),
    ]
}

fn chain_from_row(row: &AnyRow) -> Result<Chain, StoreError> {
    let status: String = row.try_get("status")?;
    let side: String = row.try_get("side")?;
    let result: Option<String> = row.try_get("result")?;
    Ok(Chain {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        symbol: row.try_get("symbol")?,
        status: match status.as_str() {
            "OPEN" => ChainStatus::Open,
            "CLOSED" => ChainStatus::Closed,
            other => return Err(StoreError::Corrupt(format!("chain status {other}"))),
        },
        step: small(row, "step")?,
        side: parse_side(&side)?,
        won: result.map(|r| r == "won"),
        created_at: row.try_get("created_at")?,
        closed_at: row.try_get("closed_at")?,
    })
}

pub(crate) fn chain_status_str(status: ChainStatus) -> &'static str {
    match status {
        ChainStatus::Open => "OPEN",
        ChainStatus::Closed => "CLOSED",
    }
}

/// The columns a new trade is written with, in [`trade_values`]' order.
pub(crate) const INSERTED_COLUMNS: &str = "user_id, symbol, side, status, client_order_id,
    leverage, margin, qty, open_qty, entry_price, exit_price, closed_qty, exit_value, pnl, fees,
    volume, stop_loss, tp_step, close_reason, chain_id, chain_step, signal_id, signal_at,
    signal_price, created_at, opened_at, closed_at, venue, funding";
/// How many values [`trade_values`] gives.
pub(crate) const INSERTED_COLUMN_COUNT: usize = 29;

/// A trade's decimal values as the text the database stores, in [`INSERTED_COLUMNS`]'
/// order. [`bind_trade`] binds them as slices of these: sqlx's `Any` copies every bound
/// `String` once more, which a bulk import of 100,000 trades (1.2 million values) notices.
pub(crate) struct TradeDecimals([Option<String>; 13]);

impl TradeDecimals {
    pub(crate) fn of(t: &Trade) -> TradeDecimals {
        let text = |d: Decimal| Some(d.to_string());
        TradeDecimals([
            text(t.margin),
            text(t.qty),
            text(t.open_qty),
            t.entry_price.and_then(text),
            t.exit_price.and_then(text),
            text(t.closed_qty),
            text(t.exit_value),
            text(t.pnl),
            text(t.fees),
            text(t.volume),
            t.stop_loss.and_then(text),
            t.signal_price.and_then(text),
            text(t.funding),
        ])
    }

    fn get(&self, i: usize) -> Option<&str> {
        self.0[i].as_deref()
    }

    /// `exit_value`'s text: the notional of the trade's closing fill.
    pub(crate) fn exit_value(&self) -> &str {
        self.get(6).unwrap_or_default()
    }
}

/// One value of a row being written, typed so that a NULL keeps its column's type.
#[derive(Clone, Copy)]
pub(crate) enum Value<'a> {
    Int(Option<i64>),
    Text(Option<&'a str>),
}

impl<'a> Value<'a> {
    pub(crate) fn bind(
        self,
        q: Query<'a, Any, AnyArguments<'a>>,
    ) -> Query<'a, Any, AnyArguments<'a>> {
        match self {
            Value::Int(v) => q.bind(v),
            Value::Text(v) => q.bind(v),
        }
    }
}

/// A new trade's values in [`INSERTED_COLUMNS`]' order (its chain and account given;
/// `decimals` are [`TradeDecimals::of`] the trade).
pub(crate) fn trade_values<'a>(
    t: &'a Trade,
    decimals: &'a TradeDecimals,
    chain_id: Option<i64>,
    venue: Option<AccountVenue>,
) -> [Value<'a>; INSERTED_COLUMN_COUNT] {
    let int = |v: i64| Value::Int(Some(v));
    let text = |v: &'a str| Value::Text(Some(v));
    let decimal = |i: usize| Value::Text(decimals.get(i));
    [
        int(t.user_id),
        text(t.symbol.as_str()),
        text(side_str(t.side)),
        text(t.status.as_str()),
        text(t.client_order_id.as_str()),
        int(i64::from(t.leverage)),
        decimal(0),
        decimal(1),
        decimal(2),
        decimal(3),
        decimal(4),
        decimal(5),
        decimal(6),
        decimal(7),
        decimal(8),
        decimal(9),
        decimal(10),
        int(i64::from(t.tp_step)),
        Value::Text(t.close_reason.as_deref()),
        Value::Int(chain_id),
        Value::Int(t.chain_step.map(i64::from)),
        Value::Int(t.signal_id),
        Value::Int(t.signal_at),
        decimal(11),
        int(t.created_at),
        Value::Int(t.opened_at),
        Value::Int(t.closed_at),
        Value::Text(venue.map(AccountVenue::as_str)),
        decimal(12),
    ]
}

/// Binds a new trade's values in [`INSERTED_COLUMNS`]' order ([`trade_values`]).
pub(crate) fn bind_trade<'q>(
    q: Query<'q, Any, AnyArguments<'q>>,
    t: &'q Trade,
    decimals: &'q TradeDecimals,
    chain_id: Option<i64>,
    venue: Option<AccountVenue>,
) -> Query<'q, Any, AnyArguments<'q>> {
    trade_values(t, decimals, chain_id, venue)
        .into_iter()
        .fold(q, |q, v| v.bind(q))
}

impl Store {
    /// Stores a new trade (its `id` is ignored) and returns it with its id.
    pub async fn insert_trade(&self, t: &Trade) -> Result<Trade, StoreError> {
        let sql = format!(
            "INSERT INTO trades ({INSERTED_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29)
             RETURNING {COLUMNS}"
        );
        let decimals = TradeDecimals::of(t);
        let row = bind_trade(sqlx::query(&sql), t, &decimals, t.chain_id, t.venue)
            .fetch_one(&self.pool)
            .await?;
        trade_from_row(&row)
    }

    /// Writes every changing field of a trade.
    pub async fn save_trade(&self, t: &Trade) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        update_trade(&mut tx, t).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Books one execution the venue names `venue_id` (an opening fill, a reduce-only order,
    /// a stop or a liquidation) together with the trade's state after it, in one transaction.
    /// Answers false, writing nothing, when that execution was booked before: a close seen
    /// again after a restart or an outage is never counted twice.
    pub async fn book_execution(
        &self,
        trade: &Trade,
        venue_id: &str,
        notional: Decimal,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO fills (user_id, trade_id, notional, filled_at, venue_id)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
        )
        .bind(trade.user_id)
        .bind(trade.id)
        .bind(notional.to_string())
        .bind(at_ms)
        .bind(venue_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            tx.rollback().await?;
            return Ok(false);
        }
        update_trade(&mut tx, trade).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Books one funding settlement the venue names `funding_id` on `trade` (the caller has
    /// added it to `funding` and `pnl`), once: false, writing nothing, when it was booked
    /// before. It is kept among the trade's executions with no notional, so volumes are
    /// unchanged.
    pub async fn book_funding(
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

    /// The trade a funding settlement at `at_ms` on `symbol` belongs to: the one whose
    /// opening order is `position_id` when the venue names it (paper), else the latest of the
    /// user's trades on that symbol and venue opened at or before `at_ms` (Bybit names only
    /// the symbol; a one-way account holds one position per symbol, and only a held position
    /// is settled, so that trade's position is the one that paid).
    pub async fn funding_trade(
        &self,
        user_id: i64,
        venue: AccountVenue,
        symbol: &str,
        position_id: &str,
        at_ms: i64,
    ) -> Result<Option<Trade>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM trades
             WHERE user_id = $1 AND symbol = $2 AND venue = $3 AND opened_at IS NOT NULL
               AND opened_at <= $4 AND status IN ('OPEN', 'CLOSED')
               AND ($5 = '' OR client_order_id = $5)
             ORDER BY opened_at DESC, id DESC LIMIT 1"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(symbol)
            .bind(venue.as_str())
            .bind(at_ms)
            .bind(position_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(trade_from_row).transpose()
    }

    /// The venue ids of the executions booked on a trade.
    pub async fn booked_executions(
        &self,
        user_id: i64,
        trade_id: i64,
    ) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT venue_id FROM fills
             WHERE user_id = $1 AND trade_id = $2 AND venue_id IS NOT NULL ORDER BY id",
        )
        .bind(user_id)
        .bind(trade_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| r.try_get("venue_id").map_err(StoreError::from))
            .collect()
    }

    pub async fn trade(&self, user_id: i64, id: i64) -> Result<Option<Trade>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM trades WHERE id = $1 AND user_id = $2");
        let row = sqlx::query(&sql)
            .bind(id)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(trade_from_row).transpose()
    }

    /// Whether a trade with this opening order id exists (order ids are unique across users).
    pub async fn trade_exists(&self, client_order_id: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM trades WHERE client_order_id = $1")
            .bind(client_order_id)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<i64, _>("n")? > 0)
    }

    /// PENDING and OPEN trades, oldest first.
    pub async fn active_trades(&self, user_id: i64) -> Result<Vec<Trade>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM trades WHERE user_id = $1 AND status IN ('PENDING', 'OPEN')
             ORDER BY id"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(trade_from_row).collect()
    }

    /// Every trade of the user, oldest first.
    pub async fn all_trades(&self, user_id: i64) -> Result<Vec<Trade>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM trades WHERE user_id = $1 ORDER BY id");
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(trade_from_row).collect()
    }

    pub async fn count_open_trades(&self, user_id: i64) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM trades WHERE user_id = $1 AND status IN ('PENDING', 'OPEN')",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("n")?)
    }

    /// A page of the user's trades, newest first, and how many match in all.
    pub async fn trades_page(
        &self,
        user_id: i64,
        q: &TradeQuery,
    ) -> Result<(Vec<Trade>, i64), StoreError> {
        let filter = "user_id = $1
             AND ($2 IS NULL OR status = $2)
             AND ($3 IS NULL OR symbol = $3)
             AND ($4 IS NULL OR created_at >= $4)
             AND ($5 IS NULL OR created_at < $5)";
        let status = q.status.map(|s| s.as_str().to_string());
        let count_sql = format!("SELECT COUNT(*) AS n FROM trades WHERE {filter}");
        let total: i64 = sqlx::query(&count_sql)
            .bind(user_id)
            .bind(status.clone())
            .bind(q.symbol.clone())
            .bind(q.from)
            .bind(q.to)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?;
        let sql = format!(
            "SELECT {COLUMNS} FROM trades WHERE {filter} ORDER BY id DESC LIMIT $6 OFFSET $7"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(status)
            .bind(q.symbol.clone())
            .bind(q.from)
            .bind(q.to)
            .bind(q.limit)
            .bind(q.offset)
            .fetch_all(&self.pool)
            .await?;
        let trades = rows.iter().map(trade_from_row).collect::<Result<_, _>>()?;
        Ok((trades, total))
    }

    /// The pnl of the user's trades closed in `[from_ms, to_ms)` on account `venue` (the
    /// statistics, which follow the account), or on every account with None (the daily loss
    /// breaker).
    pub async fn closed_pnls_between(
        &self,
        user_id: i64,
        venue: Option<AccountVenue>,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Decimal>, StoreError> {
        let rows = sqlx::query(
            "SELECT pnl FROM trades WHERE user_id = $1 AND status = 'CLOSED'
                 AND closed_at >= $2 AND closed_at < $3 AND ($4 = '' OR venue = $4)
             ORDER BY closed_at, id",
        )
        .bind(user_id)
        .bind(from_ms)
        .bind(to_ms)
        .bind(venue.map_or("", AccountVenue::as_str))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| decimal(r, "pnl")).collect()
    }

    /// The pnl and close time of the user's `limit` most recent trades on account `venue`
    /// closed before `before_ms`, newest first (the losses-in-a-row circuit breaker reads them).
    pub async fn recent_closed_results(
        &self,
        user_id: i64,
        venue: AccountVenue,
        before_ms: i64,
        limit: i64,
    ) -> Result<Vec<(Decimal, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT pnl, closed_at FROM trades WHERE user_id = $1 AND status = 'CLOSED'
                 AND closed_at < $2 AND venue = $4 ORDER BY closed_at DESC, id DESC LIMIT $3",
        )
        .bind(user_id)
        .bind(before_ms)
        .bind(limit)
        .bind(venue.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((decimal(r, "pnl")?, r.try_get::<i64, _>("closed_at")?)))
            .collect()
    }

    /// The pnl of each of the user's trades closed in `[from_ms, to_ms)` on account `venue`,
    /// and the sum of their funding (a part of that pnl).
    pub async fn closed_money_between(
        &self,
        user_id: i64,
        venue: AccountVenue,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<(Vec<Decimal>, Decimal), StoreError> {
        let rows = sqlx::query(
            "SELECT pnl, funding FROM trades WHERE user_id = $1 AND venue = $4
                 AND status = 'CLOSED' AND closed_at >= $2 AND closed_at < $3
             ORDER BY closed_at, id",
        )
        .bind(user_id)
        .bind(from_ms)
        .bind(to_ms)
        .bind(venue.as_str())
        .fetch_all(&self.pool)
        .await?;
        let mut pnls = Vec::with_capacity(rows.len());
        let mut funding = Decimal::ZERO;
        for row in &rows {
            pnls.push(decimal(row, "pnl")?);
            funding += decimal(row, "funding")?;
        }
        Ok((pnls, funding))
    }

    pub async fn insert_chain(&self, c: &Chain) -> Result<Chain, StoreError> {
        let sql = format!(
            "INSERT INTO martingale_chains ({INSERTED_CHAIN_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {CHAIN_COLUMNS}"
        );
        let row = chain_values(c, c.user_id)
            .into_iter()
            .fold(sqlx::query(&sql), |q, v| v.bind(q))
            .fetch_one(&self.pool)
            .await?;
        chain_from_row(&row)
    }

    pub async fn save_chain(&self, c: &Chain) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE martingale_chains SET status = $1, step = $2, side = $3, result = $4,
                 closed_at = $5 WHERE id = $6 AND user_id = $7",
        )
        .bind(chain_status_str(c.status))
        .bind(i64::from(c.step))
        .bind(side_str(c.side))
        .bind(c.won.map(|w| if w { "won" } else { "lost" }))
        .bind(c.closed_at)
        .bind(c.id)
        .bind(c.user_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The user's OPEN chains, oldest first.
    pub async fn open_chains(&self, user_id: i64) -> Result<Vec<Chain>, StoreError> {
        let sql = format!(
            "SELECT {CHAIN_COLUMNS} FROM martingale_chains WHERE user_id = $1 AND status = 'OPEN'
             ORDER BY id"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(chain_from_row).collect()
    }

    /// Removes a chain whose first order never filled.
    pub async fn delete_chain(&self, user_id: i64, id: i64) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM martingale_chains WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Writes every changing field of a trade inside the transaction `conn`, and, when that
/// closes it, the user's running figures with it.
async fn update_trade(conn: &mut sqlx::AnyConnection, t: &Trade) -> Result<(), StoreError> {
    let done = sqlx::query(
        "UPDATE trades SET status = $1, margin = $2, qty = $3, open_qty = $4,
                 entry_price = $5, exit_price = $6, closed_qty = $7, exit_value = $8, pnl = $9,
                 fees = $10, volume = $11, stop_loss = $12, tp_step = $13, close_reason = $14,
                 opened_at = $15, closed_at = $16, funding = $17
             WHERE id = $18 AND user_id = $19",
    )
    .bind(t.status.as_str())
    .bind(t.margin.to_string())
    .bind(t.qty.to_string())
    .bind(t.open_qty.to_string())
    .bind(t.entry_price.map(|d| d.to_string()))
    .bind(t.exit_price.map(|d| d.to_string()))
    .bind(t.closed_qty.to_string())
    .bind(t.exit_value.to_string())
    .bind(t.pnl.to_string())
    .bind(t.fees.to_string())
    .bind(t.volume.to_string())
    .bind(t.stop_loss.map(|d| d.to_string()))
    .bind(i64::from(t.tp_step))
    .bind(t.close_reason.clone())
    .bind(t.opened_at)
    .bind(t.closed_at)
    .bind(t.funding.to_string())
    .bind(t.id)
    .bind(t.user_id)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound);
    }
    crate::repo::running::advance(conn, t).await
}
