//! `GET /api/trades/search/`: the Trades page's list. The trades of the account the bot
//! trades on now, filtered by period (in the user's zone), symbol, side, status and close
//! reason, sorted by the server and paged by an opaque keyset cursor, so a page never shifts
//! when new trades arrive (docs/rules.md, "Trades page"). The filter is shared with the CSV
//! export ([`crate::api::trades_export`]).

use axum::extract::State;
use axum::Json;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chrono::Utc;
use chrono_tz::Tz;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signaldesk_core::account::AccountVenue;
use signaldesk_core::market::PositionSide;
use signaldesk_core::stats::{blank, Period};
use signaldesk_store::{TradeCursor, TradeSearch, TradeSortKey, TradeStatus};
use utoipa::{IntoParams, ToSchema};

use crate::api::stats::user_zone;
use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiQuery, ApiResult, ErrorBody};
use crate::wire::trades::TradeView;

const DEFAULT_LIMIT: i64 = 50;
const MAX_LIMIT: i64 = 200;

/// The filter and order of the Trades page and its export.
#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub struct TradeFilterQuery {
    /// `all` (default), `24h`, `3d`, `7d`, `month` or `custom`, as /api/stats/, in the user's
    /// zone, over the time each trade was made.
    #[param(pattern = r"^[ \t\r\n]*(all|24h|3d|7d|month|custom)?[ \t\r\n]*$")]
    pub period: Option<String>,
    /// First day (`YYYY-MM-DD`, the user's zone) of a custom period.
    #[param(format = Date)]
    pub date_from: Option<String>,
    /// Last day, inclusive, of a custom period.
    #[param(format = Date)]
    pub date_to: Option<String>,
    pub symbol: Option<String>,
    /// `long` or `short`.
    #[param(pattern = r"^[ \t\r\n]*(long|short)?[ \t\r\n]*$")]
    pub side: Option<String>,
    /// `pending`, `open`, `closed` or `cancelled` (any case).
    #[param(
        pattern = r"^[ \t\r\n]*([Pp][Ee][Nn][Dd][Ii][Nn][Gg]|[Oo][Pp][Ee][Nn]|[Cc][Ll][Oo][Ss][Ee][Dd]|[Cc][Aa][Nn][Cc][Ee][Ll][Ll][Ee][Dd]|all)?[ \t\r\n]*$"
    )]
    pub status: Option<String>,
    /// stop_loss, take_profit, trailing, manual, liquidation, reconciled, not_filled,
    /// rejected, or an imported trade's reason (lower-case letters, digits, `_`).
    #[param(pattern = r"^[ \t\r\n]*[a-z0-9_]{0,40}[ \t\r\n]*$")]
    pub close_reason: Option<String>,
    /// `opened_desc` (default), `opened_asc`, `closed_desc`, `closed_asc`, `pnl_desc`,
    /// `pnl_asc`.
    #[param(
        pattern = r"^[ \t\r\n]*(opened_desc|opened_asc|closed_desc|closed_asc|pnl_desc|pnl_asc)?[ \t\r\n]*$"
    )]
    pub sort: Option<String>,
}

/// Which page of the search: the export has none, it streams every row.
#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub struct TradePageQuery {
    /// `next_cursor` of the previous page, with the same filter and sort.
    pub cursor: Option<String>,
    /// Trades per page, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct TradeSearchPage {
    /// The account listed: the one the bot trades on now.
    #[schema(value_type = signaldesk_core::account::VenueView)]
    pub venue: AccountVenue,
    /// The user's settings zone, the one the period's days are in.
    pub time_zone: String,
    /// Trades matching the filter, over all pages.
    pub count: i64,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    pub results: Vec<TradeView>,
}

/// A parsed filter: the store's search (cursor and limit still to set) and what it was
/// read in.
pub(crate) struct ParsedFilter {
    pub search: TradeSearch,
    pub sort_name: &'static str,
    pub tz: Tz,
}

const SORTS: [(&str, TradeSortKey, bool); 6] = [
    ("opened_desc", TradeSortKey::Opened, true),
    ("opened_asc", TradeSortKey::Opened, false),
    ("closed_desc", TradeSortKey::Closed, true),
    ("closed_asc", TradeSortKey::Closed, false),
    ("pnl_desc", TradeSortKey::Pnl, true),
    ("pnl_asc", TradeSortKey::Pnl, false),
];

