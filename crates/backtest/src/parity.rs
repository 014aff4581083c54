//! Backtest against reality (issue 29, item 5; docs/parity.md): the signals a user's bot
//! acted on in a period, replayed with their ids through a backtest of the user's current
//! settings on the account's market, and the two sets of trades put side by side, matched by
//! the signal that opened them (a martingale step by its chain's first signal and its step).

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, NaiveDate};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::settings::BotSettings;
use signaldesk_core::stats::local_day_start;
use signaldesk_core::validation::FieldErrors;
use signaldesk_store::repo::trades::side_str;
use signaldesk_store::{Store, Trade, TradeStatus};
use signaldesk_venue::market::sim::SimAnchor;
use signaldesk_venue::paper::PaperConfig;

use crate::replay::TickReplay;
use crate::request::MAX_DAYS;
use crate::threads::on_a_core;
use crate::{Backtest, BacktestError, Data, Market, Request, ScriptedSignal, Source};

/// One end of the period: a day in the user's zone (`2026-11-20`; as `from` its first
/// instant, as `to` the end of that day) or an instant (`2026-11-20T12:00:00Z`).
pub fn parse_bound(text: &str, end: bool, tz: Tz) -> Result<i64, String> {
    let text = text.trim();
    if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = if end {
            day.succ_opt().unwrap_or(day)
        } else {
            day
        };
        return Ok(local_day_start(day, tz));
    }
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .map_err(|_| {
            format!("{text:?} is neither a date (YYYY-MM-DD) nor an RFC 3339 time (2026-11-20T12:00:00Z).")
        })
}

/// The period `[from_ms, to_ms)` of `from` and `to`, checked: both readable, `to` after
/// `from`, at most [`MAX_DAYS`] days, not after `now_ms`. Each problem under its field.
pub fn period(from: &str, to: &str, tz: Tz, now_ms: i64) -> Result<(i64, i64), FieldErrors> {
    let mut errors = FieldErrors::new();
    let from_ms = parse_bound(from, false, tz)
        .map_err(|e| errors.insert("from".into(), vec![e]))
        .ok();
    let to_ms = parse_bound(to, true, tz)
        .map_err(|e| errors.insert("to".into(), vec![e]))
        .ok();
    if let (Some(a), Some(b)) = (from_ms, to_ms) {
        let problem = if b <= a {
            Some("The period must end after it starts.".to_string())
        } else if b - a > MAX_DAYS * 86_400_000 {
            Some(format!("The period is longer than {MAX_DAYS} days."))
        } else if a >= now_ms {
            Some("The period starts in the future: there is nothing to compare yet.".to_string())
        } else {
            None
        };
        if let Some(problem) = problem {
            errors.insert("to".into(), vec![problem]);
        }
    }
    match (from_ms, to_ms) {
        (Some(a), Some(b)) if errors.is_empty() => Ok((a, b.min(now_ms.max(a + 1)))),
        _ => Err(errors),
    }
}

/// What a replay needs from the live books.
pub struct Live {
    /// The live trades of the period on the account's venue (those whose first signal was
    /// stored in it, and the later steps of their chains).
    pub trades: Vec<Trade>,
    /// The signals stored in the period, oldest first, as the backtest replays them; the
    /// latest signal of each symbol before the period first (noted, not traded).
    pub signals: Vec<ScriptedSignal>,
}

impl Live {
    /// The symbols of the signals and the trades, sorted.
    fn symbols(&self) -> Vec<String> {
        let mut symbols: Vec<String> = self
            .signals
            .iter()
            .map(|s| s.symbol.clone())
            .chain(self.trades.iter().map(|t| t.symbol.clone()))
            .collect();
        symbols.sort();
        symbols.dedup();
        symbols
    }
}

