//! The REST side: one route table, the authentication gate every private call passes, and
//! one handler per endpoint answering Bybit's envelope
//! `{"retCode","retMsg","result","retExtInfo","time"}`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use signaldesk_core::market::Side;
use signaldesk_venue::OrderRequest;

use crate::exchange::{Push, Reject};
use crate::limits::LimitStatus;
use crate::market::interval_minutes;
use crate::{auth, public_stream, stream, Fault, Shared};

const SEVEN_DAYS_MS: i64 = 7 * 24 * 3600 * 1000;

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v5/private", any(stream::upgrade))
        .route("/v5/public/linear", any(public_stream::upgrade))
        .fallback(handle)
        .with_state(shared)
}

type Query = HashMap<String, String>;

fn parse_query(raw: &str) -> Query {
    raw.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_string(), percent_decode(v)))
        .collect()
}

/// One round of URL percent-decoding.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Bybit's cursors are opaque and come percent-encoded (`page_token%3D39380%26`, as in
/// order/order-list): sent back as given (so encoded once more on the wire) they are read
/// here; a cursor the fake never gave is refused.
fn cursor_offset(cursor: &str) -> Result<usize, Reject> {
    let mut decoded = cursor.to_string();
    for _ in 0..3 {
        if let Some(n) = decoded
            .strip_prefix("page_token=")
            .and_then(|r| r.strip_suffix('&'))
        {
            return n
                .parse()
                .map_err(|_| Reject::new(10001, "params error: cursor"));
        }
        decoded = percent_decode(&decoded);
    }
    Err(Reject::new(10001, "params error: cursor"))
}

fn envelope(now_ms: i64, result: Result<Value, Reject>) -> Value {
    match result {
        Ok(result) => json!({
            "retCode": 0, "retMsg": "OK", "result": result, "retExtInfo": {}, "time": now_ms,
        }),
        Err(r) => json!({
            "retCode": r.code, "retMsg": r.message, "result": {}, "retExtInfo": {}, "time": now_ms,
        }),
    }
}

fn answer(now_ms: i64, result: Result<Value, Reject>, limit: Option<LimitStatus>) -> Response {
    let mut response = axum::Json(envelope(now_ms, result)).into_response();
    if let Some(l) = limit {
        let headers = response.headers_mut();
        for (name, value) in [
            ("X-Bapi-Limit", l.limit.to_string()),
            ("X-Bapi-Limit-Status", l.remaining.to_string()),
            ("X-Bapi-Limit-Reset-Timestamp", l.reset_ms.to_string()),
        ] {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        }
    }
    response
}

/// Every REST request: faults first, then public or authenticated dispatch.
async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let raw_query = uri.query().unwrap_or("").to_string();
    let body = String::from_utf8_lossy(&body).to_string();
    let fault = {
        let mut state = shared.lock();
        *state.stats.requests.entry(path.clone()).or_default() += 1;
        state
            .faults
            .iter()
            .position(|(p, _)| *p == path)
            .map(|i| state.faults.remove(i).1)
            .or_else(|| state.lasting_faults.get(&path).cloned())
    };
    let now = shared.now_ms();
    let delay = match fault {
        Some(Fault::Status(code)) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return (status, format!("{code} fault injected")).into_response();
        }
        Some(Fault::RetCode(code, message)) => {
            return answer(now, Err(Reject::new(code, message)), None);
        }
        Some(Fault::StatusRetCode(status, code, message)) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::UNAUTHORIZED);
            let mut response = answer(now, Err(Reject::new(code, message)), None);
            *response.status_mut() = status;
            return response;
        }
        Some(Fault::SlowAnswer(d)) => Some(d),
        None => None,
    };
    let query = parse_query(&raw_query);
    let response = match (method.clone(), path.as_str()) {
        (Method::GET, "/v5/market/time") => answer(
            now,
            Ok(json!({
                "timeSecond": (now / 1000).to_string(),
                "timeNano": (i128::from(now) * 1_000_000).to_string(),
            })),
            None,
        ),
        (Method::GET, "/v5/market/instruments-info") => {
            answer(now, instruments(&shared, &query), None)
        }
        (Method::GET, "/v5/market/kline") => answer(now, klines(&shared, &query, now), None),
        (Method::GET, "/v5/market/tickers") => answer(now, tickers(&shared, &query, now), None),
        (Method::GET, "/v5/market/funding/history") => {
            answer(now, funding_history(&shared, &query, now), None)
        }
        (Method::GET, "/v5/market/risk-limit") => answer(now, risk_limit(&shared, &query), None),
        _ => {
            let payload = if method == Method::GET {
                &raw_query
            } else {
                &body
            };
            private(&shared, &method, &path, &query, &headers, payload, now)
        }
    };
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    response
}

