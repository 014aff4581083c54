//! `signaldesk history import`: a trading history (closed trades, martingale chains and
//! balance snapshots) from a JSON file, e.g. moved from another installation. The whole file
//! is checked before anything is written; a file imported twice is refused by the trades'
//! unique order ids.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::Deserialize;
use signaldesk_core::market::PositionSide;
use signaldesk_store::repo::dashboard::BalanceSnapshot;
use signaldesk_store::{Chain, ChainStatus, Store, Trade, TradeStatus};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryFile {
    #[serde(default)]
    chains: Vec<ChainIn>,
    #[serde(default)]
    trades: Vec<TradeIn>,
    #[serde(default)]
    balance_snapshots: Vec<SnapshotIn>,
}

/// A martingale chain; its trades name it by `key`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainIn {
    key: String,
    symbol: String,
    /// `OPEN` (the bot continues it in martingale mode) or `CLOSED`.
    status: String,
    created_at: DateTime<Utc>,
    closed_at: Option<DateTime<Utc>>,
}

/// A closed trade. Decimals are strings, written exactly.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TradeIn {
    symbol: String,
    /// `long` or `short`.
    side: String,
    /// Only `CLOSED`: open positions belong to the venue, which reconciliation reads.
    #[serde(default = "closed")]
    status: String,
    leverage: u32,
    margin: Decimal,
    qty: Decimal,
    entry_price: Decimal,
    exit_price: Decimal,
    /// Net of fees and funding.
    pnl: Decimal,
    #[serde(default)]
    fees: Decimal,
    /// Funding received (positive) or paid (negative) while open.
    #[serde(default)]
    funding: Decimal,
    opened_at: DateTime<Utc>,
    closed_at: DateTime<Utc>,
    #[serde(default)]
    close_reason: Option<String>,
    #[serde(default)]
    chain: Option<String>,
    #[serde(default)]
    chain_step: Option<u32>,
}

/// The imported trade's order id: the same file imported again gives the same ids.
fn order_id(user_id: i64, t: &TradeIn, index: usize) -> String {
    format!(
        "{}{user_id}-{}-{index}",
        signaldesk_store::IMPORTED_ORDER_PREFIX,
        t.opened_at.timestamp_millis()
    )
}

fn closed() -> String {
    "CLOSED".to_string()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotIn {
    taken_at: DateTime<Utc>,
    equity: Decimal,
    available_balance: Decimal,
    margin_balance: Decimal,
}

/// What an import wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub trades: usize,
    pub chains: usize,
    pub balance_snapshots: usize,
}

fn side(text: &str, at: &str) -> anyhow::Result<PositionSide> {
    match text {
        "long" => Ok(PositionSide::Long),
        "short" => Ok(PositionSide::Short),
        other => bail!("{at}.side must be long or short, not \"{other}\""),
    }
}

fn check_trade(t: &TradeIn, at: &str, chains: &HashMap<&str, &ChainIn>) -> anyhow::Result<()> {
    if t.status != "CLOSED" {
        bail!("{at}.status must be CLOSED: only finished trades can be imported");
    }
    if t.symbol.trim().is_empty() {
        bail!("{at}.symbol is empty");
    }
    side(&t.side, at)?;
    if t.leverage == 0 || t.leverage > 100 {
        bail!("{at}.leverage must be 1 to 100");
    }
    for (name, value) in [
        ("qty", t.qty),
        ("entry_price", t.entry_price),
        ("exit_price", t.exit_price),
    ] {
        if value <= Decimal::ZERO {
            bail!("{at}.{name} must be above zero");
        }
    }
    if t.margin < Decimal::ZERO || t.fees < Decimal::ZERO {
        bail!("{at}: margin and fees cannot be negative");
    }
    if t.closed_at < t.opened_at {
        bail!("{at}.closed_at is before its opened_at");
    }
    match (&t.chain, t.chain_step) {
        (None, None) => {}
        (Some(key), Some(step)) if step >= 1 => {
            if !chains.contains_key(key.as_str()) {
                bail!("{at}.chain \"{key}\" is not in chains");
            }
        }
        _ => bail!("{at}: chain and chain_step (1 or more) go together"),
    }
    Ok(())
}

