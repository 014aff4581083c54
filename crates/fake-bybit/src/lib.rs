//! A fake Bybit V5 for the test suite: HTTP and the private and public websockets on
//! loopback, following the documented contract closely enough that the real client cannot
//! tell. It checks signatures and the recv window, counts per-endpoint rate limits (10006
//! and the `X-Bapi-Limit*` headers), keeps one account per API key (positions, balance,
//! orders, closed pnl, stops fired by the prices a test feeds in) and answers with Bybit's
//! shapes and error codes. The same prices make its public market: tickers, candles and
//! risk limits over REST, `tickers` and `kline` pushes on `/v5/public/linear`. Fault knobs
//! let a test slow an answer past the client's timeout, answer a 5xx or a retCode, drop the
//! streams, or hold back order pushes so a fill is only visible through REST.

mod auth;
mod exchange;
mod limits;
mod market;
mod public_stream;
mod rest;
mod stream;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rust_decimal::Decimal;
use signaldesk_core::market::{Instrument, Side};
use signaldesk_venue::paper::{PaperConfig, PositionState};
use signaldesk_venue::OrderRequest;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

pub use auth::hmac_hex;
use exchange::{Exchange, Push};
use limits::Limiter;
pub use market::{default_risk_tiers, RiskTier};
use market::{Market, MarketPush};

/// What the fake trades and how strictly it counts.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    pub instruments: Vec<Instrument>,
    /// Starting balance, fee rate, slippage and margin rules of every account.
    pub paper: PaperConfig,
    /// Requests per second per key and endpoint (Bybit's usual budget is 10 to 50).
    pub rate_limit_per_second: u32,
    /// The most rows one page of a list answers, whatever `limit` asks (small values
    /// make clients page).
    pub max_page: usize,
}

impl FakeConfig {
    /// `instruments` with the paper exchange's defaults, 50 requests a second and
    /// Bybit's page sizes.
    pub fn new(instruments: Vec<Instrument>) -> Self {
        Self {
            instruments,
            paper: PaperConfig::default(),
            rate_limit_per_second: 50,
            max_page: 1000,
        }
    }
}

/// An API key the fake knows.
#[derive(Debug, Clone)]
pub struct KeySpec {
    pub key: String,
    pub secret: String,
    /// A read-only key: trading calls answer 10005.
    pub read_only: bool,
    /// False: every call answers 10010 (the caller's IP is not bound to the key).
    pub ip_allowed: bool,
    /// The account's USDT perpetuals are in hedge mode (both sides): the position list
    /// answers positionIdx 1 and 2, and positionIdx 0 is refused.
    pub hedge_mode: bool,
    /// The permissions `GET /v5/user/query-api` reports, by group (a documented group not
    /// named here is reported `[]`). Reported only: the fake's other calls do not read them.
    pub permissions: BTreeMap<String, Vec<String>>,
    /// The addresses query-api reports the key bound to (`["*"]`: none).
    pub ips: Vec<String>,
}

impl KeySpec {
    /// A trading key as Signal Desk asks for it (docs/bybit.md): read-write, Contract Orders
    /// and Positions, nothing else, and, like a key made without an IP address, bound to
    /// none (`ips` `["*"]`).
    pub fn new(key: &str, secret: &str) -> Self {
        Self {
            key: key.into(),
            secret: secret.into(),
            read_only: false,
            ip_allowed: true,
            hedge_mode: false,
            permissions: BTreeMap::from([(
                "ContractTrade".to_string(),
                vec!["Order".to_string(), "Position".to_string()],
            )]),
            ips: vec!["*".into()],
        }
    }

    /// The key also holds `names` in `group` (e.g. `("Wallet", &["Withdraw"])`).
    pub fn with_permissions(mut self, group: &str, names: &[&str]) -> Self {
        let held = self.permissions.entry(group.to_string()).or_default();
        held.extend(names.iter().map(|n| n.to_string()));
        self
    }