/// Authenticates, counts the rate limit, then runs the endpoint.
fn private(
    shared: &Arc<Shared>,
    method: &Method,
    path: &str,
    query: &Query,
    headers: &HeaderMap,
    payload: &str,
    now: i64,
) -> Response {
    let signed = match auth::read_headers(headers) {
        Ok(s) => s,
        Err(r) => return answer(now, Err(r), None),
    };
    let key = signed.api_key.to_string();
    let limit = {
        let mut state = shared.lock();
        let Some(spec) = state.keys.get(&key).cloned() else {
            return answer(now, Err(Reject::new(10003, "API key is invalid.")), None);
        };
        if let Err(r) = signed.verify(&spec.secret, payload, now) {
            return answer(now, Err(r), None);
        }
        if !spec.ip_allowed {
            return answer(
                now,
                Err(Reject::new(
                    10010,
                    "Unmatched IP, please check your API key's bound IP addresses.",
                )),
                None,
            );
        }
        let limit = state.limiter.hit(&key, path, now);
        if !limit.allowed {
            state.stats.rate_limited += 1;
            return answer(
                now,
                Err(Reject::new(10006, "Too many visits!")),
                Some(limit),
            );
        }
        if spec.read_only && *method == Method::POST {
            return answer(
                now,
                Err(Reject::new(
                    10005,
                    "Permission denied, please check your API key permissions.",
                )),
                Some(limit),
            );
        }
        limit
    };
    let body: Value = if *method == Method::POST {
        match serde_json::from_str(payload) {
            Ok(v) => v,
            Err(_) => return answer(now, Err(Reject::new(10001, "params error: body")), None),
        }
    } else {
        Value::Null
    };
    let (result, pushes) = match (method.clone(), path) {
        (Method::GET, "/v5/user/query-api") => (query_api(shared, &key), Vec::new()),
        (Method::GET, "/v5/account/wallet-balance") => (wallet(shared, &key, query), Vec::new()),
        (Method::GET, "/v5/position/list") => (positions(shared, &key, query), Vec::new()),
        (Method::GET, "/v5/position/closed-pnl") => {
            (closed_pnl(shared, &key, query, now), Vec::new())
        }
        (Method::GET, "/v5/order/realtime") => (orders(shared, &key, query, true, now), Vec::new()),
        (Method::GET, "/v5/order/history") => (orders(shared, &key, query, false, now), Vec::new()),
        (Method::GET, "/v5/execution/list") => (executions(shared, &key, query, now), Vec::new()),
        (Method::POST, "/v5/position/set-leverage") => {
            (set_leverage(shared, &key, &body, now), Vec::new())
        }
        (Method::POST, "/v5/order/create") => split(create_order(shared, &key, &body, now)),
        (Method::POST, "/v5/position/trading-stop") => {
            split(trading_stop(shared, &key, &body, now))
        }
        _ => {
            return (StatusCode::NOT_FOUND, "404 page not found").into_response();
        }
    };
    shared.publish(&key, pushes);
    answer(now, result, Some(limit))
}

fn split(r: Result<(Value, Vec<Push>), Reject>) -> (Result<Value, Reject>, Vec<Push>) {
    match r {
        Ok((v, p)) => (Ok(v), p),
        Err(e) => (Err(e), Vec::new()),
    }
}