/// The market an account traded on, as a replay regenerates it.
#[derive(Debug, Clone)]
pub enum AccountMarket {
    /// The simulated market this anchor recorded (a paper account on it), with the
    /// deployment's paper exchange: its live ticks replayed one by one
    /// ([`crate::replay::TickReplay`]).
    Simulated {
        anchor: SimAnchor,
        paper: PaperConfig,
    },
    /// Bybit's prices, as the 1-minute candles `candles fetch` stored (a Bybit account, or a
    /// paper account on Bybit's prices).
    Bybit(Market),
}

impl AccountMarket {
    pub fn data(&self) -> Data {
        match self {
            AccountMarket::Simulated { .. } => Data::Simulated,
            AccountMarket::Bybit(_) => Data::Bybit,
        }
    }

    /// This market's time at wall time `wall_ms` (the simulated market's clock; Bybit's is
    /// the wall clock).
    pub fn time_at(&self, wall_ms: i64) -> i64 {
        match self {
            AccountMarket::Simulated { anchor, .. } => anchor.clock.market_at(wall_ms),
            AccountMarket::Bybit(_) => wall_ms,
        }
    }
}

/// The bot was started at `started_ms` (market time) inside the period: as the live trading
/// worker did, the replay starts from the signals stored before then (noted, not traded).
fn note_until_started(signals: &mut [ScriptedSignal], from_ms: i64, started_ms: i64) {
    for signal in signals
        .iter_mut()
        .filter(|s| (from_ms..started_ms).contains(&s.at_ms))
    {
        signal.at_ms = from_ms - 60_000;
    }
}

/// Reads the live side of the period: the user's signals (every source, with their ids)
/// and trades on `venue`.
pub async fn read_live(
    store: &Store,
    user_id: i64,
    venue: AccountVenue,
    from_ms: i64,
    to_ms: i64,
) -> Result<Live, BacktestError> {
    let before = store.latest_signals_before(user_id, from_ms).await?;
    let during = store.all_signals_between(user_id, from_ms, to_ms).await?;
    let mut signals: Vec<ScriptedSignal> = before
        .into_iter()
        .map(|s| ScriptedSignal {
            // The minute before the period (in the warm-up): noted, never traded.
            at_ms: from_ms - 60_000,
            candle_ms: s.candle_time,
            symbol: s.symbol,
            rating: s.rating,
            stored: Some((s.id, s.source)),
        })
        .collect();
    signals.extend(during.into_iter().map(|s| ScriptedSignal {
        at_ms: s.created_at,
        candle_ms: s.candle_time,
        symbol: s.symbol,
        rating: s.rating,
        stored: Some((s.id, s.source)),
    }));
    let all = store.all_trades(user_id).await?;
    let on_venue = |t: &Trade| t.venue.is_none_or(|v| v == venue);
    let in_period = |t: &Trade| {
        let at = t.signal_at.unwrap_or(t.created_at);
        (from_ms..to_ms).contains(&at)
    };
    // A chain's later steps belong to the period of its first trade.
    let chains: HashSet<i64> = all
        .iter()
        .filter(|t| on_venue(t) && in_period(t) && t.chain_step.unwrap_or(1) == 1)
        .filter_map(|t| t.chain_id)
        .collect();
    let trades: Vec<Trade> = all
        .into_iter()
        .filter(|t| on_venue(t))
        .filter(|t| match (t.chain_id, t.chain_step.unwrap_or(1)) {
            (Some(chain), step) if step > 1 => chains.contains(&chain),
            _ => in_period(t),
        })
        .collect();
    // A signal the bot acted on is replayed at the moment it acted (its trade's fill, on the
    // market's clock): when the live worker took it is an input, like the signal itself.
    let acted: HashMap<i64, i64> = trades
        .iter()
        .filter(|t| t.chain_step.unwrap_or(1) == 1)
        .filter_map(|t| Some((t.signal_id?, t.opened_at?)))
        .collect();
    for signal in &mut signals {
        if let Some(at) = signal.stored.as_ref().and_then(|(id, _)| acted.get(id)) {
            signal.at_ms = signal.at_ms.max(*at);
        }
    }
    Ok(Live { trades, signals })
}