    /// The key is bound to `ips` (what query-api reports; calls are not refused by address:
    /// that is [`KeySpec::ip_allowed`]).
    pub fn with_ips(mut self, ips: &[&str]) -> Self {
        self.ips = ips.iter().map(|ip| ip.to_string()).collect();
        self
    }
}

/// A fault the next matching request meets.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Carries the request out, then waits this long before answering (a lost answer when
    /// it exceeds the client's timeout).
    SlowAnswer(Duration),
    /// Answers this HTTP status without doing anything.
    Status(u16),
    /// Answers HTTP 200 with this retCode without doing anything.
    RetCode(i64, String),
    /// Answers this HTTP status with Bybit's envelope carrying this retCode (Bybit sends
    /// 10002 as HTTP 401, for one), without doing anything.
    StatusRetCode(u16, i64, String),
}

/// Counters a test can read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub requests: HashMap<String, u32>,
    /// Requests answered 10006 because their budget was spent (injected faults aside).
    pub rate_limited: u32,
    /// Private stream requests.
    pub ws_auths: u32,
    pub ws_subscribes: u32,
    pub ws_pings: u32,
    /// Public stream connections opened and their requests.
    pub public_ws_connections: u32,
    pub public_ws_subscribes: u32,
    pub public_ws_pings: u32,
}

struct State {
    exchange: Exchange,
    keys: HashMap<String, KeySpec>,
    clock_offset_ms: i64,
    faults: Vec<(String, Fault)>,
    /// Faults every request on the path meets until cleared.
    lasting_faults: HashMap<String, Fault>,
    limiter: Limiter,
    hold_order_pushes: bool,
    max_page: usize,
    stats: Stats,
    /// Tickers, candles and risk limits.
    market: Market,
}

pub(crate) struct Shared {
    state: Mutex<State>,
    pushes: broadcast::Sender<(String, Push)>,
    /// The public stream's pushes, sent under the state's lock (their `seq` order).
    market_pushes: broadcast::Sender<MarketPush>,
    /// Bumped to end every open private and public stream.
    generation: watch::Sender<u64>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn now_ms(&self) -> i64 {
        let offset = self.lock().clock_offset_ms;
        local_ms() + offset
    }

    fn publish(&self, key: &str, pushes: Vec<Push>) {
        let hold = self.lock().hold_order_pushes;
        for push in pushes {
            if hold && (push.topic == "order" || push.topic == "execution") {
                continue;
            }
            // Nobody listening is fine: pushes are for whoever is connected.
            let _ = self.pushes.send((key.to_string(), push));
        }
    }
}

fn local_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A running fake Bybit. Dropping it stops the server and its streams.
pub struct FakeBybit {
    shared: Arc<Shared>,
    addr: std::net::SocketAddr,
    server: JoinHandle<()>,
}