fn category(query: &Query) -> Result<(), Reject> {
    match query.get("category").map(String::as_str) {
        Some("linear") => Ok(()),
        _ => Err(Reject::new(10001, "params error: category")),
    }
}

/// `category` of a public market endpoint: one of `valid` (the fake serves `linear`; the
/// others answer so), otherwise 10001 "Illegal category", the real service's answer
/// (ccxt/ccxt#23902: "Illegal category (ErrCode: 10001)"). Absent, it is `default` where
/// the endpoint has one.
fn market_category(query: &Query, valid: &[&str], default: Option<&str>) -> Result<(), Reject> {
    match query.get("category").map(String::as_str).or(default) {
        Some("linear") => Ok(()),
        Some(other) if valid.contains(&other) => Err(Reject::new(
            10001,
            format!("the fake serves category=linear only, not {other}"),
        )),
        _ => Err(Reject::new(10001, "Illegal category")),
    }
}

/// market/instrument: `linear`, `inverse`, `spot`, `option`.
const INSTRUMENT_CATEGORIES: [&str; 4] = ["linear", "inverse", "spot", "option"];

/// A symbol the market endpoints do not know: 10001 "Not supported symbols", as Bybit
/// answers market/kline and market/tickers for one it does not list.
fn not_supported() -> Reject {
    Reject::new(10001, "Not supported symbols")
}

fn str_field<'a>(body: &'a Value, name: &str) -> Result<&'a str, Reject> {
    body.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| Reject::new(10001, format!("params error: {name}")))
}

fn dec_field(body: &Value, name: &str) -> Result<Decimal, Reject> {
    str_field(body, name)?
        .parse()
        .map_err(|_| Reject::new(10001, format!("params error: {name}")))
}

/// `limit` and `cursor` (an offset) of a paged list.
fn page(
    shared: &Shared,
    query: &Query,
    default: usize,
    max: usize,
) -> Result<(usize, usize), Reject> {
    let max = max.min(shared.lock().max_page);
    let default = default.min(max);
    let limit = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(default)
        .clamp(1, max);
    let offset = match query.get("cursor").filter(|c| !c.is_empty()) {
        Some(c) => cursor_offset(c)?,
        None => 0,
    };
    Ok((limit, offset))
}

fn paged(rows: Vec<Value>, limit: usize, offset: usize) -> (Vec<Value>, String) {
    let total = rows.len();
    let list: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    let next = if offset + list.len() < total {
        format!("page_token%3D{}%26", offset + list.len())
    } else {
        String::new()
    };
    (list, next)
}

fn instruments(shared: &Arc<Shared>, query: &Query) -> Result<Value, Reject> {
    market_category(query, &INSTRUMENT_CATEGORIES, None)?;
    let (limit, offset) = page(shared, query, 500, 1000)?;
    let state = shared.lock();
    let rows: Vec<Value> = state
        .exchange
        .instruments
        .iter()
        .filter(|i| query.get("symbol").is_none_or(|s| *s == i.symbol))
        .map(|i| {
            json!({
                "symbol": i.symbol, "contractType": "LinearPerpetual", "status": "Trading",
                "baseCoin": i.symbol.trim_end_matches("USDT"), "quoteCoin": "USDT",
                "settleCoin": "USDT",
                "leverageFilter": {"minLeverage": "1", "maxLeverage": format!("{}.00", i.max_leverage), "leverageStep": "0.01"},
                "priceFilter": {"minPrice": i.tick_size.to_string(), "maxPrice": "1999999", "tickSize": i.tick_size.to_string()},
                "lotSizeFilter": {
                    "maxOrderQty": "1000000", "minOrderQty": i.min_qty.to_string(),
                    "maxMktOrderQty": state.exchange.max_market_qty(&i.symbol).to_string(),
                    "qtyStep": i.qty_step.to_string(), "minNotionalValue": i.min_notional.to_string(),
                },
            })
        })
        .collect();
    let (list, next) = paged(rows, limit, offset);
    Ok(json!({"category": "linear", "list": list, "nextPageCursor": next}))
}

