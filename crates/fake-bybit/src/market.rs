//! The public market the fake serves without keys: tickers built from the prices a test feeds
//! in (GET /v5/market/tickers and the `tickers.{symbol}` topic), candles of every Bybit
//! interval (GET /v5/market/kline and the `kline.{interval}.{symbol}` topic) and risk limit
//! tiers (GET /v5/market/risk-limit).
//!
//! The fake has no trades of its own: every price the test sets is a trade. Mark and index
//! price are the last price (as the position list already reads them), the book is one tick
//! wide around it, the 24-hour statistics come from the prices set in the last 24 hours, and
//! the open interest is the fake's accounts' positions (each one's counterparty holds the
//! other side).
//!
//! Candles: each price updates the candle still open of every interval. A candle closes when
//! the test closes it ([`Market::close_kline`]) or, as on Bybit, once its time is over: the
//! fake has no timer, so that close is pushed with the next price (or found by the next
//! kline request).

use std::collections::{BTreeMap, HashMap, VecDeque};

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use signaldesk_core::market::{Candle, Instrument};

use crate::exchange::Exchange;

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
const DAY_MS: i64 = 24 * HOUR_MS;

/// market/kline and websocket/public/kline: "Available intervals: 1 3 5 15 30 (min), 60 120
/// 240 360 720 (min), D (day), W (week), M (month)". Months have no fixed length and the fake
/// keeps none.
const INTERVALS: [(&str, u32); 12] = [
    ("1", 1),
    ("3", 3),
    ("5", 5),
    ("15", 15),
    ("30", 30),
    ("60", 60),
    ("120", 120),
    ("240", 240),
    ("360", 360),
    ("720", 720),
    ("D", 1440),
    ("W", 10080),
];

/// Bybit's name of an interval of `minutes`.
pub fn interval_name(minutes: u32) -> Option<&'static str> {
    INTERVALS
        .iter()
        .find(|(_, m)| *m == minutes)
        .map(|(n, _)| *n)
}

/// Minutes of a Bybit interval name (`"M"` is not one the fake keeps).
pub fn interval_minutes(name: &str) -> Option<u32> {
    INTERVALS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

fn interval_ms(minutes: u32) -> i64 {
    i64::from(minutes) * MINUTE_MS
}

/// Open time of the candle of `minutes` holding `ts_ms`. Weekly candles open on Monday
/// 00:00 UTC (1970-01-01 was a Thursday, so Mondays are 4 days off the epoch's weeks).
pub fn bucket_start(ts_ms: i64, minutes: u32) -> i64 {
    let len = interval_ms(minutes);
    let shift = if minutes == 10080 { 4 * DAY_MS } else { 0 };
    (ts_ms - shift).div_euclid(len) * len + shift
}

/// One tier of GET /v5/market/risk-limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskTier {
    /// The position value this tier allows, USDT (`riskLimitValue`).
    pub risk_limit_value: Decimal,
    /// Maintenance margin rate (`maintenanceMargin`).
    pub maintenance_margin: Decimal,
    /// Initial margin rate (`initialMargin`).
    pub initial_margin: Decimal,
    /// `maxLeverage`.
    pub max_leverage: Decimal,
    /// `mmDeduction`; `None` answers `""`, as the docs' example does for the lowest tier.
    pub mm_deduction: Option<Decimal>,
}