/// The backtest of `live`'s signals with `settings` over `[from_ms, to_ms)` on the
/// account's market (the simulated market's history for a paper account, the stored Bybit
/// candles otherwise), on the symbols of the signals and trades.
pub async fn replay_run(
    live: &Live,
    settings: &BotSettings,
    market: &Market,
    store: &Store,
    from_ms: i64,
    to_ms: i64,
) -> Result<Backtest, BacktestError> {
    let symbols = live.symbols();
    let tz = settings.timezone();
    let day = |ms: i64| {
        DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .with_timezone(&tz)
            .date_naive()
    };
    let request = Request {
        date_from: day(from_ms),
        date_to: day(to_ms - 1),
        symbols: if symbols.is_empty() {
            vec![crate::data::universe().first().cloned().unwrap_or_default()]
        } else {
            symbols
        },
        source: Source::Alerts,
        data: Data::Bybit,
        overrides: Default::default(),
        sweep: Vec::new(),
        walk_forward: None,
    };
    let mut checked = request.check(settings, day(to_ms - 1))?;
    checked.from_ms = from_ms;
    checked.to_ms = to_ms;
    let signals: Vec<ScriptedSignal> = live
        .signals
        .iter()
        .filter(|s| checked.symbols.contains(&s.symbol))
        .cloned()
        .collect();
    let stored = checked.stored(market, store).await?;
    checked.build(market, stored, Some(signals)).await
}

/// One side of a trade: what the comparison shows of it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParitySide)]
pub struct Side {
    pub trade_id: i64,
    /// `long` or `short`.
    pub side: String,
    /// `OPEN` or `CLOSED`.
    pub status: String,
    /// Unix ms of the fill that opened it.
    pub entry_at: Option<i64>,
    /// Unix ms of its last close.
    pub exit_at: Option<i64>,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub entry_price: Option<Decimal>,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub exit_price: Option<Decimal>,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub fees: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub funding: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub pnl: Decimal,
    pub close_reason: Option<String>,
}

impl Side {
    fn of(t: &Trade) -> Side {
        Side {
            trade_id: t.id,
            side: side_str(t.side).to_string(),
            status: t.status.as_str().to_string(),
            entry_at: t.opened_at,
            exit_at: t.closed_at,
            entry_price: t.entry_price,
            exit_price: t.exit_price,
            fees: t.fees,
            funding: t.funding,
            pnl: t.pnl,
            close_reason: t.close_reason.clone(),
        }
    }
}

/// Backtest minus live, field by field; a field missing on a side has no difference.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParityDifference)]
pub struct Difference {
    pub entry_at_ms: Option<i64>,
    pub exit_at_ms: Option<i64>,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub entry_price: Option<Decimal>,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub exit_price: Option<Decimal>,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub fees: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub funding: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub pnl: Decimal,
}

impl Difference {
    fn of(live: &Side, backtest: &Side) -> Difference {
        let sub = |a: Option<Decimal>, b: Option<Decimal>| Some(b? - a?);
        let sub_ms = |a: Option<i64>, b: Option<i64>| Some(b? - a?);
        Difference {
            entry_at_ms: sub_ms(live.entry_at, backtest.entry_at),
            exit_at_ms: sub_ms(live.exit_at, backtest.exit_at),
            entry_price: sub(live.entry_price, backtest.entry_price),
            exit_price: sub(live.exit_price, backtest.exit_price),
            fees: backtest.fees - live.fees,
            funding: backtest.funding - live.funding,
            pnl: backtest.pnl - live.pnl,
        }
    }

    fn is_zero(&self) -> bool {
        let zero = |d: Option<Decimal>| d.is_none_or(|d| d.is_zero());
        self.entry_at_ms.unwrap_or(0) == 0
            && self.exit_at_ms.unwrap_or(0) == 0
            && zero(self.entry_price)
            && zero(self.exit_price)
            && self.fees.is_zero()
            && self.funding.is_zero()
            && self.pnl.is_zero()
    }
}