/// GET /v5/market/kline (docs: market/kline): `category`, `symbol` and `interval` required;
/// `start` and `end` bound the open times (both included); `limit` 1 to 1000, default 200;
/// the newest candles of the range first ("Sort in reverse by startTime"), the one still
/// open included ("closePrice: Is the last traded price when the candle is not closed").
/// The fake serves the candles it was given (`add_klines`, `close_kline`) and the open one
/// its prices made; it keeps no monthly ones.
fn klines(shared: &Arc<Shared>, query: &Query, now: i64) -> Result<Value, Reject> {
    // market/kline: "category: Product type. spot, linear, inverse. When category is not
    // passed, use linear by default".
    market_category(query, &["linear", "inverse", "spot"], Some("linear"))?;
    let symbol = query
        .get("symbol")
        .ok_or_else(|| Reject::new(10001, "params error: symbol"))?;
    let minutes = match query.get("interval").map(String::as_str) {
        Some("M") => return Err(Reject::new(10001, "the fake keeps no monthly klines")),
        Some(name) => {
            interval_minutes(name).ok_or_else(|| Reject::new(10001, "params error: interval"))?
        }
        None => return Err(Reject::new(10001, "params error: interval")),
    };
    let bound = |name: &str| -> Result<Option<i64>, Reject> {
        query
            .get(name)
            .map(|v| {
                v.parse()
                    .map_err(|_| Reject::new(10001, format!("params error: {name}")))
            })
            .transpose()
    };
    let (start, end) = (bound("start")?, bound("end")?);
    let limit: usize = match query.get("limit") {
        None => 200,
        Some(l) => l
            .parse()
            .map_err(|_| Reject::new(10001, "params error: limit"))?,
    }
    .clamp(1, 1000);
    let mut state = shared.lock();
    if state.exchange.instrument(symbol).is_err() {
        return Err(not_supported());
    }
    // An open candle whose time is over has closed by now.
    if let Some(push) = state.market.roll(symbol, minutes, now) {
        let _ = shared.market_pushes.send(push);
    }
    let list = state.market.kline_rows(
        symbol,
        minutes,
        start.unwrap_or(i64::MIN),
        end.unwrap_or(i64::MAX),
        limit,
    );
    Ok(json!({"category": "linear", "symbol": symbol, "list": list}))
}

/// GET /v5/market/funding/history (docs: market/history-fund-rate): `category` required
/// (`linear`, `inverse`), `symbol` required; "Passing only `startTime` returns an error.
/// Passing only `endTime` returns 200 records up till `endTime`. Passing neither returns 200
/// records up till the current time."; `limit` in [1, 200], default 200; newest first.
fn funding_history(shared: &Arc<Shared>, query: &Query, now: i64) -> Result<Value, Reject> {
    market_category(query, &["linear", "inverse"], None)?;
    let symbol = query
        .get("symbol")
        .ok_or_else(|| Reject::new(10001, "params error: symbol"))?;
    let bound = |name: &str| -> Result<Option<i64>, Reject> {
        query
            .get(name)
            .map(|v| {
                v.parse()
                    .map_err(|_| Reject::new(10001, format!("params error: {name}")))
            })
            .transpose()
    };
    let (start, end) = match (bound("startTime")?, bound("endTime")?) {
        (Some(_), None) => {
            return Err(Reject::new(
                10001,
                "params error: startTime without endTime",
            ))
        }
        (start, end) => (start.unwrap_or(i64::MIN), end.unwrap_or(now)),
    };
    let limit: usize = match query.get("limit") {
        None => 200,
        Some(l) => l
            .parse()
            .ok()
            .filter(|l| (1..=200).contains(l))
            .ok_or_else(|| Reject::new(10001, "params error: limit must be 1 to 200"))?,
    };
    let state = shared.lock();
    if state.exchange.instrument(symbol).is_err() {
        return Err(not_supported());
    }
    let list = state.market.funding_rows(symbol, start, end, limit);
    Ok(json!({"category": "linear", "list": list}))
}

