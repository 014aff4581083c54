//! `signaldesk candles fetch`: Bybit's public 1-minute klines into the store, for backtests
//! on real history. Resumable and gap-filling by construction: only the minutes the store
//! lacks are asked for, newest first in pages of 1,000 (`GET /v5/market/kline` with `end`),
//! at a steady pace well inside Bybit's public limits, each page stored before the next.
//! The funding rates of the period come the same way ([`fetch_funding`]).

use std::future::Future;
use std::time::Duration;

use signaldesk_core::market::Candle;
use signaldesk_store::Store;
use signaldesk_venue::bybit::http::client::{FUNDING_PAGE, KLINE_PAGE};
use signaldesk_venue::bybit::http::{BybitHttpClient, BybitHttpError};
use signaldesk_venue::market::funding::{next_settlement, FUNDING_INTERVAL_MS};

use crate::BacktestError;

const MINUTE_MS: i64 = 60_000;
/// Tries of one request before the fetch gives up (network faults, 5xx, rate limits).
const TRIES: u32 = 5;

/// How one symbol's fetch went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fetched {
    /// Minutes of the period the store had already.
    pub stored_before: usize,
    /// Candles stored by this fetch.
    pub stored_now: usize,
    /// Minutes still missing: Bybit has no candle for them (before the listing, outages) or
    /// they have not closed yet.
    pub missing: usize,
    /// Kline requests sent.
    pub requests: usize,
}

/// The stretches `[start, end)` of whole minutes in `[from_ms, to_ms)` missing from `have`
/// (sorted open times).
pub fn gaps(have: &[i64], from_ms: i64, to_ms: i64) -> Vec<(i64, i64)> {
    gaps_of(have, from_ms, to_ms, MINUTE_MS)
}

/// The stretches `[start, end)` of `[from_ms, to_ms)` missing from `have` (sorted times each
/// covering `step`).
fn gaps_of(have: &[i64], from_ms: i64, to_ms: i64, step: i64) -> Vec<(i64, i64)> {
    let mut gaps = Vec::new();
    let mut next = from_ms;
    for &t in have {
        if t > next {
            gaps.push((next, t));
        }
        next = next.max(t + step);
    }
    if next < to_ms {
        gaps.push((next, to_ms));
    }
    gaps
}

/// Fetches what the store lacks of `symbol`'s 1-minute candles opened in `[from_ms, to_ms)`
/// (floored to minutes; only closed candles are kept), waiting `pace` between requests and
/// telling `progress` the minutes of the period stored so far.
pub async fn fetch_candles(
    client: &BybitHttpClient,
    store: &Store,
    symbol: &str,
    from_ms: i64,
    to_ms: i64,
    pace: Duration,
    mut progress: impl FnMut(usize, usize),
) -> Result<Fetched, BacktestError> {
    let from = from_ms.div_euclid(MINUTE_MS) * MINUTE_MS;
    let closed_by = now_ms().div_euclid(MINUTE_MS) * MINUTE_MS;
    let to = to_ms.div_euclid(MINUTE_MS).min(closed_by / MINUTE_MS) * MINUTE_MS;
    let total = usize::try_from((to - from).max(0) / MINUTE_MS).unwrap_or(0);
    let have = store.candle_times(symbol, from, to).await?;
    let mut done = Fetched {
        stored_before: have.len(),
        ..Fetched::default()
    };
    progress(have.len(), total);
    for (start, end) in gaps(&have, from, to).into_iter().rev() {
        let mut last = end - MINUTE_MS;
        while last >= start {
            if done.requests > 0 {
                tokio::time::sleep(pace).await;
            }
            let page = page(client, symbol, last).await?;
            done.requests += 1;
            let fresh: Vec<Candle> = page
                .into_iter()
                .filter(|c| c.open_time_ms >= start && c.open_time_ms <= last)
                .collect();
            let Some(oldest) = fresh.first().map(|c| c.open_time_ms) else {
                break;
            };
            store.save_candles(symbol, &fresh).await?;
            done.stored_now += fresh.len();
            progress(done.stored_before + done.stored_now, total);
            last = oldest - MINUTE_MS;
        }
    }
    done.missing = total.saturating_sub(done.stored_before + done.stored_now);
    Ok(done)
}