/// A live trade and its backtest counterpart, or one of them alone with the reason.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParityRow)]
pub struct Row {
    /// The signal that opened the trade (its chain's first trade's, for a later step).
    pub signal_id: Option<i64>,
    /// The martingale step (1 for a classic trade).
    pub step: u32,
    pub symbol: String,
    pub live: Option<Side>,
    pub backtest: Option<Side>,
    /// Backtest minus live, when both exist.
    pub difference: Option<Difference>,
    /// Whether both sides exist and agree in every field compared.
    pub agrees: bool,
    /// Why the two differ: the side that has no trade and why, or what makes one trade
    /// differ (not closed yet, closed by hand).
    pub reason: Option<String>,
}

/// Trades, fees, funding and pnl of one side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParitySums)]
pub struct Sums {
    pub trades: usize,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub fees: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub funding: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub pnl: Decimal,
}

impl Sums {
    fn add(&mut self, side: &Side) {
        self.trades += 1;
        self.fees += side.fees;
        self.funding += side.funding;
        self.pnl += side.pnl;
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParityTotals)]
pub struct Totals {
    pub live: Sums,
    pub backtest: Sums,
    /// Backtest minus live (trades: the backtest's count minus the live count, as signed).
    pub difference: SignedSums,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParitySignedSums)]
pub struct SignedSums {
    pub trades: i64,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub fees: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub funding: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub pnl: Decimal,
}

/// The comparison of a period.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = ParityReport)]
pub struct Report {
    pub from_ms: i64,
    pub to_ms: i64,
    /// Where the backtest's prices came from: `simulated` or `bybit`.
    #[schema(value_type = String)]
    pub data: Data,
    /// The signals replayed (stored in the period).
    pub signals: usize,
    /// Oldest first (by the first entry of either side).
    pub rows: Vec<Row>,
    /// Rows that do not agree.
    pub differences: usize,
    pub totals: Totals,
}

/// What the backtest side knows besides its trades.
pub struct Replayed<'a> {
    pub trades: &'a [Trade],
    /// Signals the backtest acted on and opened nothing on, with its worker's reason.
    pub skipped: &'a [(i64, String)],
}

type Key = (Option<i64>, u32, i64);

/// Whether a trade was filled (a pending or cancelled one never traded: not compared).
fn traded(t: &Trade) -> bool {
    !matches!(t.status, TradeStatus::Pending | TradeStatus::Cancelled)
}

/// Each trade's key: its signal (its chain's first trade's for a later step) and step;
/// a trade without either is keyed by its own id (it matches nothing).
fn keys(trades: &[Trade]) -> Vec<Key> {
    let roots: HashMap<i64, i64> = trades
        .iter()
        .filter(|t| t.chain_step.unwrap_or(1) == 1)
        .filter_map(|t| Some((t.chain_id?, t.signal_id?)))
        .collect();
    trades
        .iter()
        .map(|t| {
            let step = t.chain_step.unwrap_or(1);
            let signal = t
                .signal_id
                .or_else(|| t.chain_id.and_then(|c| roots.get(&c).copied()));
            match signal {
                Some(id) => (Some(id), step, 0),
                None => (None, step, t.id),
            }
        })
        .collect()
}