/// Five tiers in the pattern of Bybit's BTCUSDT table (2,000,000 USDT at 0.5% / 1% and
/// 100x, then 4,000,000 at 1% / 1.75% and 57.14x, ...), scaled to the instrument's maximum
/// leverage: tier n allows n times the first's value, at n times its maintenance rate and
/// 1 + 0.75 (n - 1) times its initial rate. The deduction keeps the maintenance margin
/// continuous across a tier boundary.
pub fn default_risk_tiers(instrument: &Instrument) -> Vec<RiskTier> {
    let max = Decimal::from(instrument.max_leverage.max(1));
    let base_value = Decimal::from(20_000) * max;
    let first_im = Decimal::ONE / max;
    let first_mm = first_im / Decimal::TWO;
    let mut tiers: Vec<RiskTier> = Vec::new();
    for n in 1..=5u32 {
        let n = Decimal::from(n);
        let initial = first_im * (Decimal::ONE + Decimal::new(75, 2) * (n - Decimal::ONE));
        if initial > Decimal::ONE {
            break;
        }
        let maintenance = first_mm * n;
        let mm_deduction = tiers.last().map(|prev| {
            prev.mm_deduction.unwrap_or_default()
                + prev.risk_limit_value * (maintenance - prev.maintenance_margin)
        });
        tiers.push(RiskTier {
            risk_limit_value: base_value * n,
            maintenance_margin: maintenance.normalize(),
            initial_margin: initial.normalize(),
            max_leverage: (Decimal::ONE / initial).round_dp(2),
            mm_deduction: mm_deduction.map(|d| d.normalize()),
        });
    }
    tiers
}

/// `d` with exactly `dp` decimals ("100.00").
fn fixed(d: Decimal, dp: u32) -> String {
    let mut d = d.round_dp(dp);
    d.rescale(dp);
    d.to_string()
}

impl RiskTier {
    fn to_json(&self, id: usize, symbol: &str) -> Value {
        json!({
            "id": id,
            "symbol": symbol,
            "riskLimitValue": self.risk_limit_value.to_string(),
            // Typed "number" in the table, sent as strings in the docs' example.
            "maintenanceMargin": self.maintenance_margin.to_string(),
            "initialMargin": self.initial_margin.to_string(),
            "isLowestRisk": i32::from(id == 1),
            "maxLeverage": fixed(self.max_leverage, 2),
            "mmDeduction": self.mm_deduction.map(|d| d.to_string()).unwrap_or_default(),
        })
    }
}

/// A push of the public stream. `seq` orders every push (and a subscription's snapshot)
/// under the fake's lock, so a connection drops what its snapshot already holds.
#[derive(Debug, Clone)]
pub enum MarketPush {
    /// `tickers.{symbol}`: the whole ticker, which each connection sends as the delta from
    /// what it sent before.
    Ticker {
        symbol: String,
        seq: u64,
        ts: i64,
        fields: Map<String, Value>,
    },
    /// `kline.{interval}.{symbol}`: one candle.
    Kline {
        topic: String,
        seq: u64,
        ts: i64,
        data: Value,
    },
}

impl MarketPush {
    pub fn seq(&self) -> u64 {
        match self {
            MarketPush::Ticker { seq, .. } | MarketPush::Kline { seq, .. } => *seq,
        }
    }

    pub fn topic(&self) -> String {
        match self {
            MarketPush::Ticker { symbol, .. } => format!("tickers.{symbol}"),
            MarketPush::Kline { topic, .. } => topic.clone(),
        }
    }
}

/// The candle still open of one interval.
#[derive(Debug, Clone)]
struct LiveCandle {
    candle: Candle,
    /// When its last trade was (the push's `timestamp`).
    updated_ms: i64,
}

/// One symbol's market.
#[derive(Debug, Clone)]
struct SymbolMarket {
    /// The prices set in the last 24 hours, oldest first, after the last one before them.
    trades: VecDeque<(i64, Decimal)>,
    tick_direction: &'static str,
    turnover_24h: Decimal,
    funding_rate: Decimal,
    live: HashMap<u32, LiveCandle>,
    /// Open time of the newest closed candle, per interval.
    last_closed: HashMap<u32, i64>,
}

impl Default for SymbolMarket {
    fn default() -> Self {
        Self {
            trades: VecDeque::new(),
            tick_direction: "ZeroPlusTick",
            turnover_24h: Decimal::ZERO,
            // Bybit's usual baseline rate, 0.01% per 8 hours.
            funding_rate: Decimal::new(1, 4),
            live: HashMap::new(),
            last_closed: HashMap::new(),
        }
    }
}

impl SymbolMarket {
    /// The last price set at or before `ts`, else the first one (the fake's market began
    /// then).
    fn price_at(&self, ts: i64) -> Option<Decimal> {
        self.trades
            .iter()
            .rev()
            .find(|(t, _)| *t <= ts)
            .or(self.trades.front())
            .map(|(_, p)| *p)
    }
}