/// How one symbol's funding history fetch went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchedFunding {
    /// Settlements of the period the store had already.
    pub stored_before: usize,
    /// Settlements stored by this fetch.
    pub stored_now: usize,
    /// Funding history requests sent.
    pub requests: usize,
}

/// Fetches what the store lacks of `symbol`'s funding rates settled in `[from_ms, to_ms)`
/// (`GET /v5/market/funding/history`, newest first in pages of 200), waiting `pace` between
/// requests. Only the 8-hour periods without a stored settlement are asked for: a second
/// fetch of the same period sends nothing but for times Bybit has no rate for (before the
/// listing, or still to come).
pub async fn fetch_funding(
    client: &BybitHttpClient,
    store: &Store,
    symbol: &str,
    from_ms: i64,
    to_ms: i64,
    pace: Duration,
) -> Result<FetchedFunding, BacktestError> {
    let from = next_settlement(from_ms - 1);
    let to = to_ms.min(now_ms() + 1);
    let have: Vec<i64> = store
        .funding_rates_between(symbol, from, to)
        .await?
        .into_iter()
        .map(|(at, _)| at)
        .collect();
    let mut done = FetchedFunding {
        stored_before: have.len(),
        ..FetchedFunding::default()
    };
    for (start, end) in gaps_of(&have, from, to, FUNDING_INTERVAL_MS)
        .into_iter()
        .rev()
    {
        let mut last = end - 1;
        while last >= start {
            if done.requests > 0 {
                tokio::time::sleep(pace).await;
            }
            let page = retried(symbol, || client.funding_history(symbol, start, last)).await?;
            done.requests += 1;
            let Some(&(oldest, _)) = page.first() else {
                break;
            };
            store.save_funding_rates(symbol, &page).await?;
            done.stored_now += page.len();
            if page.len() < FUNDING_PAGE {
                break;
            }
            last = oldest - 1;
        }
    }
    Ok(done)
}

/// One page of up to 1,000 candles ending at `last`, tried again on faults that pass.
async fn page(
    client: &BybitHttpClient,
    symbol: &str,
    last: i64,
) -> Result<Vec<Candle>, BacktestError> {
    let (candles, _) = retried(symbol, || {
        client.klines(symbol, "1", KLINE_PAGE, Some(last))
    })
    .await?;
    Ok(candles)
}

/// `request`'s answer, sent again after 0.5, 1, 2 and 4 s while it fails in a way that
/// passes; any other failure (or the fifth) is [`BacktestError::Data`] naming `symbol`.
pub(crate) async fn retried<T, F>(
    symbol: &str,
    mut request: impl FnMut() -> F,
) -> Result<T, BacktestError>
where
    F: Future<Output = Result<T, BybitHttpError>>,
{
    let mut wait = Duration::from_millis(500);
    for attempt in 1..=TRIES {
        match request().await {
            Ok(answer) => return Ok(answer),
            Err(e) if attempt < TRIES && passes(&e) => {
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            Err(e) => return Err(BacktestError::Data(format!("{symbol}: {e}"))),
        }
    }
    unreachable!("the last try returns")
}

/// Whether a failed request may succeed if sent again later.
fn passes(error: &BybitHttpError) -> bool {
    match error {
        BybitHttpError::Transport(_) => true,
        BybitHttpError::Status { status, .. } => *status == 429 || *status >= 500,
        BybitHttpError::Api { code, .. } => matches!(code, 10000 | 10006 | 10016 | 10018),
        BybitHttpError::Decode(_) | BybitHttpError::IpBanned { .. } => false,
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::gaps;

    const M: i64 = 60_000;

    #[test]
    fn gaps_are_the_minutes_not_stored() {
        assert_eq!(gaps(&[], 0, 10 * M), [(0, 10 * M)]);
        assert_eq!(gaps(&[0, M, 2 * M], 0, 3 * M), []);
        assert_eq!(
            gaps(&[2 * M, 3 * M, 7 * M], 0, 10 * M),
            [(0, 2 * M), (4 * M, 7 * M), (8 * M, 10 * M)]
        );
    }
}
