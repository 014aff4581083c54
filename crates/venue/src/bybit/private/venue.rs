//! [`BybitVenue`]: one Bybit account (one API key) behind the [`Venue`] trait.
//!
//! * Orders are market orders whose `orderLinkId` is the client order id. When a submit
//!   fails in a way that leaves its fate unknown (timeout, 5xx), the order is looked up by
//!   its `orderLinkId` before it is sent again, and a "duplicate orderLinkId" answer is
//!   resolved the same way, so a retried submit never opens twice. An order Bybit has
//!   acknowledged is never reported as rejected unless Bybit says it executed nothing: an
//!   outcome that cannot be read is settled by the orderLinkId, else reported as retryable.
//! * Events come from the private stream's `order` pushes and, after every (re)connect and
//!   every `resync_interval`, from the order history over REST. Both go through one path
//!   that remembers the orders it has turned into events, so each fill or close becomes
//!   exactly one [`VenueEvent`] however it was learned.
//! * Funding settlements are executions with execType `Funding` and no order: the stream's
//!   are events as they come, each resync reads those since the last one (a stream drop
//!   loses none), and `funding_since` reads them back for reconciliation. Each is an event
//!   once, by its execId.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::key_permissions::KeyPermissions;
use signaldesk_core::market::Instrument;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::errors::{
    is_transient, venue_error, DUPLICATE_ORDER_LINK_ID, HEDGE_MODE, LEVERAGE_NOT_MODIFIED,
    STOPS_NOT_MODIFIED,
};
use super::key_rules;
use super::models::{
    opt_dec, side_name, ApiKeyInfo, ClosedPnlRow, CreatedOrder, ExecutionRecord, OrderRecord, Page,
    PositionRecord, WalletRecord,
};
use super::push::{read_push_items, PushItem};
use super::rest::{PrivateRest, Retry};
use super::stream::{spawn_private_stream, StreamEvent};
use super::BybitConfig;
use crate::bybit::http::models::dec;
use crate::bybit::http::{BybitHttpClient, BybitHttpError};
use crate::error::VenueError;
use crate::key_check::{KeyRefusal, KeyRefused};
use crate::paper::account::validate_client_order_id;
use crate::venue::{
    CloseReason, Fill, FundingPayment, OrderRequest, Position, PositionClose, Stops, Venue,
    VenueEvent, Wallet,
};

const EVENT_CAPACITY: usize = 1024;
/// Orders remembered as already turned into events.
const SEEN_MEMORY: usize = 10_000;
/// Bybit answers startTime..endTime spans of at most 7 days.
/// How far from the last price a market order may fill: Bybit turns a market order into an
/// IOC limit order capped at its documented price limit, 3 % for BTC contracts and 5 % for
/// the others (order/create-order).
pub fn market_order_price_limit(symbol: &str) -> Decimal {
    if symbol.starts_with("BTC") {
        Decimal::new(3, 2)
    } else {
        Decimal::new(5, 2)
    }
}

const SEVEN_DAYS_MS: i64 = 7 * 24 * 3600 * 1000;
/// Bybit keeps closed pnl and executions for two years ("Get Closed PnL (2 years)", "Get
/// Trade History (2 years)").
const KEPT_MS: i64 = 730 * 24 * 3600 * 1000;
/// Margin before the last resync start, for orders created just before it.
const RESYNC_OVERLAP_MS: i64 = 60_000;
const POLL: Duration = Duration::from_millis(100);
/// How long the instruments list is trusted before an unknown symbol reloads it.
const INSTRUMENTS_TTL: Duration = Duration::from_secs(300);

/// One Bybit account. Cheap to clone; the private stream stops with the last clone.
#[derive(Clone)]
pub struct BybitVenue {
    shared: Arc<Shared>,
    _tasks: Arc<Tasks>,
}

struct Tasks(Vec<JoinHandle<()>>);

impl Drop for Tasks {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

struct Shared {
    rest: Arc<PrivateRest>,
    config: BybitConfig,
    market: BybitHttpClient,
    instruments: Mutex<Instruments>,
    /// Each symbol's first-tier maintenance margin rate and when it was read.
    risk: Mutex<HashMap<String, (Decimal, tokio::time::Instant)>>,
    events: broadcast::Sender<VenueEvent>,
    /// Bumped after each login of the private stream, once its resync is done.
    reconnects: tokio::sync::watch::Sender<u64>,
    tracker: tokio::sync::Mutex<Tracker>,
}

#[derive(Default)]
struct Instruments {
    by_symbol: HashMap<String, Instrument>,
    loaded_at: Option<tokio::time::Instant>,
}

struct Tracker {
    seen: HashSet<String>,
    order: VecDeque<String>,
    /// Orders created from here on (Bybit time) are read by the next resync.
    resync_from_ms: i64,
}

impl Tracker {
    /// Whether funding settlement `exec_id` is new, remembering it.
    fn first_funding(&mut self, exec_id: &str) -> bool {
        let key = format!("funding:{exec_id}");
        let new = !self.seen.contains(&key);
        self.remember(&key);
        new
    }

