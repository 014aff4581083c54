//! `signaldesk audit`: compares each user's account on the venue with the store and lists
//! every difference. The venue is the truth; a difference means the books lie.
//!
//! Checked, by the venue's own ids (a trade's position is the one its opening order opened):
//! - each closed trade's pnl, its funding aside, and exit price equal the venue's closes of
//!   its own position (Bybit's closedPnl leaves funding out);
//! - an open trade's booked pnl, its funding aside, equals its position's partial closes,
//!   and its open quantity the position's;
//! - each trade's booked funding equals the settlements the venue reports for its position
//!   (paper names the position; Bybit names only the symbol: a settlement belongs to the
//!   latest trade on the symbol opened at or before it, the rule the books use);
//! - no OPEN or PENDING trade without a venue position, no venue position without an OPEN
//!   trade, and no cancelled trade whose order did execute;
//! - every OPEN trade's stop loss rests on the venue;
//!
//! Imported history (docs/history-import.md) predates the venue's records and is left out.
//! - paper only: the wallet equals the starting balance plus the sum of the trades' pnl
//!   (funding included), less the opening fees of open positions not yet attributed to a close (exact).
//! - the store's running all-time statistics (migration 0009), when up to date, equal a
//!   recomputation from every closed trade, imported ones included.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signaldesk_store::{Store, Trade, TradeStatus, IMPORTED_ORDER_PREFIX};
use signaldesk_venue::paper::{AccountSnapshot, PaperConfig};
use signaldesk_venue::{FundingPayment, Position, PositionClose, Venue};

use crate::EngineError;

/// One user's account on the venue, as the audit reads it.
pub struct VenueAccount {
    pub positions: Vec<Position>,
    /// Paper only: the wallet and the opening fees not yet attributed to a close.
    pub paper: Option<PaperFigures>,
    source: CloseSource,
}

pub struct PaperFigures {
    pub starting_balance: Decimal,
    pub wallet_balance: Decimal,
    pub unattributed_open_fees: Decimal,
}

enum CloseSource {
    /// The paper account's closes; `complete` is false once it keeps only the newest ones.
    Snapshot {
        closes: Vec<PositionClose>,
        complete: bool,
        fundings: Vec<FundingPayment>,
        fundings_complete: bool,
    },
    Venue(std::sync::Arc<dyn Venue>),
}

impl VenueAccount {
    /// A paper account from its stored snapshot.
    pub fn paper(snapshot: &AccountSnapshot, starting_balance: Decimal) -> VenueAccount {
        let positions = snapshot
            .positions
            .values()
            .map(|p| Position {
                position_id: p.position_id.clone(),
                symbol: p.symbol.clone(),
                side: p.side,
                qty: p.qty,
                entry_price: p.entry_price,
                leverage: p.leverage,
                margin: p.margin,
                mark_price: p.entry_price,
                unrealized_pnl: Decimal::ZERO,
                liquidation_price: Decimal::ZERO,
                stops: signaldesk_venue::Stops {
                    stop_loss: p.stop_loss,
                    take_profit: p.take_profit,
                    trailing: None,
                },
                trailing_stop_price: None,
                opened_at_ms: p.opened_at_ms,
                updated_at_ms: p.updated_at_ms,
            })
            .collect();
        VenueAccount {
            positions,
            paper: Some(PaperFigures {
                starting_balance,
                wallet_balance: snapshot.wallet_balance,
                unattributed_open_fees: snapshot.positions.values().map(|p| p.open_fee).sum(),
            }),
            source: CloseSource::Snapshot {
                closes: snapshot.closes.iter().cloned().collect(),
                complete: snapshot.closes.len() < PaperConfig::default().memory,
                fundings: snapshot.fundings.iter().cloned().collect(),
                fundings_complete: snapshot.fundings.len() < PaperConfig::default().memory,
            },
        }
    }

