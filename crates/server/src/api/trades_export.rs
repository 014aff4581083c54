//! `GET /api/trades/export.csv`: every trade the Trades page's filter matches, as CSV
//! (RFC 4180), streamed a window at a time through the same keyset as the page, so there is
//! no row limit and memory stays flat (docs/rules.md, "Trades export").

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use chrono_tz::Tz;
use futures::stream::{self, StreamExt};
use rust_decimal::Decimal;
use signaldesk_store::{Store, Trade, TradeCursor, TradeSearch};

use crate::api::trade_search::{parse_filter, ParsedFilter, TradeFilterQuery};
use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiQuery, ApiResult, ErrorBody};

/// Rows read from the store per step of the stream.
const BATCH: i64 = 500;

pub(crate) const HEADER: [&str; 21] = [
    "id",
    "symbol",
    "side",
    "status",
    "quantity",
    "leverage",
    "margin_usdt",
    "entry_price",
    "exit_price",
    "pnl_usdt",
    "fees_usdt",
    "funding_usdt",
    "close_reason",
    "chain_id",
    "chain_step",
    "created_at_utc",
    "opened_at_utc",
    "closed_at_utc",
    "opened_at_local",
    "closed_at_local",
    "time_zone",
];

/// One cell, quoted as RFC 4180 says ("Fields containing line breaks (CRLF), double quotes,
/// and commas should be enclosed in double-quotes ... a double-quote appearing inside a field
/// must be escaped by preceding it with another double quote"), after text that a spreadsheet
/// would run as a formula is defused. OWASP, CSV Injection: "prepend each cell field with a
/// single quote" when it begins with "Equals to (=), Plus (+), Minus (-), At (@), Tab (0x09),
/// Carriage return (0x0D)". Numbers this module writes itself ([`number`]) are not text and
/// keep their sign.
pub(crate) fn text_cell(value: &str) -> String {
    let defused = if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value.to_string()
    };
    quote(&defused)
}

fn quote(value: &str) -> String {
    if value.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

/// An exact decimal as stored (never through a float).
fn number(d: Decimal) -> String {
    d.normalize().to_string()
}

fn utc(ms: Option<i64>) -> String {
    ms.and_then(DateTime::from_timestamp_millis)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default()
}

fn local(ms: Option<i64>, tz: Tz) -> String {
    ms.and_then(DateTime::from_timestamp_millis)
        .map(|t| {
            t.with_timezone(&tz)
                .to_rfc3339_opts(SecondsFormat::Millis, false)
        })
        .unwrap_or_default()
}

pub(crate) fn row(t: &Trade, tz: Tz) -> String {
    let cells = [
        t.id.to_string(),
        text_cell(&t.symbol),
        signaldesk_store::repo::trades::side_str(t.side).to_string(),
        t.status.as_str().to_string(),
        number(t.qty),
        t.leverage.to_string(),
        number(t.margin),
        t.entry_price.map(number).unwrap_or_default(),
        t.exit_price.map(number).unwrap_or_default(),
        number(t.pnl),
        number(t.fees),
        number(t.funding),
        text_cell(t.close_reason.as_deref().unwrap_or_default()),
        t.chain_id.map(|c| c.to_string()).unwrap_or_default(),
        t.chain_step.map(|c| c.to_string()).unwrap_or_default(),
        utc(Some(t.created_at)),
        utc(t.opened_at),
        utc(t.closed_at),
        local(t.opened_at, tz),
        local(t.closed_at, tz),
        text_cell(tz.name()),
    ];
    let mut line = cells.join(",");
    line.push_str("\r\n");
    line
}

/// The export's stream: the header, then windows of rows until the search is exhausted.
/// A store error mid-way ends the body early (the status is already sent); it is logged.
fn body(store: Store, user_id: i64, search: TradeSearch, tz: Tz) -> Body {
    let header = format!("{}\r\n", HEADER.join(","));
    let first = stream::once(async move { Ok::<_, std::io::Error>(header) });
    let rows = stream::unfold(Some(search), move |next| {
        let store = store.clone();
        async move {
            let mut search = next?;
            search.limit = BATCH;
            match store.search_trades(user_id, &search).await {
                Ok(trades) if trades.is_empty() => None,
                Ok(trades) => {
                    let text: String = trades.iter().map(|t| row(t, tz)).collect();
                    let more = trades.len() as i64 == BATCH;
                    search.after = trades.last().map(|t| TradeCursor {
                        key: search.sort.of(t),
                        id: t.id,
                    });
                    Some((Ok(text), more.then_some(search)))
                }
                Err(e) => {
                    tracing::error!(user_id, error = %e, "trades export stopped");
                    Some((Err(std::io::Error::other("the export stopped")), None))
                }
            }
        }
    });
    // Fused: the compression layer polls a body once more after its end, which an unfused
    // `unfold` answers with a panic.
    Body::from_stream(first.chain(rows).fuse())
}

/// Every trade of the account matching the filter, as CSV.
#[utoipa::path(get, path = "/api/trades/export.csv", tag = "trades", params(TradeFilterQuery),
    responses((status = 200, content_type = "text/csv", body = String,
               description = "A header row, then one row per trade in the list's order."),
              (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
pub async fn export(
    State(state): State<AppState>,
    auth: AuthUser,
    ApiQuery(q): ApiQuery<TradeFilterQuery>,
) -> ApiResult<Response> {
    let ParsedFilter { search, tz, .. } = parse_filter(&state, auth.id(), &q).await?;
    let date = Utc::now().with_timezone(&tz).format("%Y-%m-%d");
    let filename = format!("trades-{}-{date}.csv", search.venue.as_str());
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
        body(state.store.clone(), auth.id(), search, tz),
    )
        .into_response())
}