    fn remember(&mut self, order_id: &str) {
        if self.seen.insert(order_id.to_string()) {
            self.order.push_back(order_id.to_string());
            while self.order.len() > SEEN_MEMORY {
                if let Some(old) = self.order.pop_front() {
                    self.seen.remove(&old);
                }
            }
        }
    }
}

impl BybitVenue {
    /// Builds the venue and starts its private stream (needs a tokio runtime).
    pub fn new(config: BybitConfig) -> Result<Self, VenueError> {
        let env = config.environment;
        let rest = Arc::new(PrivateRest::new(&config).map_err(|e| venue_error(e, env))?);
        let market = BybitHttpClient::new(&config.rest_url, config.request_timeout)
            .map_err(|e| venue_error(e, env))?;
        let shared = Arc::new(Shared {
            tracker: tokio::sync::Mutex::new(Tracker {
                seen: HashSet::new(),
                order: VecDeque::new(),
                resync_from_ms: rest.now_ms(),
            }),
            rest: rest.clone(),
            market,
            instruments: Mutex::new(Instruments::default()),
            risk: Mutex::new(HashMap::new()),
            events: broadcast::channel(EVENT_CAPACITY).0,
            reconnects: tokio::sync::watch::channel(0).0,
            config: config.clone(),
        });
        let (tx, rx) = mpsc::channel(256);
        let stream = spawn_private_stream(config, rest, tx);
        let consumer = tokio::spawn(consume(shared.clone(), rx));
        Ok(Self {
            shared,
            _tasks: Arc::new(Tasks(vec![stream, consumer])),
        })
    }

    /// One cheap authenticated call (GET /v5/user/query-api) with the key of `config`, then
    /// the position mode: the key's permissions as Bybit reported them when it may trade
    /// here, else why not (with those permissions once Bybit described the key). A key that
    /// can withdraw or transfer funds is refused first ([`key_rules`]). Opens no stream.
    pub async fn check_key(config: &BybitConfig) -> Result<KeyPermissions, KeyRefused> {
        let env = config.environment;
        let rest = PrivateRest::new(config).map_err(|e| venue_error(e, env))?;
        let info: ApiKeyInfo = rest
            .get("/v5/user/query-api", &[])
            .await
            .map_err(|e| venue_error(e, env))?;
        let reported = info.reported();
        let refused = |reason: KeyRefusal| KeyRefused {
            reason,
            reported: Some(reported.clone()),
        };
        let movers = key_rules::moves_funds(&reported);
        if !movers.is_empty() {
            return Err(refused(KeyRefusal::MovesFunds(movers)));
        }
        if !key_rules::can_trade_contracts(&reported) {
            return Err(refused(KeyRefusal::Exchange(VenueError::Exchange {
                code: 10005,
                message: "the API key is read-only or lacks Contract Orders and Positions permissions: give it read-write Contract permissions on Bybit".into(),
            })));
        }
        // The position mode (position/position.mdx: positionIdx 0 is one-way, 1 and 2 the
        // sides of hedge mode). Bybit sets it per symbol or per coin; a symbol queried
        // answers its entries with or without a position, the open positions show the rest.
        let mut records: Vec<PositionRecord> = Vec::new();
        for query in [
            [
                ("category", "linear".to_string()),
                ("symbol", "BTCUSDT".to_string()),
            ],
            [
                ("category", "linear".to_string()),
                ("settleCoin", "USDT".to_string()),
            ],
        ] {
            let page: Page<PositionRecord> = rest
                .get("/v5/position/list", &query)
                .await
                .map_err(|e| refused(KeyRefusal::Exchange(venue_error(e, env))))?;
            records.extend(page.list);
        }
        if records.iter().any(|r| r.position_idx != 0) {
            return Err(refused(KeyRefusal::Exchange(VenueError::Exchange {
                code: 10001,
                message: HEDGE_MODE.into(),
            })));
        }
        Ok(reported)
    }
}

/// Handles what the stream reports, one at a time, and resyncs on a timer as well.
async fn consume(shared: Arc<Shared>, mut rx: mpsc::Receiver<StreamEvent>) {
    let period = shared.config.resync_interval;
    let mut timer = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    loop {
        tokio::select! {
            event = rx.recv() => match event {
                Some(StreamEvent::Connected) => {
                    shared.resync_logged().await;
                    shared.reconnects.send_modify(|n| *n += 1);
                }
                Some(StreamEvent::Push { topic, data }) => shared.on_push(&topic, data).await,
                None => return,
            },
            _ = timer.tick() => shared.resync_logged().await,
        }
    }
}

impl Shared {
    fn error(&self, e: BybitHttpError) -> VenueError {
        venue_error(e, self.config.environment)
    }

    fn instruments(&self) -> MutexGuard<'_, Instruments> {
        self.instruments.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn risk(&self) -> MutexGuard<'_, HashMap<String, (Decimal, tokio::time::Instant)>> {
        self.risk.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The instrument as Bybit lists it, the list read again once it is older than
    /// [`INSTRUMENTS_TTL`] (Bybit changes tick sizes and limits); while Bybit cannot be read,
    /// the last list read.
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError> {
        {
            let cache = self.instruments();
            let fresh = cache
                .loaded_at
                .is_some_and(|t| t.elapsed() < INSTRUMENTS_TTL);
            match cache.by_symbol.get(symbol) {
                Some(i) if fresh => return Ok(i.clone()),
                None if fresh => return Err(VenueError::UnknownSymbol(symbol.to_string())),
                _ => {}
            }
        }
        let all = match self.market.instruments().await {
            Ok(all) => all,
            Err(e) => {
                return match self.instruments().by_symbol.get(symbol) {
                    Some(kept) => Ok(kept.clone()),
                    None => Err(self.error(e)),
                }
            }
        };
        let mut cache = self.instruments();
        cache.by_symbol = all.into_iter().map(|i| (i.symbol.clone(), i)).collect();
        cache.loaded_at = Some(tokio::time::Instant::now());
        cache
            .by_symbol
            .get(symbol)
            .cloned()
            .ok_or_else(|| VenueError::UnknownSymbol(symbol.to_string()))
    }

