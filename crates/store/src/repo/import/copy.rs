//! PostgreSQL's way of writing a history import: `COPY … FROM STDIN` on a connection of its
//! own (sqlx's `Any` driver has no COPY), in one transaction. Chain and trade ids are drawn
//! from their sequences first, so that trades name their chains and fills their trades
//! without waiting for an INSERT's answer. A COPY streams its rows: the server parses one
//! batch while the next is written, with no statement of 29,000 values to bind, parse and
//! plan per 1,000 trades (docs/benchmarks.md, "COPY for PostgreSQL's history import").
//! The keys, the indexes and the rollup's and running count's triggers check and follow
//! every row as they do for an INSERT.

use std::io::Write;

use sqlx::{Connection, PgConnection};

use super::{History, TradeTexts};
use crate::repo::dashboard::{BalanceSnapshot, SNAPSHOT_UPSERT};
use crate::repo::trades::{
    chain_values, trade_values, Value, INSERTED_CHAIN_COLUMNS, INSERTED_COLUMNS,
};
use crate::{Store, StoreError};

/// Rows per message of a COPY: about 200 KB of trades.
const ROWS_PER_SEND: usize = 1_000;

/// Writes `history` as [`Store::import_history`] describes.
pub(super) async fn import(store: &Store, history: &History<'_>) -> Result<(), StoreError> {
    let (user_id, venue, chains) = (history.user_id, history.venue, history.chains);
    let (trades, snapshots) = (&history.trades, &history.snapshots);
    let mut conn = PgConnection::connect(&store.url).await?;
    let mut tx = conn.begin().await?;
    let chain_ids = next_ids(&mut tx, "martingale_chains", chains.len()).await?;
    let trade_ids = next_ids(&mut tx, "trades", trades.len()).await?;

    copy_in(
        &mut tx,
        &format!("COPY martingale_chains (id, {INSERTED_CHAIN_COLUMNS}) FROM STDIN"),
        chains.iter().zip(&chain_ids),
        |out, (c, &id)| {
            out.row(std::iter::once(Value::Int(Some(id))).chain(chain_values(c, user_id)))
        },
    )
    .await?;
    // A trade's texts are made again for its fills rather than kept for all trades at once
    // (about 40 MB for 100,000 trades): the server, not this side, is what the COPY waits for.
    copy_in(
        &mut tx,
        &format!("COPY trades (id, {INSERTED_COLUMNS}) FROM STDIN"),
        trades.iter().zip(&trade_ids),
        |out, ((t, chain), &id)| {
            let text = TradeTexts::of(t);
            let chain_id = chain.and_then(|i| chain_ids.get(i).copied());
            out.row(std::iter::once(Value::Int(Some(id))).chain(trade_values(
                t,
                &text.decimals,
                chain_id,
                Some(venue),
            )))
        },
    )
    .await?;
    copy_in(
        &mut tx,
        "COPY fills (user_id, trade_id, notional, filled_at) FROM STDIN",
        trades.iter().zip(&trade_ids),
        |out, ((t, _), &id)| {
            for (notional, at) in TradeTexts::of(t).fills(t) {
                out.row([
                    Value::Int(Some(user_id)),
                    Value::Int(Some(id)),
                    Value::Text(Some(notional)),
                    Value::Int(Some(at)),
                ])
            }
        },
    )
    .await?;

    if !snapshots.is_empty() {
        let column = |f: fn(&BalanceSnapshot) -> String| -> Vec<String> {
            snapshots.iter().map(|s| f(s)).collect()
        };
        sqlx::query(&format!(
            "INSERT INTO balance_snapshots (user_id, taken_at, equity, available_balance,
                 margin_balance, venue)
             SELECT $1, taken_at, equity, available_balance, margin_balance, $2
             FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[])
                 AS s(taken_at, equity, available_balance, margin_balance)
             {SNAPSHOT_UPSERT}"
        ))
        .bind(user_id)
        .bind(venue.as_str())
        .bind(snapshots.iter().map(|s| s.taken_at).collect::<Vec<i64>>())
        .bind(column(|s| s.equity.to_string()))
        .bind(column(|s| s.available_balance.to_string()))
        .bind(column(|s| s.margin_balance.to_string()))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// `count` new ids of `table`, ascending, from its sequence (named once: `nextval` of an