/// Every symbol's public market, the stored candles and the risk limit tiers.
#[derive(Default)]
pub struct Market {
    symbols: HashMap<String, SymbolMarket>,
    /// Closed candles by symbol and interval (minutes), by open time.
    klines: HashMap<(String, u32), BTreeMap<i64, Candle>>,
    /// Settled funding rates by symbol, by settlement time.
    funding_history: HashMap<String, BTreeMap<i64, Decimal>>,
    risk_tiers: HashMap<String, Vec<RiskTier>>,
    /// Connections watching each topic: pushes are built for watched topics only.
    watched: HashMap<String, usize>,
    seq: u64,
}

fn kline_topic(minutes: u32, symbol: &str) -> String {
    format!("kline.{}.{symbol}", interval_name(minutes).unwrap_or("?"))
}

/// One candle as websocket/public/kline's `data` entry.
fn kline_json(candle: &Candle, minutes: u32, confirm: bool, timestamp: i64) -> Value {
    json!({
        "start": candle.open_time_ms,
        "end": candle.open_time_ms + interval_ms(minutes) - 1,
        "interval": interval_name(minutes).unwrap_or("?"),
        "open": candle.open.to_string(),
        "close": candle.close.to_string(),
        "high": candle.high.to_string(),
        "low": candle.low.to_string(),
        "volume": candle.volume.to_string(),
        "turnover": (candle.close * candle.volume).to_string(),
        "confirm": confirm,
        "timestamp": timestamp,
    })
}

/// One candle as a market/kline `list` row: `[startTime, open, high, low, close, volume,
/// turnover]`, all strings.
pub fn kline_row(c: &Candle) -> Value {
    json!([
        c.open_time_ms.to_string(),
        c.open.to_string(),
        c.high.to_string(),
        c.low.to_string(),
        c.close.to_string(),
        c.volume.to_string(),
        (c.close * c.volume).to_string(),
    ])
}

impl Market {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    pub fn seq(&self) -> u64 {
        self.seq
    }

    pub fn watch(&mut self, topic: &str) {
        *self.watched.entry(topic.to_string()).or_default() += 1;
    }

    pub fn unwatch(&mut self, topic: &str) {
        if let Some(n) = self.watched.get_mut(topic) {
            *n -= 1;
            if *n == 0 {
                self.watched.remove(topic);
            }
        }
    }

    fn watched(&self, topic: &str) -> bool {
        self.watched.contains_key(topic)
    }

    /// Stores closed candles of `symbol` (1-minute ones from `FakeBybit::add_klines`).
    pub fn add_klines(&mut self, symbol: &str, minutes: u32, candles: &[Candle]) {
        let stored = self
            .klines
            .entry((symbol.to_string(), minutes))
            .or_default();
        for candle in candles {
            stored.insert(candle.open_time_ms, candle.clone());
        }
    }

    /// Stores settled funding rates `(settlement time, rate)` of `symbol`.
    pub fn add_funding_history(&mut self, symbol: &str, rates: &[(i64, Decimal)]) {
        self.funding_history
            .entry(symbol.to_string())
            .or_default()
            .extend(rates.iter().copied());
    }

    /// `/v5/market/funding/history`'s rows: the newest `limit` settlements of `symbol` in
    /// `[start, end]`, newest first.
    pub fn funding_rows(&self, symbol: &str, start: i64, end: i64, limit: usize) -> Vec<Value> {
        self.funding_history
            .get(symbol)
            .into_iter()
            .flat_map(|rates| rates.range(start..=end).rev())
            .take(limit)
            .map(|(at, rate)| {
                json!({
                    "symbol": symbol,
                    "fundingRate": rate.to_string(),
                    "fundingRateTimestamp": at.to_string(),
                })
            })
            .collect()
    }

    pub fn set_turnover_24h(&mut self, symbol: &str, turnover: Decimal) {
        self.symbols
            .entry(symbol.to_string())
            .or_default()
            .turnover_24h = turnover;
    }

    pub fn set_funding_rate(&mut self, symbol: &str, rate: Decimal) {
        self.symbols
            .entry(symbol.to_string())
            .or_default()
            .funding_rate = rate;
    }