    /// Every page of a cursor-paged list.
    async fn all_pages<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: Vec<(&str, String)>,
    ) -> Result<Vec<T>, BybitHttpError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut q = query.clone();
            if let Some(c) = &cursor {
                q.push(("cursor", c.clone()));
            }
            let page: Page<T> = self.rest.get(path, &q).await?;
            let next = page.next();
            out.extend(page.list);
            match next {
                Some(n) if cursor.as_ref() != Some(&n) => cursor = Some(n),
                _ => return Ok(out),
            }
        }
    }

    /// Every page of a list read in spans of at most 7 days from `from_ms` to `to_ms` (Bybit
    /// refuses longer ones: "If both are passed, the rule is endTime - startTime <= 7 days").
    async fn windowed<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: Vec<(&str, String)>,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<T>, BybitHttpError> {
        let mut out = Vec::new();
        let mut start = from_ms;
        while start <= to_ms {
            let end = (start + SEVEN_DAYS_MS - 1).min(to_ms);
            let mut q = query.clone();
            q.push(("startTime", start.to_string()));
            q.push(("endTime", end.to_string()));
            out.extend(self.all_pages(path, q).await?);
            start = end + 1;
        }
        Ok(out)
    }

    /// The funding settlements (executions with execType `Funding`) of `symbol`, or of every
    /// symbol, from `from_ms` to `to_ms`, oldest first. execution.mdx: execType is a filter
    /// of /v5/execution/list, "limit ... [`1`, `100`]", "Use the `nextPageCursor` token from
    /// the response to retrieve the next page".
    async fn fundings(
        &self,
        symbol: Option<&str>,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<FundingPayment>, BybitHttpError> {
        let mut query = vec![
            ("category", "linear".to_string()),
            ("execType", "Funding".to_string()),
            ("limit", "100".to_string()),
        ];
        if let Some(s) = symbol {
            query.push(("symbol", s.to_string()));
        }
        let from_ms = from_ms.max(self.rest.now_ms() - KEPT_MS);
        let rows: Vec<ExecutionRecord> = self
            .windowed("/v5/execution/list", query, from_ms, to_ms)
            .await?;
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for row in rows {
            if row.is_funding()
                && symbol.is_none_or(|s| s == row.symbol)
                && seen.insert(row.exec_id.clone())
            {
                out.push(row.to_funding()?);
            }
        }
        // Bybit answers newest first.
        out.sort_by_key(|f| f.ts_ms);
        Ok(out)
    }

    /// Sends funding settlement `payment` once.
    fn send_funding(&self, tracker: &mut Tracker, payment: FundingPayment) {
        if tracker.first_funding(&payment.funding_id) {
            let _ = self.events.send(VenueEvent::Funding(payment));
        }
    }

    /// The order `order_id` (or, without it, the one with `link_id`) on `symbol`:
    /// /v5/order/realtime knows recent orders of any status, /v5/order/history the older
    /// ones. Both get the symbol: for linear, realtime requires symbol, baseCoin or
    /// settleCoin (order/open-order).
    async fn find_order(
        &self,
        symbol: &str,
        order_id: Option<&str>,
        link_id: &str,
    ) -> Result<Option<OrderRecord>, BybitHttpError> {
        let mut query = vec![
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
        ];
        match order_id {
            Some(id) => query.push(("orderId", id.to_string())),
            None => query.push(("orderLinkId", link_id.to_string())),
        }
        let live: Page<OrderRecord> = self.rest.get("/v5/order/realtime", &query).await?;
        if let Some(o) = live.list.into_iter().next() {
            return Ok(Some(o));
        }
        let old: Page<OrderRecord> = self.rest.get("/v5/order/history", &query).await?;
        Ok(old.list.into_iter().next())
    }

    /// Waits until the order is done (market orders finish at once; Bybit may take a
    /// moment to report it).
    async fn done_order(&self, symbol: &str, order_id: &str) -> Result<OrderRecord, VenueError> {
        let deadline = tokio::time::Instant::now() + self.config.fill_wait;
        loop {
            let found = self
                .find_order(symbol, Some(order_id), "")
                .await
                .map_err(|e| self.error(e))?;
            match found {
                Some(o) if o.is_done() => return Ok(o),
                _ if tokio::time::Instant::now() >= deadline => {
                    return Err(VenueError::Network(format!(
                        "Bybit accepted order {order_id} but did not report its fill in time"
                    )))
                }
                _ => tokio::time::sleep(POLL).await,
            }
        }
    }

    /// The closed-pnl rows of `symbol` around `ts_ms`.
    async fn closed_rows_near(
        &self,
        symbol: &str,
        ts_ms: i64,
    ) -> Result<Vec<ClosedPnlRow>, BybitHttpError> {
        let query = vec![
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
            ("startTime", (ts_ms - 3_600_000).to_string()),
            ("endTime", (ts_ms + 3_600_000).to_string()),
            ("limit", "100".to_string()),
        ];
        self.all_pages("/v5/position/closed-pnl", query).await
    }

    /// The closed pnl of order `order` (Bybit books it a moment after the fill).
    async fn closed_row_of(&self, order: &OrderRecord) -> Result<ClosedPnlRow, VenueError> {
        let deadline = tokio::time::Instant::now() + self.config.fill_wait;
        loop {
            let rows = self
                .closed_rows_near(&order.symbol, order.ts_ms())
                .await
                .map_err(|e| self.error(e))?;
            if let Some(row) = rows.into_iter().find(|r| r.order_id == order.order_id) {
                return Ok(row);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(VenueError::Network(format!(
                    "Bybit has not booked the closed pnl of order {} yet",
                    order.order_id
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn position_qty(&self, symbol: &str) -> Result<Decimal, VenueError> {
        let query = [
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
        ];
        let page: Page<PositionRecord> = self
            .rest
            .get("/v5/position/list", &query)
            .await
            .map_err(|e| self.error(e))?;
        let mut qty = Decimal::ZERO;
        for p in &page.list {
            if let Some(pos) = p.to_position().map_err(|e| self.error(e))? {
                qty += pos.qty;
            }
        }
        Ok(qty)
    }

    /// The trading fee of an order: the sum of its executions' execFee
    /// (/v5/execution/list). An order's cumExecFee is deprecated for linear and not read.
    async fn order_fee(&self, order: &OrderRecord) -> Result<Decimal, BybitHttpError> {
        let query = vec![
            ("category", "linear".to_string()),
            ("symbol", order.symbol.clone()),
            ("orderId", order.order_id.clone()),
            ("limit", "100".to_string()),
        ];
        let executions: Vec<ExecutionRecord> = self.all_pages("/v5/execution/list", query).await?;
        let mut fee = Decimal::ZERO;
        for e in executions
            .iter()
            .filter(|e| e.order_id == order.order_id && !e.is_funding())
        {
            fee += opt_dec("execFee", &e.exec_fee)?;
        }
        Ok(fee)
    }

    async fn fill_of(
        &self,
        order: &OrderRecord,
        realized_pnl: Decimal,
    ) -> Result<Fill, BybitHttpError> {
        Ok(Fill {
            order_id: order.order_id.clone(),
            client_order_id: order.order_link_id.clone(),
            symbol: order.symbol.clone(),
            side: order.side()?,
            qty: order.executed_qty()?,
            price: order.avg_price()?,
            fee: self.order_fee(order).await?,
            realized_pnl,
            reduce_only: order.reduce_only,
            ts_ms: order.ts_ms(),
        })
    }

    /// A close from a closed-pnl row's own fields. The closing order, where Bybit still
    /// knows it, gives the reason (its stopOrderType / createType); without it (older than
    /// the order history) the reason comes from the row: execType BustTrade is a
    /// liquidation, anything else is booked as `Manual` without a client order id, a close
    /// the bot cannot attribute (Bybit's row does not say whether a stop triggered it).
    /// The fee is the row's closeFee, or, for a row without it, the order's executions.
    async fn close_of(
        &self,
        order: Option<&OrderRecord>,
        row: &ClosedPnlRow,
        remaining_qty: Decimal,
    ) -> Result<PositionClose, BybitHttpError> {
        let reason = match order.map(OrderRecord::close_reason) {
            _ if row.exec_type == "BustTrade" => CloseReason::Liquidation,
            Some(r) => r,
            None => CloseReason::Manual,
        };
        let fee = match (row.close_fee.is_empty(), order) {
            (false, _) => dec("closeFee", &row.close_fee)?,
            (true, Some(o)) => self.order_fee(o).await?,
            (true, None) => Decimal::ZERO,
        };
        let link = order.map(|o| o.order_link_id.clone()).unwrap_or_default();
        Ok(PositionClose {
            position_id: String::new(),
            close_id: row.order_id.clone(),
            symbol: row.symbol.clone(),
            side: row.position_side()?,
            reason,
            qty: dec("closedSize", &row.closed_size)?,
            entry_price: dec("avgEntryPrice", &row.avg_entry_price)?,
            exit_price: dec("avgExitPrice", &row.avg_exit_price)?,
            realized_pnl: dec("closedPnl", &row.closed_pnl)?,
            fee,
            remaining_qty,
            client_order_id: (reason == CloseReason::Manual && !link.is_empty()).then_some(link),
            ts_ms: row.ts_ms(),
        })
    }

    /// The events a finished order stands for: a fill for the client's own orders, and a
    /// close for every order that reduced a position.
    async fn events_of(&self, order: &OrderRecord) -> Result<Vec<VenueEvent>, VenueError> {
        let own = order.close_reason() == CloseReason::Manual;
        let closes = !own || order.reduce_only;
        let (row, remaining) = if closes {
            let row = self.closed_row_of(order).await?;
            (Some(row), self.position_qty(&order.symbol).await?)
        } else {
            (None, Decimal::ZERO)
        };
        let mut events = Vec::new();
        let realized = match &row {
            Some(r) => dec("closedPnl", &r.closed_pnl).map_err(|e| self.error(e))?,
            None => Decimal::ZERO,
        };
        if own {
            let fill = self
                .fill_of(order, realized)
                .await
                .map_err(|e| self.error(e))?;
            events.push(VenueEvent::Fill(fill));
        }
        if let Some(row) = &row {
            let close = self
                .close_of(Some(order), row, remaining)
                .await
                .map_err(|e| self.error(e))?;
            events.push(VenueEvent::PositionClosed(close));
        }
        Ok(events)
    }

    /// Turns a finished order into its events, once.
    async fn on_order(&self, tracker: &mut Tracker, order: OrderRecord) -> bool {
        if !(order.category.is_empty() || order.category == "linear") || !order.is_done() {
            return true;
        }
        if tracker.seen.contains(&order.order_id) {
            return true;
        }
        if order.executed_qty().map_or(true, |q| q.is_zero()) {
            tracker.remember(&order.order_id);
            return true;
        }
        match self.events_of(&order).await {
            Ok(events) => {
                tracker.remember(&order.order_id);
                for event in events {
                    if let VenueEvent::PositionClosed(c) = &event {
                        tracing::info!(
                            symbol = %c.symbol, reason = ?c.reason, qty = %c.qty,
                            exit_price = %c.exit_price, pnl = %c.realized_pnl,
                            "bybit position closed"
                        );
                    }
                    // Nobody listening is fine: events are for whoever subscribed.
                    let _ = self.events.send(event);
                }
                true
            }
            Err(e) => {
                tracing::warn!(order_id = %order.order_id, error = %e, "bybit order not turned into events yet; the next resync tries again");
                false
            }
        }
    }

    async fn on_push(&self, topic: &str, data: Value) {
        for item in read_push_items(topic, data) {
            match item {
                Ok(PushItem::Order(order)) => {
                    let mut tracker = self.tracker.lock().await;
                    self.on_order(&mut tracker, order).await;
                }
                // An execution whose order push is missing still gets its order read.
                Ok(PushItem::Execution { order_id, symbol }) => {
                    let mut tracker = self.tracker.lock().await;
                    if tracker.seen.contains(&order_id) {
                        continue;
                    }
                    if let Ok(Some(order)) = self.find_order(&symbol, Some(&order_id), "").await {
                        self.on_order(&mut tracker, order).await;
                    }
                }
                Ok(PushItem::Funding(payment)) => {
                    let mut tracker = self.tracker.lock().await;
                    self.send_funding(&mut tracker, payment);
                }
                Ok(PushItem::Wallet(wallet)) => {
                    let _ = self.events.send(VenueEvent::Wallet(wallet));
                }
                Err(e) => tracing::warn!(error = %e, "unreadable bybit push"),
            }
        }
    }

    async fn resync_logged(&self) {
        if let Err(e) = self.resync().await {
            tracing::warn!(error = %e, "bybit resync incomplete; the next one tries again");
        }
    }

    /// Reads the order history since the last resync and turns every finished order not
    /// seen yet into its events, sends the funding settlements not seen yet; then the
    /// wallet. An order that could not be turned into its events yet, or settlements that
    /// could not be read, make it an error (the next resync reads them again).
    async fn resync(&self) -> Result<(), VenueError> {
        let mut tracker = self.tracker.lock().await;
        let started = self.rest.now_ms();
        let mut start = tracker.resync_from_ms - RESYNC_OVERLAP_MS;
        let mut orders: Vec<OrderRecord> = Vec::new();
        while start <= started {
            let end = (start + SEVEN_DAYS_MS - 1).min(started + RESYNC_OVERLAP_MS);
            let query = vec![
                ("category", "linear".to_string()),
                ("startTime", start.to_string()),
                ("endTime", end.to_string()),
                ("limit", "50".to_string()),
            ];
            let page = self
                .all_pages("/v5/order/history", query)
                .await
                .map_err(|e| self.error(e))?;
            orders.extend(page);
            start = end + 1;
        }
        orders.sort_by_key(|o| o.ts_ms());
        let mut complete = true;
        for order in orders {
            complete &= self.on_order(&mut tracker, order).await;
        }
        if !complete {
            return Err(VenueError::Network(
                "Bybit has not reported every finished order in full yet".into(),
            ));
        }
        let from = tracker.resync_from_ms - RESYNC_OVERLAP_MS;
        let payments = self
            .fundings(None, from, started + RESYNC_OVERLAP_MS)
            .await
            .map_err(|e| self.error(e))?;
        for payment in payments {
            self.send_funding(&mut tracker, payment);
        }
        tracker.resync_from_ms = started;
        drop(tracker);
        let wallet = self.wallet().await?;
        let _ = self.events.send(VenueEvent::Wallet(wallet));
        Ok(())
    }

    async fn wallet(&self) -> Result<Wallet, VenueError> {
        let query = [("accountType", "UNIFIED".to_string())];
        let page: Page<WalletRecord> = self
            .rest
            .get("/v5/account/wallet-balance", &query)
            .await
            .map_err(|e| self.error(e))?;
        let record = page.list.first().ok_or_else(|| VenueError::Exchange {
            code: -1,
            message: "Bybit returned no unified account: demo trading and the bot need a Unified Trading Account".into(),
        })?;
        record.to_wallet().map_err(|e| self.error(e))
    }

    /// The fill of an acknowledged order once it is done: `Ok(Err(_))` when Bybit says it
    /// did not execute (a real rejection), `Err(_)` when its outcome could not be read.
    async fn fill_of_done(
        &self,
        symbol: &str,
        order_id: &str,
    ) -> Result<Result<Fill, VenueError>, VenueError> {
        let done = self.done_order(symbol, order_id).await?;
        self.fill_of_finished(&done).await
    }

    async fn fill_of_finished(
        &self,
        done: &OrderRecord,
    ) -> Result<Result<Fill, VenueError>, VenueError> {
        let qty = done.executed_qty().map_err(|e| self.error(e))?;
        if qty.is_zero() {
            return Ok(Err(VenueError::Exchange {
                code: -1,
                message: format!(
                    "Bybit did not execute the order ({}: {})",
                    done.order_status, done.reject_reason
                ),
            }));
        }
        let realized = if done.reduce_only {
            let row = self.closed_row_of(done).await?;
            dec("closedPnl", &row.closed_pnl).map_err(|e| self.error(e))?
        } else {
            Decimal::ZERO
        };
        Ok(Ok(self
            .fill_of(done, realized)
            .await
            .map_err(|e| self.error(e))?))
    }

    /// Settles an order Bybit acknowledged but whose outcome could not be read (`error`):
    /// by its orderLinkId, from the stream's fill and then over REST, until `fill_wait`.
    /// Still unknown then, the error is a retryable one, never a rejection: the caller keeps
    /// the order pending and reconciliation settles it by its orderLinkId.
    async fn settle(
        &self,
        order: &OrderRequest,
        events: &mut broadcast::Receiver<VenueEvent>,
        error: VenueError,
    ) -> Result<Fill, VenueError> {
        tracing::warn!(
            client_order_id = %order.client_order_id, error = %error,
            "bybit acknowledged the order but its outcome could not be read; settling it by orderLinkId"
        );
        let deadline = tokio::time::Instant::now() + self.config.fill_wait;
        loop {
            loop {
                match events.try_recv() {
                    Ok(VenueEvent::Fill(fill)) if fill.client_order_id == order.client_order_id => {
                        return Ok(fill)
                    }
                    Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                    Err(_) => break,
                }
            }
            if let Ok(Some(found)) = self
                .find_order(&order.symbol, None, &order.client_order_id)
                .await
            {
                if found.is_done() {
                    if let Ok(outcome) = self.fill_of_finished(&found).await {
                        return outcome;
                    }
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(VenueError::Network(format!(
                    "Bybit accepted order {} but its outcome could not be read yet ({error}): it stays pending and is settled by its orderLinkId",
                    order.client_order_id
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The order that opened `position` from flat, if the order history (its default last
    /// 7 days) still holds it: walking the symbol's executed orders from the newest back,
    /// the one that takes the position's size to zero. Bybit's position list does not say
    /// when the current position opened (its createdTime is the symbol's first position
    /// ever), so this is where its open time and id come from.
    async fn opening_order(
        &self,
        position: &Position,
    ) -> Result<Option<OrderRecord>, BybitHttpError> {
        let query = vec![
            ("category", "linear".to_string()),
            ("symbol", position.symbol.clone()),
            ("limit", "50".to_string()),
        ];
        let mut orders: Vec<OrderRecord> = self.all_pages("/v5/order/history", query).await?;
        orders.sort_by_key(|o| std::cmp::Reverse(o.ts_ms()));
        let mut left = match position.side {
            signaldesk_core::market::PositionSide::Long => position.qty,
            signaldesk_core::market::PositionSide::Short => -position.qty,
        };
        for order in orders {
            let qty = order.executed_qty()?;
            if !order.is_done() || qty.is_zero() {
                continue;
            }
            left -= match order.side()? {
                signaldesk_core::market::Side::Buy => qty,
                signaldesk_core::market::Side::Sell => -qty,
            };
            if left.is_zero() {
                return Ok(Some(order));
            }
        }
        Ok(None)
    }

    /// Sends the order, resolving an unknown outcome by its orderLinkId; its order id.
    async fn place(&self, order: &OrderRequest, body: &Value) -> Result<String, VenueError> {
        let mut backoff = self.config.backoff;
        let mut attempt = 1;
        loop {
            let error = match self
                .rest
                .post::<CreatedOrder>("/v5/order/create", body, Retry::RefusedOnly)
                .await
            {
                Ok(created) => return Ok(created.order_id),
                Err(e) => e,
            };
            let duplicate = matches!(&error, BybitHttpError::Api { code, .. } if *code == DUPLICATE_ORDER_LINK_ID);
            if !duplicate && !is_transient(&error) {
                return Err(self.error(error));
            }
            tracing::warn!(
                client_order_id = %order.client_order_id,
                error = %error,
                "bybit order submit outcome unknown; looking it up by orderLinkId"
            );
            match self
                .find_order(&order.symbol, None, &order.client_order_id)
                .await
            {
                Ok(Some(found)) => return Ok(found.order_id),
                Ok(None) if duplicate => {
                    return Err(VenueError::InvalidRequest(format!(
                        "client order id {} was already used on Bybit",
                        order.client_order_id
                    )))
                }
                Ok(None) | Err(_) if attempt < self.config.attempts => {}
                Ok(None) => return Err(self.error(error)),
                Err(e) => return Err(self.error(e)),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(self.config.max_backoff);
            attempt += 1;
        }
    }
}

fn stop_value(level: Option<Decimal>) -> String {
    level.map_or_else(|| "0".to_string(), |d| d.normalize().to_string())
}

#[async_trait]
impl Venue for BybitVenue {
    async fn instrument(&self, symbol: &str) -> Result<Instrument, VenueError> {
        self.shared.instrument(symbol).await
    }

    async fn set_leverage(&self, symbol: &str, leverage: u32) -> Result<(), VenueError> {
        let instrument = self.shared.instrument(symbol).await?;
        if leverage == 0 || leverage > instrument.max_leverage {
            return Err(VenueError::LeverageNotAllowed {
                symbol: symbol.to_string(),
                leverage,
                reason: format!("it must be between 1 and {}", instrument.max_leverage),
            });
        }
        let body = json!({
            "category": "linear",
            "symbol": symbol,
            "buyLeverage": leverage.to_string(),
            "sellLeverage": leverage.to_string(),
        });
        match self
            .shared
            .rest
            .post::<Value>("/v5/position/set-leverage", &body, Retry::Transient)
            .await
        {
            Ok(_) => Ok(()),
            Err(BybitHttpError::Api { code, .. }) if code == LEVERAGE_NOT_MODIFIED => Ok(()),
            Err(BybitHttpError::Api {
                code: 110013,
                message,
            }) => Err(VenueError::LeverageNotAllowed {
                symbol: symbol.to_string(),
                leverage,
                reason: message,
            }),
            Err(e) => Err(self.shared.error(e)),
        }
    }

    async fn submit_market_order(&self, order: OrderRequest) -> Result<Fill, VenueError> {
        validate_client_order_id(&order.client_order_id)?;
        let instrument = self.shared.instrument(&order.symbol).await?;
        if order.qty <= Decimal::ZERO || !instrument.is_on_step(order.qty) {
            return Err(VenueError::InvalidRequest(format!(
                "quantity {} is not a positive multiple of the quantity step {} of {}",
                order.qty, instrument.qty_step, instrument.symbol
            )));
        }
        let below = |qty| VenueError::QtyBelowMinimum {
            symbol: order.symbol.clone(),
            qty,
            min_qty: instrument.min_qty,
            min_notional: instrument.min_notional,
        };
        if !order.reduce_only && order.qty < instrument.min_qty {
            return Err(below(order.qty));
        }
        let body = json!({
            "category": "linear",
            "symbol": order.symbol,
            "side": side_name(order.side),
            "orderType": "Market",
            "qty": order.qty.normalize().to_string(),
            "orderLinkId": order.client_order_id,
            "reduceOnly": order.reduce_only,
            "positionIdx": 0,
        });
        // Subscribed before the order goes out: its fill may come through the stream only.
        let mut events = self.shared.events.subscribe();
        let order_id = match self.shared.place(&order, &body).await {
            Err(VenueError::Exchange { code: 110094, .. }) => return Err(below(order.qty)),
            other => other?,
        };
        // Bybit has acknowledged the order: from here on nothing is a rejection unless Bybit
        // says the order did not execute. Whatever else fails is settled by the orderLinkId.
        let fill = match self.shared.fill_of_done(&order.symbol, &order_id).await {
            Ok(Ok(fill)) => fill,
            Ok(Err(not_executed)) => return Err(not_executed),
            Err(error) => self.shared.settle(&order, &mut events, error).await?,
        };
        tracing::info!(
            symbol = %fill.symbol, side = ?fill.side, qty = %fill.qty, price = %fill.price,
            reduce_only = fill.reduce_only, "bybit order filled"
        );
        Ok(fill)
    }

    async fn set_stops(&self, symbol: &str, stops: Stops) -> Result<(), VenueError> {
        let mut body = json!({
            "category": "linear",
            "symbol": symbol,
            "tpslMode": "Full",
            "positionIdx": 0,
            "stopLoss": stop_value(stops.stop_loss),
            "takeProfit": stop_value(stops.take_profit),
            "trailingStop": stop_value(stops.trailing.as_ref().map(|t| t.distance)),
            "tpTriggerBy": "LastPrice",
            "slTriggerBy": "LastPrice",
        });
        if let Some(active) = stops.trailing.as_ref().and_then(|t| t.activation_price) {
            body["activePrice"] = json!(active.normalize().to_string());
        }
        match self
            .shared
            .rest
            .post::<Value>("/v5/position/trading-stop", &body, Retry::Transient)
            .await
        {
            Ok(_) => Ok(()),
            Err(BybitHttpError::Api { code, .. }) if code == STOPS_NOT_MODIFIED => Ok(()),
            Err(BybitHttpError::Api {
                code: 10001,
                message,
            }) if message.contains("zero position") => {
                Err(VenueError::NoPosition(symbol.to_string()))
            }
            Err(e) => Err(self.shared.error(e)),
        }
    }

    async fn positions(&self) -> Result<Vec<Position>, VenueError> {
        let query = vec![
            ("category", "linear".to_string()),
            ("settleCoin", "USDT".to_string()),
            ("limit", "200".to_string()),
        ];
        let records: Vec<PositionRecord> = self
            .shared
            .all_pages("/v5/position/list", query)
            .await
            .map_err(|e| self.shared.error(e))?;
        let mut out = Vec::new();
        for r in &records {
            if let Some(mut p) = r.to_position().map_err(|e| self.shared.error(e))? {
                let opening = self
                    .shared
                    .opening_order(&p)
                    .await
                    .map_err(|e| self.shared.error(e))?;
                if let Some(o) = opening {
                    p.opened_at_ms = o.ts_ms();
                    p.position_id = o.order_link_id;
                }
                out.push(p);
            }
        }
        Ok(out)
    }

    async fn wallet(&self) -> Result<Wallet, VenueError> {
        self.shared.wallet().await
    }

    /// Bybit's closed pnl since `since_ms` (at most the two years Bybit keeps), each with
    /// its order's reason and closing fee. Bybit does not say what was left open after a
    /// historic close: `remaining_qty` is zero here (live events carry the real figure).
    /// The position's opening order (by its orderLinkId, the position id) gives the venue's
    /// own time it opened and the quantity; the symbol's closed-pnl rows from that moment on,
    /// in Bybit's order, belong to that position until they add up to its quantity (one-way
    /// mode: a symbol holds one position at a time, and the bot never adds to one).
    async fn position_closes(
        &self,
        symbol: &str,
        position_id: &str,
    ) -> Result<Vec<PositionClose>, VenueError> {
        let shared = &self.shared;
        let Some(opening) = shared
            .find_order(symbol, None, position_id)
            .await
            .map_err(|e| shared.error(e))?
        else {
            return Ok(Vec::new());
        };
        let opened_qty = opening.executed_qty().map_err(|e| shared.error(e))?;
        if opened_qty.is_zero() {
            return Ok(Vec::new());
        }
        let now = shared.rest.now_ms();
        let query = vec![
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
            ("limit", "100".to_string()),
        ];
        let from = opening.ts_ms().max(now - KEPT_MS);
        let mut rows: Vec<ClosedPnlRow> = shared
            .windowed("/v5/position/closed-pnl", query, from, now)
            .await
            .map_err(|e| shared.error(e))?;
        rows.sort_by_key(|r| r.ts_ms());
        let mut out = Vec::new();
        let mut remaining = opened_qty;
        for row in rows.iter().filter(|r| r.symbol == symbol) {
            if remaining <= Decimal::ZERO {
                break;
            }
            // The closing order only adds the reason: past Bybit's order history it is gone,
            // and the row alone still books the close.
            let order = shared
                .find_order(symbol, Some(&row.order_id), "")
                .await
                .map_err(|e| shared.error(e))?;
            let mut close = shared
                .close_of(order.as_ref(), row, Decimal::ZERO)
                .await
                .map_err(|e| shared.error(e))?;
            remaining -= close.qty;
            close.remaining_qty = remaining.max(Decimal::ZERO);
            close.position_id = position_id.to_string();
            out.push(close);
        }
        Ok(out)
    }

    /// Every settlement of `symbol` from `from_ms` to now, read from /v5/execution/list
    /// (execType `Funding`) in spans of at most 7 days ("startTime and endTime are not
    /// passed, return 7 days by default"), no further back than Bybit keeps them.
    async fn funding_since(
        &self,
        symbol: &str,
        from_ms: i64,
    ) -> Result<Vec<FundingPayment>, VenueError> {
        let shared = &self.shared;
        shared
            .fundings(Some(symbol), from_ms, shared.rest.now_ms())
            .await
            .map_err(|e| shared.error(e))
    }

    /// The first tier of `GET /v5/market/risk-limit` for the symbol ("maintenanceMargin:
    /// Maintenance margin rate"), read again after [`INSTRUMENTS_TTL`].
    async fn maintenance_margin_rate(&self, symbol: &str) -> Result<Decimal, VenueError> {
        let shared = &self.shared;
        if let Some((rate, at)) = shared.risk().get(symbol) {
            if at.elapsed() < INSTRUMENTS_TTL {
                return Ok(*rate);
            }
        }
        let tiers = shared
            .market
            .risk_tiers(symbol)
            .await
            .map_err(|e| shared.error(e))?;
        let rate = tiers
            .first()
            .map(|t| t.maintenance_margin_rate)
            .ok_or_else(|| VenueError::UnknownSymbol(symbol.to_string()))?;
        shared
            .risk()
            .insert(symbol.to_string(), (rate, tokio::time::Instant::now()));
        Ok(rate)
    }

    fn max_slippage(&self, symbol: &str) -> Decimal {
        self.shared
            .config
            .market_price_limit
            .unwrap_or_else(|| market_order_price_limit(symbol))
    }

    fn subscribe(&self) -> broadcast::Receiver<VenueEvent> {
        self.shared.events.subscribe()
    }

    fn reconnects(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        Some(self.shared.reconnects.subscribe())
    }

    /// One GET /v5/position/list for the symbol. Bybit's "Get Position Info"
    /// (https://bybit-exchange.github.io/docs/v5/position, as its parameter table is quoted
    /// in the patisson-bybit-sdk docs on docs.rs): "symbol: Symbol name... If symbol passed,
    /// it returns data regardless of having position or not"; each entry carries the
    /// position's `stopLoss`, `takeProfit` and `trailingStop` (empty or "0" when none rests).
    /// The stops this client sets with POST /v5/position/trading-stop (tpslMode=Full) are
    /// held there, and a user who cancels the stop in Bybit's app clears them there, so the
    /// protection check reads them here, without the opening-order look-ups of `positions`.
    /// (The conditional orders of GET /v5/order/realtime, orderFilter=StopOrder, are not
    /// read: this client never places a stop as a separate order.)
    async fn resting_stops(&self, symbol: &str) -> Result<Option<Stops>, VenueError> {
        let query = [
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
        ];
        let page: Page<PositionRecord> = self
            .shared
            .rest
            .get("/v5/position/list", &query)
            .await
            .map_err(|e| self.shared.error(e))?;
        for record in &page.list {
            if let Some(p) = record.to_position().map_err(|e| self.shared.error(e))? {
                return Ok(Some(p.stops));
            }
        }
        Ok(None)
    }

    /// A resync now: every order Bybit has finished so far becomes its events (once, whether
    /// its push came already, comes later or never).
    async fn catch_up(&self) -> Result<(), VenueError> {
        self.shared.resync().await
    }
}
