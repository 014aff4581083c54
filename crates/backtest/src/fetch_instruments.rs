//! The instruments half of `signaldesk candles fetch`: each symbol's trading rules
//! (`GET /v5/market/instruments-info`) and risk limit tiers (`GET /v5/market/risk-limit`)
//! as Bybit lists them now, stored in place of what the store had, for backtests on the
//! symbol's candles. A symbol Bybit does not trade is refused before anything is stored.

use std::time::Duration;

use signaldesk_store::{Store, StoredInstrument};
use signaldesk_venue::bybit::http::BybitHttpClient;

use crate::fetch::{now_ms, retried};
use crate::BacktestError;

/// Asks Bybit for every one of `symbols` (waiting `pace` between requests), then stores
/// them all; [`BacktestError::NotOnBybit`] for the first one it does not trade as a USDT
/// perpetual, with nothing stored.
pub async fn fetch_instruments(
    client: &BybitHttpClient,
    store: &Store,
    symbols: &[String],
    pace: Duration,
) -> Result<Vec<StoredInstrument>, BacktestError> {
    let mut fetched = Vec::with_capacity(symbols.len());
    for (i, symbol) in symbols.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(pace).await;
        }
        fetched.push(fetch_instrument(client, symbol, pace).await?);
    }
    for stored in &fetched {
        store.save_instrument(stored).await?;
    }
    Ok(fetched)
}

/// `symbol`'s instrument and risk limit tiers as Bybit lists them now.
async fn fetch_instrument(
    client: &BybitHttpClient,
    symbol: &str,
    pace: Duration,
) -> Result<StoredInstrument, BacktestError> {
    let refused = |why: String| BacktestError::NotOnBybit {
        symbol: symbol.to_string(),
        why,
    };
    let info = retried(symbol, || client.instrument_info(symbol))
        .await?
        .ok_or_else(|| {
            refused(
                "it lists no trading linear contract of that name (GET /v5/market/instruments-info?category=linear)"
                    .into(),
            )
        })?;
    if let Some(why) = info.untradable() {
        return Err(refused(why));
    }
    let instrument = info
        .to_instrument()
        .map_err(|e| BacktestError::Data(format!("{symbol}: {e}")))?;
    tokio::time::sleep(pace).await;
    let risk_tiers = retried(symbol, || client.risk_tiers(symbol)).await?;
    if risk_tiers.is_empty() {
        return Err(refused(
            "it lists no risk limit tiers for it (GET /v5/market/risk-limit?category=linear)"
                .into(),
        ));
    }
    Ok(StoredInstrument {
        instrument,
        risk_tiers,
        fetched_at: now_ms(),
    })
}