    pub fn set_risk_tiers(&mut self, symbol: &str, tiers: Vec<RiskTier>) {
        self.risk_tiers.insert(symbol.to_string(), tiers);
    }

    /// The risk limit rows of `instrument`: the tiers set for it, else the default ones.
    pub fn risk_limit_rows(&self, instrument: &Instrument) -> Vec<Value> {
        let tiers = self
            .risk_tiers
            .get(&instrument.symbol)
            .cloned()
            .unwrap_or_else(|| default_risk_tiers(instrument));
        tiers
            .iter()
            .enumerate()
            .map(|(i, t)| t.to_json(i + 1, &instrument.symbol))
            .collect()
    }

    /// A trade at `price`: the 24-hour statistics, the tick direction and every interval's
    /// open candle move; answers the pushes of the watched topics (closes of candles whose
    /// time is over first).
    pub fn on_price(
        &mut self,
        exchange: &Exchange,
        symbol: &str,
        price: Decimal,
        now: i64,
    ) -> Vec<MarketPush> {
        if exchange.instrument(symbol).is_err() {
            return Vec::new();
        }
        let mut pushes = Vec::new();
        for (_, minutes) in INTERVALS {
            pushes.extend(self.roll(symbol, minutes, now));
        }
        let market = self.symbols.entry(symbol.to_string()).or_default();
        if let Some(&(_, previous)) = market.trades.back() {
            // enum#tickdirection: "PlusTick: price rise", "ZeroPlusTick: trade occurs at the
            // same price as the previous trade, which occurred at a price higher than that for
            // the trade preceding it", "MinusTick: price drop", "ZeroMinusTick" likewise.
            market.tick_direction = match price.cmp(&previous) {
                std::cmp::Ordering::Greater => "PlusTick",
                std::cmp::Ordering::Less => "MinusTick",
                std::cmp::Ordering::Equal => match market.tick_direction {
                    "PlusTick" | "ZeroPlusTick" => "ZeroPlusTick",
                    _ => "ZeroMinusTick",
                },
            };
        }
        market.trades.push_back((now, price));
        while market.trades.len() > 1 && market.trades[1].0 <= now - DAY_MS {
            market.trades.pop_front();
        }
        for (_, minutes) in INTERVALS {
            let next_open = market
                .last_closed
                .get(&minutes)
                .map_or(i64::MIN, |t| t + interval_ms(minutes));
            let live = market.live.entry(minutes).or_insert_with(|| LiveCandle {
                candle: Candle {
                    open_time_ms: bucket_start(now, minutes).max(next_open),
                    open: price,
                    high: price,
                    low: price,
                    close: price,
                    volume: Decimal::ZERO,
                },
                updated_ms: now,
            });
            live.candle.high = live.candle.high.max(price);
            live.candle.low = live.candle.low.min(price);
            live.candle.close = price;
            live.updated_ms = now;
        }
        for (_, minutes) in INTERVALS {
            let topic = kline_topic(minutes, symbol);
            if let Some(push) = self.live_push(symbol, minutes, &topic, now) {
                pushes.push(push);
            }
        }
        if self.watched(&format!("tickers.{symbol}")) {
            if let Some(fields) = self.ws_ticker(exchange, symbol, now) {
                pushes.push(MarketPush::Ticker {
                    symbol: symbol.to_string(),
                    seq: self.next_seq(),
                    ts: now,
                    fields,
                });
            }
        }
        pushes
    }

    /// The open candle of `symbol` and `minutes` as a `confirm: false` push, when watched.
    fn live_push(
        &mut self,
        symbol: &str,
        minutes: u32,
        topic: &str,
        now: i64,
    ) -> Option<MarketPush> {
        if !self.watched(topic) {
            return None;
        }
        let live = self.symbols.get(symbol)?.live.get(&minutes)?.clone();
        Some(MarketPush::Kline {
            topic: topic.to_string(),
            seq: self.next_seq(),
            ts: now,
            data: json!([kline_json(&live.candle, minutes, false, live.updated_ms)]),
        })
    }

