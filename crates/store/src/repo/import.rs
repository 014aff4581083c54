//! A whole trading history written at once (`signaldesk history import`): chains, closed
//! trades with their two fills each, and balance snapshots, in one transaction (multi-row
//! INSERTs on SQLite, COPY on PostgreSQL), all on one account of the user (statistics follow
//! the account, docs/accounts.md). The rollup's and the running count's triggers follow every
//! row; the running live statistics are rebuilt right after the commit, so the first read
//! after an import is as fast as any other.

mod copy;

use std::collections::{BTreeMap, HashMap, HashSet};

use signaldesk_core::account::AccountVenue;
use sqlx::any::AnyArguments;
use sqlx::query::Query;
use sqlx::{Any, Arguments, Row};

use crate::repo::dashboard::{BalanceSnapshot, SNAPSHOT_UPSERT};
use crate::repo::trades::{
    bind_trade, chain_values, Chain, Trade, TradeDecimals, INSERTED_CHAIN_COLUMNS,
    INSERTED_COLUMNS, INSERTED_COLUMN_COUNT,
};
use crate::{Store, StoreError};

/// Trades per INSERT on SQLite: 1,000 trades (29,000 values) stays under its limit of
/// 32,766 values per statement.
const TRADES_PER_INSERT: usize = 1_000;
/// Rows per INSERT of chains and snapshots on SQLite, and order ids per lookup. A chunk of
/// trades' fills (at most two a trade, 4 values each) is one INSERT of its own.
const ROWS_PER_INSERT: usize = 2_000;

/// How values are written in a statement. sqlx's SQLite driver looks every named value
/// (`$n`) up through the statement's list of names (`sqlite3_bind_parameter_name`), so a
/// statement of `$n` costs the square of its values (13,500 of them made an import of
/// 100,000 trades take a minute); plain `?` values have no names and bind in order.
#[derive(Clone, Copy)]
pub(crate) enum Marks {
    /// `$1, $2, …` (PostgreSQL)
    Numbered,
    /// `?, ?, …` (SQLite)
    Plain,
}

impl Marks {
    pub(crate) fn of(store: &Store) -> Marks {
        match store.backend() {
            crate::Backend::Sqlite => Marks::Plain,
            crate::Backend::Postgres => Marks::Numbered,
        }
    }

    fn push(self, sql: &mut String, n: usize) {
        use std::fmt::Write;
        match self {
            // Writing to a String cannot fail.
            Marks::Numbered => drop(write!(sql, "${n}")),
            Marks::Plain => sql.push('?'),
        }
    }

    /// `count` values from `$1`, comma-separated.
    fn list(self, count: usize) -> String {
        let mut sql = String::with_capacity(count * 6);
        for n in 1..=count {
            if n > 1 {
                sql.push_str(", ");
            }
            self.push(&mut sql, n);
        }
        sql
    }
}

/// `INSERT INTO table (columns) VALUES ($1, .., $k), (..)` for `rows` rows of `width` values.
pub(crate) fn multi_row_insert(marks: Marks, head: &str, width: usize, rows: usize) -> String {
    let mut sql = String::with_capacity(head.len() + rows * width * 6);
    sql.push_str(head);
    sql.push_str(" VALUES ");
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 0..width {
            if c > 0 {
                sql.push_str(", ");
            }
            marks.push(&mut sql, r * width + c + 1);
        }
        sql.push(')');
    }
    sql
}

/// The multi-row INSERTs of one table, each written once for every row count it is used with
/// (a full chunk of 1,000 trades has 29,000 values).
struct Statements {
    marks: Marks,
    head: String,
    width: usize,
    tail: &'static str,
    by_rows: HashMap<usize, String>,
}

impl Statements {
    fn new(marks: Marks, head: &str, width: usize, tail: &'static str) -> Statements {
        Statements {
            marks,
            head: head.to_string(),
            width,
            tail,
            by_rows: HashMap::new(),
        }
    }