impl FakeBybit {
    /// Starts on 127.0.0.1 on a free port.
    pub async fn start(config: FakeConfig) -> std::io::Result<Self> {
        let (pushes, _) = broadcast::channel(1024);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                exchange: Exchange::new(config.paper, config.instruments),
                keys: HashMap::new(),
                clock_offset_ms: 0,
                faults: Vec::new(),
                lasting_faults: HashMap::new(),
                limiter: Limiter::new(config.rate_limit_per_second),
                hold_order_pushes: false,
                max_page: config.max_page.max(1),
                stats: Stats::default(),
                market: Market::default(),
            }),
            pushes,
            market_pushes: broadcast::channel(4096).0,
            generation: watch::channel(0).0,
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let app = rest::router(shared.clone());
        let server = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::warn!(error = %e, "fake bybit stopped");
            }
        });
        Ok(Self {
            shared,
            addr,
            server,
        })
    }

    /// REST base URL (`http://127.0.0.1:port`).
    pub fn rest_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Private stream URL (`ws://127.0.0.1:port/v5/private`).
    pub fn private_ws_url(&self) -> String {
        format!("ws://{}/v5/private", self.addr)
    }

    /// Public stream URL of USDT perpetuals (`ws://127.0.0.1:port/v5/public/linear`).
    pub fn public_ws_url(&self) -> String {
        format!("ws://{}/v5/public/linear", self.addr)
    }

    pub fn add_key(&self, key: KeySpec) {
        self.shared.lock().keys.insert(key.key.clone(), key);
    }

    /// The fake's clock runs `offset_ms` ahead of this machine's (negative: behind).
    pub fn set_clock_offset_ms(&self, offset_ms: i64) {
        self.shared.lock().clock_offset_ms = offset_ms;
    }

    /// The fake's server time, Unix ms.
    pub fn now_ms(&self) -> i64 {
        self.shared.now_ms()
    }

    /// A new last price, a trade of the public market: stops, trailing stops and
    /// liquidations fire on it, the ticker moves (a `tickers` delta) and so does the open
    /// candle of every interval (a `kline` push with `confirm: false`; a candle whose time is
    /// over closes first, `confirm: true`).
    pub fn set_price(&self, symbol: &str, price: Decimal) {
        let now = self.shared.now_ms();
        let pushes = {
            let mut state = self.shared.lock();
            let pushes = state.exchange.set_price(symbol, price, now);
            let State {
                exchange, market, ..
            } = &mut *state;
            for push in market.on_price(exchange, symbol, price, now) {
                // Nobody listening is fine.
                let _ = self.shared.market_pushes.send(push);
            }
            pushes
        };
        for (key, push) in pushes {
            self.shared.publish(&key, vec![push]);
        }
    }

    /// The 1-minute candles `/v5/market/kline` serves for `symbol` (added to those it has).
    pub fn add_klines(&self, symbol: &str, candles: &[signaldesk_core::market::Candle]) {
        self.shared.lock().market.add_klines(symbol, 1, candles);
    }

    /// Settled funding rates `(settlement time, rate)` of `symbol` that
    /// `/v5/market/funding/history` serves (added to those it has).
    pub fn add_funding_history(&self, symbol: &str, rates: &[(i64, Decimal)]) {
        self.shared.lock().market.add_funding_history(symbol, rates);
    }

    /// Closes `candle` of `symbol` on the `interval_minutes` interval (1, 3, 5, 15, 30, 60,
    /// 120, 240, 360, 720, 1440 or 10080), as Bybit does when its time is over: it is pushed
    /// with `confirm: true` on `kline.{interval}.{symbol}` and `/v5/market/kline` serves it
    /// from now on. The candle still open closes before it when it opened earlier (candles
    /// close in order) and is replaced by it when it opened at the same time; the next one
    /// opens after it. Panics on an interval Bybit does not have or an open time that is not
    /// on the interval's boundary.
    pub fn close_kline(
        &self,
        symbol: &str,
        interval_minutes: u32,
        candle: signaldesk_core::market::Candle,
    ) {
        assert!(
            market::interval_name(interval_minutes).is_some(),
            "Bybit has no {interval_minutes}-minute candles"
        );
        assert_eq!(
            market::bucket_start(candle.open_time_ms, interval_minutes),
            candle.open_time_ms,
            "a {interval_minutes}-minute candle opens on its interval's boundary"
        );
        let now = self.shared.now_ms();
        let mut state = self.shared.lock();
        for push in state
            .market
            .close_kline(symbol, interval_minutes, candle, now)
        {
            let _ = self.shared.market_pushes.send(push);
        }
    }

    /// The 24-hour turnover (USDT) `symbol`'s ticker reports; its `volume24h` is this at
    /// the last price. Zero until set.
    pub fn set_turnover_24h(&self, symbol: &str, turnover: Decimal) {
        self.shared.lock().market.set_turnover_24h(symbol, turnover);
    }

    /// The funding rate `symbol`'s ticker reports (0.0001 until set).
    pub fn set_funding_rate(&self, symbol: &str, rate: Decimal) {
        self.shared.lock().market.set_funding_rate(symbol, rate);
    }

    /// Settles funding on `symbol` at `rate` at `at_ms` (Bybit time), as Bybit does at the end
    /// of each funding interval: every account holding a position there gets an execution
    /// with execType `Funding` (execFee = size x mark x rate, positive paid: a long on a
    /// positive rate pays, a short receives), its wallet balance moves by -execFee, and the
    /// `execution` and `wallet` topics push it; /v5/execution/list serves it from then on.
    pub fn settle_funding(&self, symbol: &str, rate: Decimal, at_ms: i64) {
        let pushes = self
            .shared
            .lock()
            .exchange
            .settle_funding(symbol, rate, at_ms);
        for (key, push) in pushes {
            self.shared.publish(&key, vec![push]);
        }
    }

    /// The tiers `/v5/market/risk-limit` answers for `symbol`, lowest risk first (until
    /// set: [`default_risk_tiers`] of the instrument).
    pub fn set_risk_tiers(&self, symbol: &str, tiers: Vec<RiskTier>) {
        self.shared.lock().market.set_risk_tiers(symbol, tiers);
    }

    /// The next request on `path` meets `fault` (faults queue up in order).
    pub fn fault_next(&self, path: &str, fault: Fault) {
        self.shared.lock().faults.push((path.to_string(), fault));
    }

    /// Every request on `path` meets `fault` until [`FakeBybit::clear_fault`] (after the
    /// queued one-off faults of [`FakeBybit::fault_next`]).
    pub fn fault_always(&self, path: &str, fault: Fault) {
        self.shared
            .lock()
            .lasting_faults
            .insert(path.to_string(), fault);
    }

    /// Ends the lasting fault on `path`.
    pub fn clear_fault(&self, path: &str) {
        self.shared.lock().lasting_faults.remove(path);
    }

    /// The stop loss of `key`'s open position on `symbol`, if it has one.
    pub fn stop_loss(&self, key: &str, symbol: &str) -> Option<Decimal> {
        self.read_position(key, symbol, |p| p.stop_loss).flatten()
    }

    /// The user cancels the stop loss (and the trailing stop) of `key`'s `symbol` position
    /// in Bybit's app, behind the bot's back: the position keeps no stop, and the `position`
    /// push that Bybit sends for a TP/SL change goes out. Answers whether there was a
    /// position to act on.
    pub fn cancel_stops_by_hand(&self, key: &str, symbol: &str) -> bool {
        let pushes = {
            let mut state = self.shared.lock();
            let Some(position) = state
                .exchange
                .accounts
                .get_mut(key)
                .and_then(|a| a.snapshot.positions.get_mut(symbol))
            else {
                return false;
            };
            position.stop_loss = None;
            position.trailing = None;
            vec![exchange::Push {
                topic: "position",
                data: serde_json::json!([state.exchange.position_json(key, symbol)]),
            }]
        };
        self.shared.publish(key, pushes);
        true
    }

    /// While on, every POST /v5/position/trading-stop is refused with retCode 10001 (as
    /// Bybit refuses a stop it will not take), so a stop cannot be put back.
    pub fn refuse_stops(&self, refuse: bool) {
        const PATH: &str = "/v5/position/trading-stop";
        if refuse {
            self.fault_always(
                PATH,
                Fault::RetCode(10001, "params error: the stop loss cannot be set".into()),
            );
        } else {
            self.clear_fault(PATH);
        }
    }

    /// Bybit no longer reports order `order_id` of `key` by id (as an order past its order
    /// history); its closed pnl stays.
    pub fn forget_order(&self, key: &str, order_id: &str) {
        if let Some(a) = self.shared.lock().exchange.accounts.get_mut(key) {
            a.forgotten.push(order_id.to_string());
        }
    }

    /// Market orders on `symbol` above `qty` are refused (lotSizeFilter.maxMktOrderQty).
    pub fn set_max_market_qty(&self, symbol: &str, qty: Decimal) {
        self.shared
            .lock()
            .exchange
            .max_market_qty
            .insert(symbol.to_string(), qty);
    }

    /// The next market order on `symbol` executes at most `qty` and ends
    /// `PartiallyFilledCanceled`, as one stopped by its price limit.
    pub fn fill_at_most_next(&self, symbol: &str, qty: Decimal) {
        self.shared
            .lock()
            .exchange
            .fill_at_most
            .insert(symbol.to_string(), qty);
    }

    /// Requests per second allowed on `path` from now on.
    pub fn set_rate_limit(&self, path: &str, per_second: u32) {
        self.shared
            .lock()
            .limiter
            .overrides
            .insert(path.to_string(), per_second);
    }

    /// While on, `order` and `execution` pushes are not sent (the fills stay visible
    /// through REST).
    pub fn hold_order_pushes(&self, hold: bool) {
        self.shared.lock().hold_order_pushes = hold;
    }

    /// Ends every open private and public stream, as a network drop would.
    pub fn drop_streams(&self) {
        self.shared.generation.send_modify(|g| *g += 1);
    }

    pub fn stats(&self) -> Stats {
        self.shared.lock().stats.clone()
    }

    /// Requests seen on `path` (rate-limited ones included).
    pub fn requests(&self, path: &str) -> u32 {
        self.stats().requests.get(path).copied().unwrap_or(0)
    }

    /// Open position size of `key` on `symbol` (zero when none).
    pub fn position_qty(&self, key: &str, symbol: &str) -> Decimal {
        self.read_position(key, symbol, |p| p.qty)
            .unwrap_or(Decimal::ZERO)
    }

    /// `read` of `key`'s open position on `symbol`, if there is one.
    fn read_position<R>(
        &self,
        key: &str,
        symbol: &str,
        read: impl FnOnce(&PositionState) -> R,
    ) -> Option<R> {
        let state = self.shared.lock();
        let account = state.exchange.accounts.get(key)?;
        account.snapshot.positions.get(symbol).map(read)
    }

    /// A market order placed by hand on Bybit's website (no orderLinkId): it fills at the
    /// last price and its pushes go out like any other order's.
    pub fn order_by_hand(&self, key: &str, symbol: &str, side: Side, qty: Decimal) {
        let now = self.shared.now_ms();
        let order = OrderRequest {
            client_order_id: String::new(),
            symbol: symbol.to_string(),
            side,
            qty,
            reduce_only: false,
        };
        let created = self.shared.lock().exchange.create_order(key, &order, now);
        match created {
            Ok((_, pushes)) => self.shared.publish(key, pushes),
            Err(reject) => panic!("the order by hand was refused: {reject:?}"),
        }
    }

    /// Where the trailing stop of `key`'s `symbol` position stands, once it has activated.
    pub fn trailing_stop_price(&self, key: &str, symbol: &str) -> Option<Decimal> {
        self.read_position(key, symbol, |p| {
            p.trailing.as_ref().and_then(|t| t.stop_price)
        })
        .flatten()
    }

    /// Filled orders of `key`.
    pub fn order_count(&self, key: &str) -> usize {
        self.shared
            .lock()
            .exchange
            .accounts
            .get(key)
            .map_or(0, |a| a.orders.len())
    }

    /// Wallet balance of `key` (the starting balance before its first call).
    pub fn wallet_balance(&self, key: &str) -> Decimal {
        let state = self.shared.lock();
        state
            .exchange
            .accounts
            .get(key)
            .map_or(state.exchange.config.starting_balance, |a| {
                a.snapshot.wallet_balance
            })
    }
}

impl Drop for FakeBybit {
    fn drop(&mut self) {
        self.drop_streams();
        self.server.abort();
    }
}