    /// Closes the open candle of `symbol` and `minutes` if its time is over at `now`.
    pub fn roll(&mut self, symbol: &str, minutes: u32, now: i64) -> Option<MarketPush> {
        let market = self.symbols.get_mut(symbol)?;
        let over = market
            .live
            .get(&minutes)
            .is_some_and(|l| l.candle.open_time_ms + interval_ms(minutes) <= now);
        if !over {
            return None;
        }
        let live = market.live.remove(&minutes)?;
        self.close(symbol, minutes, live.candle, live.updated_ms, now)
    }

    /// Stores `candle` as closed and answers its `confirm: true` push when watched;
    /// `last_trade_ms` is the push's `timestamp`.
    fn close(
        &mut self,
        symbol: &str,
        minutes: u32,
        candle: Candle,
        last_trade_ms: i64,
        now: i64,
    ) -> Option<MarketPush> {
        let market = self.symbols.entry(symbol.to_string()).or_default();
        let last = market.last_closed.entry(minutes).or_insert(i64::MIN);
        *last = (*last).max(candle.open_time_ms);
        self.add_klines(symbol, minutes, std::slice::from_ref(&candle));
        let topic = kline_topic(minutes, symbol);
        if !self.watched(&topic) {
            return None;
        }
        Some(MarketPush::Kline {
            topic,
            seq: self.next_seq(),
            ts: now,
            data: json!([kline_json(&candle, minutes, true, last_trade_ms)]),
        })
    }

    /// The test closes `candle` of `symbol` and `minutes`: an open candle before it closes
    /// first as it stands (candles close in order), one at its open time is replaced by it,
    /// and the next open candle starts after it.
    pub fn close_kline(
        &mut self,
        symbol: &str,
        minutes: u32,
        candle: Candle,
        now: i64,
    ) -> Vec<MarketPush> {
        let mut pushes = Vec::new();
        let live = self
            .symbols
            .get_mut(symbol)
            .and_then(|m| m.live.remove(&minutes));
        match live {
            Some(l) if l.candle.open_time_ms < candle.open_time_ms => {
                pushes.extend(self.close(symbol, minutes, l.candle, l.updated_ms, now));
            }
            Some(l) if l.candle.open_time_ms > candle.open_time_ms => {
                // A candle before the open one: the open one stays.
                if let Some(m) = self.symbols.get_mut(symbol) {
                    m.live.insert(minutes, l);
                }
            }
            _ => {}
        }
        // Its last trade: now, or its last millisecond when it ended before now.
        let last_trade = now.min(candle.open_time_ms + interval_ms(minutes) - 1);
        pushes.extend(self.close(symbol, minutes, candle, last_trade, now));
        pushes
    }

    /// The candles of GET /v5/market/kline: the stored ones with open times in
    /// `start..=end`, and the one still open, newest first, at most `limit`.
    pub fn kline_rows(
        &self,
        symbol: &str,
        minutes: u32,
        start: i64,
        end: i64,
        limit: usize,
    ) -> Vec<Value> {
        let mut candles: BTreeMap<i64, &Candle> = self
            .klines
            .get(&(symbol.to_string(), minutes))
            .map(|c| c.range(start..=end).map(|(t, c)| (*t, c)).collect())
            .unwrap_or_default();
        if let Some(live) = self.symbols.get(symbol).and_then(|m| m.live.get(&minutes)) {
            let t = live.candle.open_time_ms;
            if (start..=end).contains(&t) {
                candles.entry(t).or_insert(&live.candle);
            }
        }
        candles
            .values()
            .rev()
            .take(limit)
            .map(|c| kline_row(c))
            .collect()
    }

    /// The open candle of `symbol` and `minutes`, as the push a new subscription gets.
    pub fn kline_snapshot(&self, symbol: &str, minutes: u32) -> Option<Value> {
        let live = self.symbols.get(symbol)?.live.get(&minutes)?;
        Some(json!([kline_json(
            &live.candle,
            minutes,
            false,
            live.updated_ms
        )]))
    }