    /// A live account read through the [`Venue`] trait (Bybit).
    pub async fn live(venue: std::sync::Arc<dyn Venue>) -> Result<VenueAccount, EngineError> {
        Ok(VenueAccount {
            positions: venue.positions().await?,
            paper: None,
            source: CloseSource::Venue(venue),
        })
    }

    /// The venue's closes of the trade's position; `None` when the venue no longer keeps
    /// them (a paper account keeps its newest 10,000 closes).
    async fn closes(&self, trade: &Trade) -> Result<Option<Vec<PositionClose>>, EngineError> {
        match &self.source {
            CloseSource::Snapshot {
                closes, complete, ..
            } => {
                let own: Vec<PositionClose> = closes
                    .iter()
                    .filter(|c| c.symbol == trade.symbol && c.position_id == trade.client_order_id)
                    .cloned()
                    .collect();
                let forgotten = own.is_empty() && !complete && trade.status == TradeStatus::Closed;
                Ok((!forgotten).then_some(own))
            }
            CloseSource::Venue(venue) => Ok(Some(
                venue
                    .position_closes(&trade.symbol, &trade.client_order_id)
                    .await?,
            )),
        }
    }
}

impl VenueAccount {
    /// The funding the venue settled on each trade's position (received positive), by
    /// trade id, for the trades whose settlements the venue still keeps (a paper account
    /// keeps its newest ones): a trade missing here is not checked.
    async fn funding(&self, trades: &[Trade]) -> Result<HashMap<i64, Decimal>, EngineError> {
        let held: Vec<&Trade> = trades
            .iter()
            .filter(|t| matches!(t.status, TradeStatus::Open | TradeStatus::Closed))
            .filter(|t| t.opened_at.is_some())
            .collect();
        let venue = match &self.source {
            CloseSource::Snapshot {
                fundings,
                fundings_complete,
                ..
            } => {
                let mut out = HashMap::new();
                for t in held {
                    let own: Vec<&FundingPayment> = fundings
                        .iter()
                        .filter(|f| f.symbol == t.symbol && f.position_id == t.client_order_id)
                        .collect();
                    if own.is_empty() && !fundings_complete {
                        continue;
                    }
                    out.insert(t.id, own.iter().map(|f| -f.fee).sum());
                }
                return Ok(out);
            }
            CloseSource::Venue(venue) => venue,
        };
        let mut since: HashMap<&str, i64> = HashMap::new();
        for t in &held {
            let opened = t.opened_at.unwrap_or_default();
            let first = since.entry(t.symbol.as_str()).or_insert(opened);
            *first = (*first).min(opened);
        }
        let mut out: HashMap<i64, Decimal> = held.iter().map(|t| (t.id, Decimal::ZERO)).collect();
        for (symbol, from_ms) in since {
            for payment in venue.funding_since(symbol, from_ms).await? {
                let owner = held
                    .iter()
                    .filter(|t| t.symbol == payment.symbol)
                    .filter(|t| {
                        payment.position_id.is_empty() || t.client_order_id == payment.position_id
                    })
                    .filter(|t| t.opened_at.is_some_and(|o| o <= payment.ts_ms))
                    .max_by_key(|t| (t.opened_at, t.id));
                if let Some(t) = owner {
                    *out.entry(t.id).or_insert(Decimal::ZERO) -= payment.fee;
                }
            }
        }
        Ok(out)
    }
}