/// Puts the live trades and the backtest's side by side. `replayed` are the ids of the
/// signals the backtest was given in the period.
pub fn compare(
    from_ms: i64,
    to_ms: i64,
    data: Data,
    live: &[Trade],
    replayed_ids: &HashSet<i64>,
    backtest: Replayed<'_>,
) -> Report {
    let live: Vec<&Trade> = live.iter().filter(|t| traded(t)).collect();
    let live_owned: Vec<Trade> = live.iter().map(|t| (*t).clone()).collect();
    let back: Vec<&Trade> = backtest.trades.iter().filter(|t| traded(t)).collect();
    let back_owned: Vec<Trade> = back.iter().map(|t| (*t).clone()).collect();
    let live_keys = keys(&live_owned);
    let back_keys = keys(&back_owned);
    let skipped: HashMap<i64, &str> = backtest
        .skipped
        .iter()
        .map(|(id, why)| (*id, why.as_str()))
        .collect();
    // The deepest step each backtest chain reached, by its first signal.
    let mut back_steps: HashMap<i64, u32> = HashMap::new();
    for key in &back_keys {
        if let (Some(id), step, _) = *key {
            let deepest = back_steps.entry(id).or_insert(0);
            *deepest = (*deepest).max(step);
        }
    }
    let mut by_key: BTreeMap<Key, (Option<&Trade>, Option<&Trade>)> = BTreeMap::new();
    for (t, k) in live_owned.iter().zip(&live_keys) {
        by_key.entry(*k).or_default().0 = Some(t);
    }
    for (t, k) in back_owned.iter().zip(&back_keys) {
        // A backtest trade without a key matches nothing: keep it apart from the live ones.
        let k = if k.0.is_none() {
            (None, k.1, -t.id)
        } else {
            *k
        };
        by_key.entry(k).or_default().1 = Some(t);
    }

    let mut rows = Vec::new();
    let mut totals = Totals::default();
    for ((signal_id, step, _), (l, b)) in by_key {
        let live_side = l.map(Side::of);
        let back_side = b.map(Side::of);
        if let Some(s) = &live_side {
            totals.live.add(s);
        }
        if let Some(s) = &back_side {
            totals.backtest.add(s);
        }
        let symbol = l.or(b).map(|t| t.symbol.clone()).unwrap_or_default();
        let (difference, agrees, reason) = match (&live_side, &back_side) {
            (Some(ls), Some(bs)) => {
                let d = Difference::of(ls, bs);
                let agrees = d.is_zero() && ls.status == bs.status && ls.side == bs.side;
                let reason = (!agrees).then(|| both_differ(ls, bs));
                (Some(d), agrees, reason)
            }
            (Some(_), None) => {
                let why = live_only(signal_id, step, replayed_ids, &skipped, &back_steps);
                (None, false, Some(why))
            }
            (None, Some(_)) => (
                None,
                false,
                Some(
                    "Backtest only: the live bot opened no trade on this signal (it was stopped, a limit such as max_trades or max_total_usdt or a forbidden window held then, or the settings changed since)."
                        .to_string(),
                ),
            ),
            (None, None) => continue,
        };
        rows.push(Row {
            signal_id,
            step,
            symbol,
            live: live_side,
            backtest: back_side,
            difference,
            agrees,
            reason,
        });
    }
    let first_entry = |r: &Row| {
        [&r.live, &r.backtest]
            .into_iter()
            .flatten()
            .filter_map(|s| s.entry_at)
            .min()
            .unwrap_or(i64::MAX)
    };
    rows.sort_by_key(|r| (first_entry(r), r.signal_id, r.step));
    totals.difference = SignedSums {
        trades: totals.backtest.trades as i64 - totals.live.trades as i64,
        fees: totals.backtest.fees - totals.live.fees,
        funding: totals.backtest.funding - totals.live.funding,
        pnl: totals.backtest.pnl - totals.live.pnl,
    };
    let differences = rows.iter().filter(|r| !r.agrees).count();
    Report {
        from_ms,
        to_ms,
        data,
        signals: replayed_ids.len(),
        rows,
        differences,
        totals,
    }
}

fn both_differ(live: &Side, backtest: &Side) -> String {
    if live.status != backtest.status {
        let open_side = if live.status == TradeStatus::Open.as_str() {
            "live"
        } else {
            "in the backtest"
        };
        return format!("Not closed yet {open_side} at the end of the period.");
    }
    if live.close_reason.as_deref() == Some("manual") {
        return "Closed by hand live.".to_string();
    }
    if live.side != backtest.side {
        return "Opened in the other direction (reverse_mode changed?).".to_string();
    }
    "The trades differ (prices, times, fees, funding or pnl).".to_string()
}