    /// The fields market/tickers and websocket/public/ticker share for a linear perpetual;
    /// `None` before the symbol's first price.
    fn ticker_fields(
        &self,
        exchange: &Exchange,
        symbol: &str,
        now: i64,
    ) -> Option<Map<String, Value>> {
        let instrument = exchange.instrument(symbol).ok()?;
        let market = self.symbols.get(symbol)?;
        let last = *exchange.prices.get(symbol)?;
        let prev_24h = market.price_at(now - DAY_MS).unwrap_or(last);
        let prev_1h = market.price_at(now - HOUR_MS).unwrap_or(last);
        let in_day = market
            .trades
            .iter()
            .filter(|(t, _)| *t > now - DAY_MS)
            .map(|(_, p)| *p);
        let high = in_day.clone().fold(last, Decimal::max);
        let low = in_day.fold(last, Decimal::min);
        let change = if prev_24h.is_zero() {
            Decimal::ZERO
        } else {
            ((last - prev_24h) / prev_24h).round_dp(6)
        };
        // Both sides: every position of the fake's accounts and its counterparty's.
        let single: Decimal = exchange
            .accounts
            .values()
            .filter_map(|a| a.snapshot.positions.get(symbol))
            .map(|p| p.qty)
            .sum();
        let both = single * Decimal::TWO;
        let volume = if last.is_zero() {
            Decimal::ZERO
        } else {
            (market.turnover_24h / last).round_dp(instrument.qty_step.scale())
        };
        // Funding every 8 hours, at 00:00, 08:00 and 16:00 UTC.
        let next_funding = (now.div_euclid(8 * HOUR_MS) + 1) * 8 * HOUR_MS;
        let depth = (instrument.min_qty * Decimal::from(1000)).normalize();
        let fields = json!({
            "symbol": symbol,
            "lastPrice": last.to_string(),
            "indexPrice": last.to_string(),
            "markPrice": last.to_string(),
            "prevPrice24h": prev_24h.to_string(),
            "price24hPcnt": change.normalize().to_string(),
            "highPrice24h": high.to_string(),
            "lowPrice24h": low.to_string(),
            "prevPrice1h": prev_1h.to_string(),
            "openInterest": both.to_string(),
            "openInterestValue": (both * last).round_dp(2).to_string(),
            "singleOpenInterest": single.to_string(),
            "singleOpenInterestValue": (single * last).round_dp(2).to_string(),
            "turnover24h": market.turnover_24h.to_string(),
            "volume24h": volume.to_string(),
            "fundingRate": market.funding_rate.to_string(),
            "nextFundingTime": next_funding.to_string(),
            "fundingIntervalHour": "8",
            "fundingCap": "0.005",
            "bid1Price": last.to_string(),
            "bid1Size": depth.to_string(),
            "ask1Price": (last + instrument.tick_size).to_string(),
            "ask1Size": depth.to_string(),
            "preOpenPrice": "",
            "preQty": "",
            "curPreListingPhase": "",
        });
        match fields {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// One row of GET /v5/market/tickers (category=linear, a perpetual): the shared fields,
    /// the futures-only ones empty ("basisRateYear: Only for Futures, For Perpetual, it will
    /// return \"\""), no tickDirection (market/tickers has none).
    pub fn rest_ticker(&self, exchange: &Exchange, symbol: &str, now: i64) -> Option<Value> {
        let mut fields = self.ticker_fields(exchange, symbol, now)?;
        for (k, v) in [
            ("predictedDeliveryPrice", ""),
            ("basisRate", ""),
            ("basis", ""),
            ("deliveryFeeRate", ""),
            ("deliveryTime", "0"),
            ("basisRateYear", ""),
        ] {
            fields.insert(k.to_string(), json!(v));
        }
        Some(Value::Object(fields))
    }

    /// The `data` of a `tickers.{symbol}` snapshot: the shared fields and tickDirection
    /// (websocket/public/ticker: futures-only fields "will not return" for a perpetual).
    pub fn ws_ticker(
        &self,
        exchange: &Exchange,
        symbol: &str,
        now: i64,
    ) -> Option<Map<String, Value>> {
        let mut fields = self.ticker_fields(exchange, symbol, now)?;
        let direction = self.symbols.get(symbol)?.tick_direction;
        fields.insert("tickDirection".into(), json!(direction));
        Some(fields)
    }
}