/// Every difference between `account` and the user's trades, as sentences.
pub async fn differences(
    store: &Store,
    user_id: i64,
    account: &VenueAccount,
) -> Result<Vec<String>, EngineError> {
    let trades: Vec<Trade> = store
        .all_trades(user_id)
        .await?
        .into_iter()
        .filter(|t| !t.client_order_id.starts_with(IMPORTED_ORDER_PREFIX))
        .collect();
    let mut found = Vec::new();
    let mut pnl_sum = Decimal::ZERO;
    let funding = account.funding(&trades).await?;
    for trade in &trades {
        if let Some(&venue) = funding.get(&trade.id) {
            if trade.funding != venue {
                found.push(format!(
                    "{} trade #{}: booked funding {} but the venue's settlements of its position add up to {venue}",
                    trade.symbol,
                    trade.id,
                    trade.funding.normalize(),
                    venue = venue.normalize()
                ));
            }
        }
        pnl_sum += trade.pnl;
        let Some(closes) = account.closes(trade).await? else {
            // Older than what the venue keeps: only the wallet check covers it.
            continue;
        };
        let position = account.positions.iter().find(|p| {
            p.symbol == trade.symbol
                && (p.position_id.is_empty() || p.position_id == trade.client_order_id)
        });
        check_trade(trade, &closes, position, &mut found);
    }
    for position in &account.positions {
        let held = trades.iter().any(|t| {
            t.status == TradeStatus::Open
                && t.symbol == position.symbol
                && (position.position_id.is_empty() || position.position_id == t.client_order_id)
        });
        if !held {
            found.push(format!(
                "the venue holds a {} position of {} (position {}) that no OPEN trade holds",
                position.symbol, position.qty, position.position_id
            ));
        }
    }
    if let Some(paper) = &account.paper {
        let expected = paper.starting_balance + pnl_sum - paper.unattributed_open_fees;
        if expected != paper.wallet_balance {
            found.push(format!(
                "the paper wallet holds {} USDT; starting balance {} + trade pnl {} - unattributed opening fees {} = {}",
                paper.wallet_balance,
                paper.starting_balance,
                pnl_sum,
                paper.unattributed_open_fees,
                expected
            ));
        }
    }
    if store.running_statistics_agree(user_id).await? == Some(false) {
        found.push(
            "the running all-time statistics differ from a recomputation from the closed trades"
                .to_string(),
        );
    }
    Ok(found)
}

fn check_trade(
    trade: &Trade,
    closes: &[PositionClose],
    position: Option<&Position>,
    found: &mut Vec<String>,
) {
    let name = format!("{} trade #{}", trade.symbol, trade.id);
    let venue_pnl: Decimal = closes.iter().map(|c| c.realized_pnl).sum();
    let venue_qty: Decimal = closes.iter().map(|c| c.qty).sum();
    match trade.status {
        TradeStatus::Closed | TradeStatus::Open if trade.pnl - trade.funding != venue_pnl => {
            found.push(format!(
                "{name}: booked pnl {} (funding {} aside) but the venue's closes of its position add up to {venue_pnl}",
                trade.pnl, trade.funding
            ));
        }
        TradeStatus::Cancelled if !closes.is_empty() || position.is_some() => {
            found.push(format!(
                "{name} is CANCELLED but its opening order executed on the venue"
            ));
        }
        TradeStatus::Pending => {
            found.push(format!(
                "{name} is still PENDING: its opening order is not settled"
            ));
        }
        _ => {}
    }
    if trade.status == TradeStatus::Closed {
        if position.is_some() {
            found.push(format!(
                "{name} is CLOSED but its position is still open on the venue"
            ));
        }
        if !venue_qty.is_zero() {
            let venue_exit =
                closes.iter().map(|c| c.exit_price * c.qty).sum::<Decimal>() / venue_qty;
            if trade.exit_price != Some(venue_exit) {
                found.push(format!(
                    "{name}: exit price {:?} but the venue closed at {venue_exit}",
                    trade.exit_price
                ));
            }
        }
    }
    if trade.status == TradeStatus::Open {
        match position {
            None => found.push(format!(
                "{name} is OPEN but the venue has no position for it"
            )),
            Some(p) => {
                if p.qty != trade.open_qty {
                    found.push(format!(
                        "{name}: {} open in the books, {} on the venue",
                        trade.open_qty, p.qty
                    ));
                }
                if p.stops.stop_loss.is_none() {
                    found.push(format!("{name} has no stop loss resting on the venue"));
                } else if p.stops.stop_loss != trade.stop_loss {
                    found.push(format!(
                        "{name}: stop loss {:?} in the books, {:?} on the venue",
                        trade.stop_loss, p.stops.stop_loss
                    ));
                }
            }
        }
    }
}