    /// The INSERT of `rows` rows, its values still to bind.
    fn query(&mut self, rows: usize) -> Query<'_, Any, AnyArguments<'_>> {
        let (marks, head, width, tail) = (self.marks, &self.head, self.width, self.tail);
        let sql = self
            .by_rows
            .entry(rows)
            .or_insert_with(|| multi_row_insert(marks, head, width, rows) + tail);
        let mut arguments = AnyArguments::default();
        arguments.reserve(rows * width, 0);
        sqlx::query_with(sql, arguments)
    }
}

/// A history as [`Store::import_history`] writes it.
struct History<'a> {
    user_id: i64,
    venue: AccountVenue,
    chains: &'a [Chain],
    /// In the order their ids are to follow.
    trades: Vec<&'a (Trade, Option<usize>)>,
    /// Of distinct instants.
    snapshots: Vec<&'a BalanceSnapshot>,
}

/// A trade's values as the text the database stores: its decimals and its opening fill's
/// notional (qty x entry price), if it opened.
struct TradeTexts {
    decimals: TradeDecimals,
    opening_notional: Option<String>,
}

impl TradeTexts {
    fn of(t: &Trade) -> TradeTexts {
        TradeTexts {
            decimals: TradeDecimals::of(t),
            opening_notional: t
                .opened_at
                .and(t.entry_price)
                .map(|price| (t.qty * price).to_string()),
        }
    }

    /// The trade's fills: the opening one (if it opened) and the closing one (if it closed),
    /// as (notional, time).
    fn fills<'a>(&'a self, t: &Trade) -> impl Iterator<Item = (&'a str, i64)> {
        let opening = self.opening_notional.as_deref().zip(t.opened_at);
        let closing = t.closed_at.map(|at| (self.decimals.exit_value(), at));
        opening.into_iter().chain(closing)
    }
}

/// The ids the database gave new trades, in the order of their `order_ids`, from what
/// their INSERT's `RETURNING id, client_order_id` answered (`(order id, id)`). Both
/// databases answer in the order of the VALUES, but neither promises it: each answer's order
/// id is checked, and answers in another order are matched by order id.
fn ids_in_order<'a>(
    order_ids: impl Iterator<Item = &'a str> + Clone,
    returned: &[(&str, i64)],
) -> Result<Vec<i64>, StoreError> {
    let in_order = order_ids.clone().count() == returned.len()
        && order_ids
            .clone()
            .zip(returned)
            .all(|(wanted, (got, _))| wanted == *got);
    if in_order {
        return Ok(returned.iter().map(|(_, id)| *id).collect());
    }
    let by_order_id: HashMap<&str, i64> = returned.iter().copied().collect();
    order_ids
        .map(|wanted| by_order_id.get(wanted).copied().ok_or(StoreError::NotFound))
        .collect()
}

impl Store {
    /// Which of `order_ids` a trade already has (order ids are unique across users).
    pub async fn existing_order_ids(
        &self,
        order_ids: &[String],
    ) -> Result<HashSet<String>, StoreError> {
        let mut found = HashSet::new();
        let marks = Marks::of(self);
        for chunk in order_ids.chunks(ROWS_PER_INSERT) {
            let sql = format!(
                "SELECT client_order_id FROM trades WHERE client_order_id IN ({})",
                marks.list(chunk.len())
            );
            let mut query = sqlx::query(&sql);
            for id in chunk {
                query = query.bind(id.as_str());
            }
            for row in query.fetch_all(&self.pool).await? {
                found.insert(row.try_get("client_order_id")?);
            }
        }
        Ok(found)
    }