/// GET /v5/market/tickers (docs: market/tickers): `category` required (`spot`, `linear`,
/// `inverse`, `option`), `symbol` optional; no paging. Every instrument of the fake that has
/// a price (the fake's market opens with a symbol's first price); one asked for by name
/// before its first price answers 10016, as an order on it does.
fn tickers(shared: &Arc<Shared>, query: &Query, now: i64) -> Result<Value, Reject> {
    market_category(query, &INSTRUMENT_CATEGORIES, None)?;
    let state = shared.lock();
    let list: Vec<Value> = match query.get("symbol") {
        Some(symbol) => {
            if state.exchange.instrument(symbol).is_err() {
                return Err(not_supported());
            }
            let row = state
                .market
                .rest_ticker(&state.exchange, symbol, now)
                .ok_or_else(|| Reject::new(10016, format!("no market price for {symbol} yet")))?;
            vec![row]
        }
        None => state
            .exchange
            .instruments
            .iter()
            .filter_map(|i| state.market.rest_ticker(&state.exchange, &i.symbol, now))
            .collect(),
    };
    Ok(json!({"category": "linear", "list": list}))
}

/// GET /v5/market/risk-limit (docs: market/risk-limit): `category` (`linear`, `inverse`),
/// `symbol` and `cursor` optional. "category=linear returns a data set of 15 symbols in each
/// response. Please use the cursor param to get the next data set."
fn risk_limit(shared: &Arc<Shared>, query: &Query) -> Result<Value, Reject> {
    market_category(query, &["linear", "inverse"], None)?;
    let state = shared.lock();
    let instruments: Vec<_> = match query.get("symbol") {
        Some(symbol) => vec![state
            .exchange
            .instrument(symbol)
            .map_err(|_| not_supported())?],
        None => state.exchange.instruments.iter().collect(),
    };
    let per_page = 15.min(state.max_page);
    let offset = match query.get("cursor").filter(|c| !c.is_empty()) {
        Some(c) => cursor_offset(c)?,
        None => 0,
    };
    let total = instruments.len();
    let page: Vec<_> = instruments
        .into_iter()
        .skip(offset)
        .take(per_page)
        .collect();
    let list: Vec<Value> = page
        .iter()
        .flat_map(|i| state.market.risk_limit_rows(i))
        .collect();
    let next = if offset + page.len() < total {
        format!("page_token%3D{}%26", offset + page.len())
    } else {
        String::new()
    };
    Ok(json!({"category": "linear", "list": list, "nextPageCursor": next}))
}

/// The permission groups of user/apikey-info.mdx's response, each reported even when empty.
const PERMISSION_GROUPS: [&str; 17] = [
    "ContractTrade",
    "Spot",
    "Wallet",
    "Options",
    "Derivatives",
    "CopyTrading",
    "BlockTrade",
    "Exchange",
    "NFT",
    "Affiliate",
    "Earn",
    "FiatP2P",
    "FiatConvertBroker",
    "FiatGlobalPay",
    "FiatBitPay",
    "BitCard",
    "ByXPost",
];

/// GET /v5/user/query-api in the documented shape (user/apikey-info.mdx), for the key's
/// [`KeySpec`]: its permissions by group, `readOnly` and `ips`.
fn query_api(shared: &Arc<Shared>, key: &str) -> Result<Value, Reject> {
    let state = shared.lock();
    let spec = state
        .keys
        .get(key)
        .ok_or_else(|| Reject::new(10003, "API key is invalid."))?;
    let mut permissions = serde_json::Map::new();
    for group in PERMISSION_GROUPS {
        permissions.insert(group.to_string(), json!([]));
    }
    for (group, names) in &spec.permissions {
        permissions.insert(group.clone(), json!(names));
    }
    Ok(json!({
        "id": "1", "note": "fake", "apiKey": key, "readOnly": i32::from(spec.read_only),
        "secret": "", "permissions": permissions,
        "ips": spec.ips, "type": 1, "deadlineDay": 90, "expiredAt": "", "createdAt": "",
        "unified": 0, "uta": 1, "userID": 1, "isMaster": true, "parentUid": "0",
    }))
}