fn live_only(
    signal_id: Option<i64>,
    step: u32,
    replayed: &HashSet<i64>,
    skipped: &HashMap<i64, &str>,
    back_steps: &HashMap<i64, u32>,
) -> String {
    let Some(id) = signal_id else {
        return "Live only: opened without a stored signal (imported history, or a chain whose first trade is outside the period); nothing to replay.".to_string();
    };
    if !replayed.contains(&id) {
        return format!(
            "Live only: missed signal: signal #{id} is not among the signals stored in the period (pruned, or stored outside it)."
        );
    }
    if step > 1 {
        return match back_steps.get(&id) {
            Some(deepest) => format!(
                "Live only: the backtest's martingale chain ended at step {deepest} (its trades closed differently)."
            ),
            None => "Live only: the backtest did not start this martingale chain.".to_string(),
        };
    }
    if let Some(why) = skipped.get(&id) {
        return format!("Live only: the backtest skipped the signal: {why}.");
    }
    "Live only: the backtest saw no entry in this signal (no transition into a strong signal, or its symbol is not on the backtest's market).".to_string()
}

/// The comparison of `user_id`'s bot on `venue` over `[from_ms, to_ms)` with a replay of its
/// signals on `market` with `settings`.
pub async fn run(
    store: &Store,
    user_id: i64,
    venue: AccountVenue,
    settings: &BotSettings,
    market: &AccountMarket,
    from_ms: i64,
    to_ms: i64,
) -> Result<Report, BacktestError> {
    let mut live = read_live(store, user_id, venue, from_ms, to_ms).await?;
    let data = market.data();
    let record = store.settings_or_default(user_id, to_ms).await?;
    if let Some(started) = record.bot_started_at.map(|wall| market.time_at(wall)) {
        if (from_ms..to_ms).contains(&started) {
            note_until_started(&mut live.signals, from_ms, started);
        }
    }
    let replayed_ids: HashSet<i64> = live
        .signals
        .iter()
        .filter(|s| s.at_ms >= from_ms)
        .filter_map(|s| s.stored.as_ref().map(|(id, _)| *id))
        .collect();
    if replayed_ids.is_empty() && live.trades.is_empty() {
        // Nothing happened and nothing would: no history to generate.
        let none = Replayed {
            trades: &[],
            skipped: &[],
        };
        return Ok(compare(from_ms, to_ms, data, &[], &replayed_ids, none));
    }
    let outcome = match market {
        AccountMarket::Simulated { anchor, paper } => {
            let universe = &anchor.path.symbols;
            let replay = TickReplay {
                settings: settings.clone(),
                anchor: anchor.clone(),
                symbols: live
                    .symbols()
                    .into_iter()
                    .filter(|s| universe.contains(s))
                    .collect(),
                from_ms,
                to_ms,
                signals: live.signals.clone(),
                paper: paper.clone(),
            };
            tokio::task::spawn_blocking(move || on_a_core(replay.run()))
                .await
                .map_err(|e| BacktestError::Data(format!("the replay's thread failed: {e}")))??
        }
        AccountMarket::Bybit(market) => {
            let backtest = replay_run(&live, settings, market, store, from_ms, to_ms).await?;
            tokio::task::spawn_blocking(move || backtest.run_on_a_core(&crate::Progress::default()))
                .await
                .map_err(|e| BacktestError::Data(format!("the replay's thread failed: {e}")))??
        }
    };
    Ok(compare(
        from_ms,
        to_ms,
        data,
        &live.trades,
        &replayed_ids,
        Replayed {
            trades: &outcome.trades,
            skipped: &outcome.skipped,
        },
    ))
}