    /// Writes a history for `user_id`'s account `venue` in one transaction (every trade and
    /// snapshot is of that account, whatever `venue` the trades carry): `chains` (their ids
    /// are ignored),
    /// `trades` each with the index in `chains` of its chain if any (`chain_id` is ignored),
    /// an opening fill (qty x entry price at `opened_at`) and a closing fill (`exit_value` at
    /// `closed_at`) per trade, and `snapshots` (one taken at the same instant is replaced; the
    /// last of equal instants wins). Nothing is written when any row fails. Trade ids follow
    /// the trades' open times.
    ///
    /// SQLite takes multi-row INSERTs, each of 1,000 trades followed by the one of their
    /// fills; PostgreSQL takes a COPY per table ([`copy`]).
    pub async fn import_history(
        &self,
        user_id: i64,
        venue: AccountVenue,
        chains: &[Chain],
        trades: &[(Trade, Option<usize>)],
        snapshots: &[BalanceSnapshot],
    ) -> Result<(), StoreError> {
        // Oldest first, so each index grows at its end as the live trades make it grow.
        let mut trades: Vec<&(Trade, Option<usize>)> = trades.iter().collect();
        trades.sort_by_key(|(t, _)| (t.opened_at, t.created_at));
        let snapshots: BTreeMap<i64, &BalanceSnapshot> =
            snapshots.iter().map(|s| (s.taken_at, s)).collect();
        let history = History {
            user_id,
            venue,
            chains,
            trades,
            snapshots: snapshots.into_values().collect(),
        };
        match self.backend() {
            crate::Backend::Sqlite => self.insert_history(&history).await?,
            crate::Backend::Postgres => copy::import(self, &history).await?,
        }
        // The figures now, so the first read after an import is as fast as any other. They
        // are only a copy: when this fails, the next read rebuilds them.
        let mut conn = self.pool.acquire().await?;
        if let Err(e) = crate::repo::running::rebuild(&mut conn, user_id, venue).await {
            tracing::warn!(user_id, error = %e, "the running statistics wait for their next read");
        }
        Ok(())
    }

    /// SQLite's [`Store::import_history`].
    async fn insert_history(&self, history: &History<'_>) -> Result<(), StoreError> {
        let History {
            user_id,
            venue,
            chains,
            ref trades,
            ref snapshots,
        } = *history;
        let marks = Marks::Plain;
        let mut conn = self.pool.acquire().await?;
        // SQLite's page cache (2 MB by default) cannot hold the pages a large transaction
        // dirties: it spills them to the WAL and reads them back, over a million small writes
        // and reads for 100,000 trades, most of the import's time (system time). The import's
        // connection gets room for them while it writes; the cache is filled only as needed.
        let default_cache: i64 = sqlx::query("PRAGMA cache_size")
            .fetch_one(&mut *conn)
            .await?
            .try_get(0)?;
        sqlx::query("PRAGMA cache_size = -262144")
            .execute(&mut *conn)
            .await?;
        let written: Result<(), StoreError> = async {
            use sqlx::Connection;
            // The write lock from the start, so the chain ids reserved below stay free.
            let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
            let chain_ids = reserve_chain_ids(&mut tx, chains.len()).await?;
            let chain_rows: Vec<(&Chain, i64)> =
                chains.iter().zip(chain_ids.iter().copied()).collect();
            let mut statements = Statements::new(
                marks,
                &format!("INSERT INTO martingale_chains (id, {INSERTED_CHAIN_COLUMNS})"),
                9,
                "",
            );
            for chunk in chain_rows.chunks(ROWS_PER_INSERT) {
                let mut q = statements.query(chunk.len());
                for (c, id) in chunk {
                    q = chain_values(c, user_id)
                        .into_iter()
                        .fold(q.bind(*id), |q, v| v.bind(q));
                }
                q.execute(&mut *tx).await?;
            }

            let mut trade_statements = Statements::new(
                marks,
                &format!("INSERT INTO trades ({INSERTED_COLUMNS})"),
                INSERTED_COLUMN_COUNT,
                " RETURNING id, client_order_id",
            );
            let mut fill_statements = Statements::new(
                marks,
                "INSERT INTO fills (user_id, trade_id, notional, filled_at)",
                4,
                "",
            );
            for trades in trades.chunks(TRADES_PER_INSERT) {
                let texts: Vec<TradeTexts> =
                    trades.iter().map(|(t, _)| TradeTexts::of(t)).collect();
                let mut q = trade_statements.query(trades.len());
                for ((t, chain), text) in trades.iter().zip(&texts) {
                    let chain_id = chain.and_then(|i| chain_ids.get(i).copied());
                    q = bind_trade(q, t, &text.decimals, chain_id, Some(venue));
                }
                let rows = q.fetch_all(&mut *tx).await?;
                let returned = rows
                    .iter()
                    .map(|row| Ok((row.try_get("client_order_id")?, row.try_get("id")?)))
                    .collect::<Result<Vec<(&str, i64)>, sqlx::Error>>()?;
                let order_ids = trades.iter().map(|(t, _)| t.client_order_id.as_str());
                let ids = ids_in_order(order_ids, &returned)?;

                let fills: Vec<(i64, &str, i64)> = trades
                    .iter()
                    .zip(&texts)
                    .zip(ids)
                    .flat_map(|(((t, _), text), id)| {
                        text.fills(t).map(move |(notional, at)| (id, notional, at))
                    })
                    .collect();
                if fills.is_empty() {
                    continue;
                }
                let mut q = fill_statements.query(fills.len());
                for (id, notional, at) in fills {
                    q = q.bind(user_id).bind(id).bind(notional).bind(at);
                }
                q.execute(&mut *tx).await?;
            }

            let head = "INSERT INTO balance_snapshots (user_id, taken_at, equity,
                 available_balance, margin_balance, venue)";
            let mut statements = Statements::new(marks, head, 6, SNAPSHOT_UPSERT);
            for chunk in snapshots.chunks(ROWS_PER_INSERT) {
                let mut q = statements.query(chunk.len());
                for s in chunk {
                    q = q
                        .bind(user_id)
                        .bind(s.taken_at)
                        .bind(s.equity.to_string())
                        .bind(s.available_balance.to_string())
                        .bind(s.margin_balance.to_string())
                        .bind(venue.as_str());
                }
                q.execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(())
        }
        .await;
        // The cache's own size back (the connection returns to the pool), the import's
        // failure first if both failed.
        let restored = sqlx::query(&format!("PRAGMA cache_size = {default_cache}"))
            .execute(&mut *conn)
            .await;
        written?;
        restored?;
        Ok(())
    }
}