fn wallet(shared: &Arc<Shared>, key: &str, query: &Query) -> Result<Value, Reject> {
    if query.get("accountType").map(String::as_str) != Some("UNIFIED") {
        return Err(Reject::new(10001, "accountType only support UNIFIED"));
    }
    Ok(json!({"list": [shared.lock().exchange.wallet_json(key)]}))
}

fn hedge_mode(shared: &Shared, key: &str) -> bool {
    shared.lock().keys.get(key).is_some_and(|k| k.hedge_mode)
}

/// positionIdx as Bybit checks it: 0 in one-way mode, 1 (buy side) or 2 (sell side) in hedge
/// mode. The fake trades one-way positions only.
fn position_idx(shared: &Shared, key: &str, body: &Value, required: bool) -> Result<(), Reject> {
    let idx = match body.get("positionIdx") {
        None if required => return Err(Reject::new(10001, "params error: positionIdx")),
        None => 0,
        Some(v) => v
            .as_i64()
            .ok_or_else(|| Reject::new(10001, "params error: positionIdx"))?,
    };
    let hedge = hedge_mode(shared, key);
    match (hedge, idx) {
        (false, 0) => Ok(()),
        (true, 1 | 2) => Err(Reject::new(10001, "the fake trades one-way mode only")),
        _ => Err(Reject::new(10001, "position idx not match position mode")),
    }
}

fn positions(shared: &Arc<Shared>, key: &str, query: &Query) -> Result<Value, Reject> {
    category(query)?;
    let symbol = query.get("symbol").map(String::as_str);
    if symbol.is_none() && query.get("settleCoin").is_none() {
        return Err(Reject::new(10001, "symbol or settleCoin is required"));
    }
    if hedge_mode(shared, key) {
        // Hedge mode: one entry per side, both empty (the fake opens no hedge positions).
        let rows: Vec<Value> = symbol
            .map(|s| {
                [1, 2]
                    .iter()
                    .map(|idx| {
                        let mut row = shared.lock().exchange.position_json(key, s);
                        row["positionIdx"] = json!(idx);
                        row
                    })
                    .collect()
            })
            .unwrap_or_default();
        return Ok(json!({"category": "linear", "list": rows, "nextPageCursor": ""}));
    }
    let rows = shared.lock().exchange.positions_json(key, symbol);
    let (limit, offset) = page(shared, query, 20, 200)?;
    let (list, next) = paged(rows, limit, offset);
    Ok(json!({"category": "linear", "list": list, "nextPageCursor": next}))
}

/// startTime and endTime as Bybit reads them: at most 7 days apart, the last 7 days by
/// default.
fn time_range(query: &Query, now: i64) -> Result<(i64, i64), Reject> {
    let get = |k: &str| query.get(k).and_then(|v| v.parse::<i64>().ok());
    let (start, end) = match (get("startTime"), get("endTime")) {
        (Some(s), Some(e)) => (s, e),
        (Some(s), None) => (s, s + SEVEN_DAYS_MS),
        (None, Some(e)) => (e - SEVEN_DAYS_MS, e),
        (None, None) => (now - SEVEN_DAYS_MS, now),
    };
    if end < start || end - start > SEVEN_DAYS_MS {
        return Err(Reject::new(
            10001,
            "The time range between startTime and endTime cannot exceed 7 days",
        ));
    }
    Ok((start, end))
}