/// expression looks the sequence up again for every id, of a value given once it does not).
async fn next_ids(
    conn: &mut PgConnection,
    table: &str,
    count: usize,
) -> Result<Vec<i64>, StoreError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let count = i64::try_from(count)
        .map_err(|_| StoreError::Invalid(format!("too many rows of {table} in one import")))?;
    let sequence: String = sqlx::query_scalar("SELECT pg_get_serial_sequence($1, 'id')")
        .bind(table)
        .fetch_one(&mut *conn)
        .await?;
    let mut ids: Vec<i64> =
        sqlx::query_scalar("SELECT nextval(CAST($1 AS regclass)) FROM generate_series(1, $2)")
            .bind(sequence)
            .bind(count)
            .fetch_all(&mut *conn)
            .await?;
    ids.sort_unstable();
    Ok(ids)
}

/// Runs `statement` (a `COPY … FROM STDIN` in text format) with the rows `write` makes of
/// each of `items`, sent in batches.
async fn copy_in<T>(
    conn: &mut PgConnection,
    statement: &str,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut CopyText, T),
) -> Result<(), StoreError> {
    let mut copy = conn.copy_in_raw(statement).await?;
    let mut text = CopyText::default();
    for item in items {
        write(&mut text, item);
        if text.rows >= ROWS_PER_SEND {
            copy.send(text.buf.as_slice()).await?;
            text.clear();
        }
    }
    if text.rows > 0 {
        copy.send(text.buf.as_slice()).await?;
    }
    copy.finish().await?;
    Ok(())
}

/// Rows in COPY's text format (PostgreSQL 15, COPY, "Text Format"): values separated by a
/// tab, rows ended by a newline, NULL as `\N`, and "backslash itself, newline, carriage
/// return, and the current delimiter character" preceded by a backslash in a value.
#[derive(Default)]
struct CopyText {
    buf: Vec<u8>,
    rows: usize,
}

impl CopyText {
    fn row<'v>(&mut self, values: impl IntoIterator<Item = Value<'v>>) {
        for (i, value) in values.into_iter().enumerate() {
            if i > 0 {
                self.buf.push(b'\t');
            }
            match value {
                // Writing to a Vec cannot fail.
                Value::Int(Some(v)) => drop(write!(self.buf, "{v}")),
                Value::Text(Some(v)) => self.text(v),
                Value::Int(None) | Value::Text(None) => self.buf.extend_from_slice(b"\\N"),
            }
        }
        self.buf.push(b'\n');
        self.rows += 1;
    }

    fn text(&mut self, v: &str) {
        for &b in v.as_bytes() {
            match b {
                b'\\' => self.buf.extend_from_slice(b"\\\\"),
                b'\n' => self.buf.extend_from_slice(b"\\n"),
                b'\r' => self.buf.extend_from_slice(b"\\r"),
                b'\t' => self.buf.extend_from_slice(b"\\t"),
                _ => self.buf.push(b),
            }
        }
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.rows = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::CopyText;
    use crate::repo::trades::Value;

    #[test]
    fn values_are_tab_separated_with_nulls_and_escapes() {
        let mut text = CopyText::default();
        text.row([
            Value::Int(Some(-7)),
            Value::Text(Some("a\tb\nc\rd\\e \\N")),
            Value::Int(None),
            Value::Text(None),
            Value::Text(Some("")),
        ]);
        text.row([Value::Text(Some("\\."))]);
        assert_eq!(
            String::from_utf8(text.buf).unwrap(),
            "-7\ta\\tb\\nc\\rd\\\\e \\\\N\t\\N\t\\N\t\n\\\\.\n"
        );
        assert_eq!(text.rows, 2);
    }
}