/// Checks the file's history, then writes it for `user_id`.
pub async fn import(store: &Store, user_id: i64, path: &Path) -> anyhow::Result<Imported> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file: HistoryFile = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a history file", path.display()))?;
    let mut chains_by_key: HashMap<&str, &ChainIn> = HashMap::new();
    for (i, c) in file.chains.iter().enumerate() {
        if !matches!(c.status.as_str(), "OPEN" | "CLOSED") {
            bail!("chains[{i}].status must be OPEN or CLOSED");
        }
        if chains_by_key.insert(c.key.as_str(), c).is_some() {
            bail!("chains[{i}].key \"{}\" is used twice", c.key);
        }
    }
    let order_ids: Vec<String> = file
        .trades
        .iter()
        .enumerate()
        .map(|(i, t)| order_id(user_id, t, i))
        .collect();
    for (i, t) in file.trades.iter().enumerate() {
        check_trade(t, &format!("trades[{i}]"), &chains_by_key)?;
    }
    let existing = store.existing_order_ids(&order_ids).await?;
    if let Some(i) = order_ids.iter().position(|id| existing.contains(id)) {
        bail!("trades[{i}] was imported before: this file was already imported");
    }

    let mut steps_of: HashMap<&str, Vec<&TradeIn>> = HashMap::new();
    for t in &file.trades {
        if let Some(key) = t.chain.as_deref() {
            steps_of.entry(key).or_default().push(t);
        }
    }
    let mut chain_index = HashMap::new();
    let mut chains = Vec::with_capacity(file.chains.len());
    for c in &file.chains {
        let mut steps = steps_of.remove(c.key.as_str()).unwrap_or_default();
        steps.sort_by_key(|t| t.chain_step);
        let last = steps.last();
        let open = c.status == "OPEN";
        chain_index.insert(c.key.as_str(), chains.len());
        chains.push(Chain {
            id: 0,
            user_id,
            symbol: c.symbol.clone(),
            status: if open {
                ChainStatus::Open
            } else {
                ChainStatus::Closed
            },
            step: last.and_then(|t| t.chain_step).unwrap_or(1),
            side: match last {
                Some(t) => side(&t.side, "chain trade")?,
                None => PositionSide::Long,
            },
            won: (!open).then(|| last.is_some_and(|t| t.pnl > Decimal::ZERO)),
            created_at: c.created_at.timestamp_millis(),
            closed_at: c.closed_at.map(|t| t.timestamp_millis()),
        });
    }

    let mut trades = Vec::with_capacity(file.trades.len());
    for (t, client_order_id) in file.trades.iter().zip(order_ids) {
        let opened = t.opened_at.timestamp_millis();
        let closed = t.closed_at.timestamp_millis();
        let entry_value = t.qty * t.entry_price;
        let exit_value = t.qty * t.exit_price;
        let trade = Trade {
            id: 0,
            user_id,
            symbol: t.symbol.trim().to_uppercase(),
            side: side(&t.side, "trade")?,
            status: TradeStatus::Closed,
            client_order_id,
            leverage: t.leverage,
            margin: t.margin,
            qty: t.qty,
            open_qty: Decimal::ZERO,
            entry_price: Some(t.entry_price),
            exit_price: Some(t.exit_price),
            closed_qty: t.qty,
            exit_value,
            pnl: t.pnl,
            fees: t.fees,
            funding: t.funding,
            volume: entry_value + exit_value,
            stop_loss: None,
            tp_step: 0,
            close_reason: Some(t.close_reason.clone().unwrap_or_else(|| "imported".into())),
            chain_id: None,
            chain_step: t.chain_step,
            signal_id: None,
            signal_at: None,
            signal_price: None,
            created_at: opened,
            opened_at: Some(opened),
            closed_at: Some(closed),
            venue: None,
        };
        let chain = t.chain.as_deref().and_then(|k| chain_index.get(k).copied());
        trades.push((trade, chain));
    }

    let snapshots: Vec<BalanceSnapshot> = file
        .balance_snapshots
        .iter()
        .map(|s| BalanceSnapshot {
            taken_at: s.taken_at.timestamp_millis(),
            equity: s.equity,
            available_balance: s.available_balance,
            margin_balance: s.margin_balance,
        })
        .collect();
    // One transaction: all of the file or nothing, on the account the user is on now
    // (statistics follow the account).
    let venue = store.account_venue(user_id).await?;
    store
        .import_history(user_id, venue, &chains, &trades, &snapshots)
        .await?;
    Ok(Imported {
        trades: file.trades.len(),
        chains: file.chains.len(),
        balance_snapshots: file.balance_snapshots.len(),
    })
}