fn closed_pnl(shared: &Arc<Shared>, key: &str, query: &Query, now: i64) -> Result<Value, Reject> {
    category(query)?;
    let (start, end) = time_range(query, now)?;
    let (limit, offset) = page(shared, query, 50, 100)?;
    let state = shared.lock();
    let mut rows: Vec<Value> = state
        .exchange
        .accounts
        .get(key)
        .map(|a| {
            a.closed
                .iter()
                .filter(|r| r.close.ts_ms >= start && r.close.ts_ms <= end)
                .filter(|r| query.get("symbol").is_none_or(|s| *s == r.close.symbol))
                .map(|r| r.to_json())
                .collect()
        })
        .unwrap_or_default();
    rows.reverse();
    let (list, next) = paged(rows, limit, offset);
    Ok(json!({"category": "linear", "list": list, "nextPageCursor": next}))
}

/// /v5/order/realtime (by orderId or orderLinkId: any status; otherwise open orders only,
/// and market orders are never open) and /v5/order/history.
fn orders(
    shared: &Arc<Shared>,
    key: &str,
    query: &Query,
    realtime: bool,
    now: i64,
) -> Result<Value, Reject> {
    category(query)?;
    // order/open-order: for linear, symbol, baseCoin or settleCoin is required.
    if realtime
        && ["symbol", "baseCoin", "settleCoin"]
            .iter()
            .all(|k| !query.contains_key(*k))
    {
        return Err(Reject::new(
            10001,
            "Missing some parameters that must be filled in: symbol or settleCoin or baseCoin",
        ));
    }
    let by_id = query.get("orderId").or(query.get("orderLinkId")).is_some();
    let range = if realtime {
        None
    } else {
        Some(time_range(query, now)?)
    };
    let (limit, offset) = page(shared, query, 20, 50)?;
    let state = shared.lock();
    let mut rows: Vec<Value> = state
        .exchange
        .accounts
        .get(key)
        .map(|a| {
            a.orders
                .iter()
                .filter(|o| query.get("orderId").is_none_or(|id| *id == o.order_id))
                .filter(|o| {
                    query
                        .get("orderLinkId")
                        .is_none_or(|id| *id == o.order_link_id)
                })
                .filter(|o| query.get("symbol").is_none_or(|s| *s == o.symbol))
                .filter(|_| !realtime || by_id)
                .filter(|o| !a.forgotten.contains(&o.order_id))
                // order/order-list: without startTime/endTime the last 7 days, by id too.
                .filter(|o| range.is_none_or(|(s, e)| o.ts_ms >= s && o.ts_ms <= e))
                .map(|o| o.to_json())
                .collect()
        })
        .unwrap_or_default();
    rows.reverse();
    let (list, next) = paged(rows, limit, offset);
    Ok(json!({"category": "linear", "list": list, "nextPageCursor": next}))
}

/// execType values a query may filter by (enum.mdx; `UNKNOWN` "Cannot query by this type").
const EXEC_TYPES: [&str; 10] = [
    "Trade",
    "AdlTrade",
    "Funding",
    "BustTrade",
    "Delivery",
    "Settle",
    "BlockTrade",
    "MovePosition",
    "FutureSpread",
    "CorporateAction",
];

/// /v5/execution/list: the executions (one per order here) and funding settlements of the
/// last 7 days by default, newest first ("sorted by `execTime` in descending order"),
/// filtered by `execType` when asked. By orderId, only that order's executions.
fn executions(shared: &Arc<Shared>, key: &str, query: &Query, now: i64) -> Result<Value, Reject> {
    category(query)?;
    let exec_type = query.get("execType").filter(|t| !t.is_empty());
    if exec_type.is_some_and(|t| !EXEC_TYPES.contains(&t.as_str())) {
        return Err(Reject::new(10001, "params error: execType"));
    }
    let (start, end) = time_range(query, now)?;
    let (limit, offset) = page(shared, query, 50, 100)?;
    let state = shared.lock();
    let Some(a) = state.exchange.accounts.get(key) else {
        return Ok(json!({"category": "linear", "list": [], "nextPageCursor": ""}));
    };
    let in_range = |ts: i64| ts >= start && ts <= end;
    let symbol = |s: &str| query.get("symbol").is_none_or(|q| q == s);
    let mut rows: Vec<(i64, Value)> = a
        .orders
        .iter()
        .filter(|o| query.get("orderId").is_none_or(|id| *id == o.order_id))
        .filter(|o| symbol(&o.symbol) && in_range(o.ts_ms))
        .map(|o| {
            let closed = a.closed_sizes.get(&o.order_id).copied();
            (o.ts_ms, o.execution_json(closed.unwrap_or(Decimal::ZERO)))
        })
        .collect();
    if !query.contains_key("orderId") {
        rows.extend(
            a.fundings
                .iter()
                .filter(|f| symbol(&f.symbol) && in_range(f.ts_ms))
                .map(|f| (f.ts_ms, f.execution_json())),
        );
    }
    // Stable: rows of one time stay in the order they happened, then all is reversed.
    rows.sort_by_key(|(ts, _)| *ts);
    let rows: Vec<Value> = rows
        .into_iter()
        .rev()
        .map(|(_, v)| v)
        .filter(|v| exec_type.is_none_or(|t| v["execType"] == t.as_str()))
        .collect();
    let (list, next) = paged(rows, limit, offset);
    Ok(json!({"category": "linear", "list": list, "nextPageCursor": next}))
}