/// Checks every parameter given (a bad one is a 400 naming it) and builds the search over the
/// caller's current account.
pub(crate) async fn parse_filter(
    state: &AppState,
    user_id: i64,
    q: &TradeFilterQuery,
) -> ApiResult<ParsedFilter> {
    let period = Period::parse(
        Some(blank(q.period.as_deref()).unwrap_or("all")),
        q.date_from.as_deref(),
        q.date_to.as_deref(),
    )?;
    let status = match blank(q.status.as_deref()) {
        None | Some("all") => None,
        Some(s) => Some(TradeStatus::parse(&s.to_ascii_uppercase()).ok_or_else(|| {
            ApiError::bad_request("status must be pending, open, closed or cancelled.")
        })?),
    };
    let side = match blank(q.side.as_deref()) {
        None => None,
        Some("long") => Some(PositionSide::Long),
        Some("short") => Some(PositionSide::Short),
        Some(_) => return Err(ApiError::bad_request("side must be long or short.")),
    };
    let close_reason = blank(q.close_reason.as_deref())
        .map(|r| {
            let ok = r.len() <= 40
                && r.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            ok.then(|| r.to_string()).ok_or_else(|| {
                ApiError::bad_request(
                    "close_reason must be a reason such as stop_loss, take_profit, trailing, \
                     manual, liquidation or reconciled.",
                )
            })
        })
        .transpose()?;
    let symbol = blank(q.symbol.as_deref())
        .map(|s| {
            let s = s.to_ascii_uppercase();
            let ok = s.len() <= 30 && s.bytes().all(|b| b.is_ascii_alphanumeric());
            ok.then_some(s).ok_or_else(|| {
                ApiError::bad_request("symbol must be letters and digits, like BTCUSDT.")
            })
        })
        .transpose()?;
    let (sort_name, sort, descending) = match blank(q.sort.as_deref()) {
        None => SORTS[0],
        Some(s) => SORTS.into_iter().find(|(name, ..)| *name == s).ok_or_else(|| {
            ApiError::bad_request(
                "sort must be opened_desc, opened_asc, closed_desc, closed_asc, pnl_desc or pnl_asc.",
            )
        })?,
    };
    let tz = user_zone(state, user_id).await?;
    let (from, to) = period.range(Utc::now(), tz);
    // Periods that run to now have no upper bound: a trade stored on the market's clock a
    // moment ahead of this one still belongs to "today".
    let open_ended = !matches!(period, Period::Custom { .. } | Period::Until(_));
    Ok(ParsedFilter {
        search: TradeSearch {
            venue: state.store.account_venue(user_id).await?,
            status,
            symbol,
            side,
            close_reason,
            from: (from != i64::MIN).then_some(from),
            to: (!open_ended).then_some(to),
            sort,
            descending,
            after: None,
            limit: DEFAULT_LIMIT,
        },
        sort_name,
        tz,
    })
}

/// The cursor after `last`: its sort, key and id, so a cursor from another sort is refused.
fn encode_cursor(sort_name: &str, key: String, id: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("{sort_name}|{key}|{id}"))
}

fn decode_cursor(text: &str, sort_name: &str, sort: TradeSortKey) -> ApiResult<TradeCursor> {
    let bad =
        || ApiError::bad_request("cursor is not one this list gave; start from the first page.");
    let raw = URL_SAFE_NO_PAD.decode(text.trim()).map_err(|_| bad())?;
    let raw = String::from_utf8(raw).map_err(|_| bad())?;
    let mut parts = raw.splitn(3, '|');
    let (Some(name), Some(key), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    if name != sort_name {
        return Err(ApiError::bad_request(format!(
            "cursor belongs to sort {name}, not {sort_name}; start from the first page."
        )));
    }
    let key_ok = match sort {
        TradeSortKey::Pnl => key.parse::<Decimal>().is_ok(),
        TradeSortKey::Opened | TradeSortKey::Closed => key.parse::<i64>().is_ok(),
    };
    let id = id.parse::<i64>().map_err(|_| bad())?;
    if !key_ok {
        return Err(bad());
    }
    Ok(TradeCursor {
        key: key.to_string(),
        id,
    })
}

/// A page of the account's trades under the filter, after the cursor.
#[utoipa::path(get, path = "/api/trades/search/", tag = "trades",
    params(TradeFilterQuery, TradePageQuery),
    responses((status = 200, body = TradeSearchPage), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<TradeFilterQuery>,
    ApiQuery(page): ApiQuery<TradePageQuery>,
) -> ApiResult<Json<TradeSearchPage>> {
    let ParsedFilter {
        mut search,
        sort_name,
        tz,
    } = parse_filter(&state, auth.id(), &q).await?;
    let limit = page.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {MAX_LIMIT}."
        )));
    }
    search.after = blank(page.cursor.as_deref())
        .map(|c| decode_cursor(c, sort_name, search.sort))
        .transpose()?;
    // One more than the page tells whether another page follows.
    search.limit = limit + 1;
    let mut trades = state.store.search_trades(auth.id(), &search).await?;
    let more = trades.len() as i64 > limit;
    trades.truncate(limit as usize);
    let next_cursor = more
        .then(|| trades.last())
        .flatten()
        .map(|t| encode_cursor(sort_name, search.sort.of(t), t.id));
    let count = state.store.count_search_trades(auth.id(), &search).await?;
    Ok(Json(TradeSearchPage {
        venue: search.venue,
        time_zone: tz.name().to_string(),
        count,
        next_cursor,
        results: trades.into_iter().map(Into::into).collect(),
    }))
}