/// `count` ids for new martingale chains, free for the SQLite transaction that holds the
/// write lock: the ones after both the largest id and the AUTOINCREMENT counter (so an id of
/// a deleted chain is never given again).
async fn reserve_chain_ids(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    count: usize,
) -> Result<Vec<i64>, StoreError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let count = i64::try_from(count)
        .map_err(|_| StoreError::Invalid("too many chains in one import".into()))?;
    let row = sqlx::query(
        "SELECT MAX(IFNULL((SELECT MAX(id) FROM martingale_chains), 0),
                    IFNULL((SELECT seq FROM sqlite_sequence
                            WHERE name = 'martingale_chains'), 0)) AS last",
    )
    .fetch_one(&mut **tx)
    .await?;
    let last: i64 = row.try_get("last")?;
    Ok((last + 1..=last + count).collect())
}

#[cfg(test)]
mod tests {
    use super::{ids_in_order, multi_row_insert, Marks};
    use crate::StoreError;

    #[test]
    fn placeholders_number_rows_then_columns() {
        assert_eq!(
            multi_row_insert(Marks::Numbered, "INSERT INTO t (a, b)", 2, 2),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"
        );
        assert_eq!(
            multi_row_insert(Marks::Plain, "INSERT INTO t (a, b)", 2, 2),
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)"
        );
        assert_eq!(Marks::Numbered.list(3), "$1, $2, $3");
    }

    #[test]
    fn new_trades_get_their_own_ids_in_any_order_of_answers() {
        let wanted = ["a", "b", "c"];
        let ids = |returned: &[(&str, i64)]| ids_in_order(wanted.iter().copied(), returned);
        assert_eq!(ids(&[("a", 1), ("b", 2), ("c", 3)]).unwrap(), [1, 2, 3]);
        assert_eq!(ids(&[("c", 3), ("a", 1), ("b", 2)]).unwrap(), [1, 2, 3]);
        assert!(matches!(
            ids(&[("a", 1), ("b", 2)]),
            Err(StoreError::NotFound)
        ));
        assert!(matches!(
            ids(&[("a", 1), ("b", 2), ("x", 9)]),
            Err(StoreError::NotFound)
        ));
    }
}