fn set_leverage(shared: &Arc<Shared>, key: &str, body: &Value, now: i64) -> Result<Value, Reject> {
    // position/leverage: category is required.
    if str_field(body, "category")? != "linear" {
        return Err(Reject::new(10001, "params error: category"));
    }
    let symbol = str_field(body, "symbol")?;
    let buy = dec_field(body, "buyLeverage")?;
    let sell = dec_field(body, "sellLeverage")?;
    if buy != sell {
        return Err(Reject::new(
            110027,
            "buy leverage must equal sell leverage in one-way mode",
        ));
    }
    let leverage: u32 = buy
        .fract()
        .is_zero()
        .then(|| buy.try_into().ok())
        .flatten()
        .ok_or_else(|| Reject::new(10001, "params error: buyLeverage"))?;
    shared
        .lock()
        .exchange
        .set_leverage(key, symbol, leverage, now)?;
    Ok(json!({}))
}

fn create_order(
    shared: &Arc<Shared>,
    key: &str,
    body: &Value,
    now: i64,
) -> Result<(Value, Vec<Push>), Reject> {
    if str_field(body, "category")? != "linear" {
        return Err(Reject::new(10001, "params error: category"));
    }
    position_idx(shared, key, body, false)?;
    if str_field(body, "orderType")? != "Market" {
        return Err(Reject::new(10001, "the fake trades market orders only"));
    }
    let side = match str_field(body, "side")? {
        "Buy" => Side::Buy,
        "Sell" => Side::Sell,
        _ => return Err(Reject::new(10001, "params error: side")),
    };
    let link = body
        .get("orderLinkId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if link.len() > 36 {
        return Err(Reject::new(10001, "params error: orderLinkId too long"));
    }
    let order = OrderRequest {
        client_order_id: link.clone(),
        symbol: str_field(body, "symbol")?.to_string(),
        side,
        qty: dec_field(body, "qty")?,
        reduce_only: body
            .get("reduceOnly")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    };
    let (order_id, pushes) = shared.lock().exchange.create_order(key, &order, now)?;
    Ok((json!({"orderId": order_id, "orderLinkId": link}), pushes))
}

fn trading_stop(
    shared: &Arc<Shared>,
    key: &str,
    body: &Value,
    now: i64,
) -> Result<(Value, Vec<Push>), Reject> {
    if str_field(body, "category")? != "linear" {
        return Err(Reject::new(10001, "params error: category"));
    }
    // position/trading-stop: positionIdx is required.
    position_idx(shared, key, body, true)?;
    if str_field(body, "tpslMode")? != "Full" {
        return Err(Reject::new(10001, "the fake supports tpslMode=Full only"));
    }
    let symbol = str_field(body, "symbol")?;
    let pushes = shared
        .lock()
        .exchange
        .trading_stop(key, symbol, body, now)?;
    Ok((json!({}), pushes))
}
