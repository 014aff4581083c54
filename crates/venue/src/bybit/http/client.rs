//! The Bybit V5 REST client (public market endpoints; the private ones will sign requests
//! here too).

use std::time::Duration;

use serde::de::DeserializeOwned;
use signaldesk_core::market::{Candle, Instrument};

use super::error::BybitHttpError;
use super::ip_ban;
use super::models::{kline_row, Envelope, InstrumentsResult, KlineResult, Ticker, TickersResult};

/// Mainnet REST base URL.
pub const MAINNET_REST_URL: &str = "https://api.bybit.com";

/// Most rows one kline request returns.
pub const KLINE_PAGE: usize = 1000;

#[derive(Debug, Clone)]
pub struct BybitHttpClient {
    http: reqwest::Client,
    base_url: String,
}

impl BybitHttpClient {
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, BybitHttpError> {
        let http = reqwest::Client::builder().timeout(timeout).build()?;
        Ok(Self {
            http,
            base_url: base_url.trim_end_matches('/').to_string(),
        })
    }

    /// GETs `path` and returns the `result` and the server time of the answer.
    async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(T, Option<i64>), BybitHttpError> {
        let request = self
            .http
            .get(format!("{}{}", self.base_url, path))
            .query(query);
        let response = ip_ban::send(&self.base_url, ip_ban::DEFAULT_WAIT, request).await?;
        let status = response.status();
        let body = response.text().await?;
        if !status.is_success() {
            let mut body = body;
            body.truncate(300);
            return Err(BybitHttpError::Status {
                status: status.as_u16(),
                body,
            });
        }
        let envelope: Envelope = serde_json::from_str(&body)
            .map_err(|e| BybitHttpError::Decode(format!("{path}: {e}")))?;
        if envelope.ret_code != 0 {
            return Err(BybitHttpError::Api {
                code: envelope.ret_code,
                message: envelope.ret_msg,
            });
        }
        let result = serde_json::from_value(envelope.result)
            .map_err(|e| BybitHttpError::Decode(format!("{path}: {e}")))?;
        Ok((result, envelope.time))
    }

    /// GET /v5/market/kline: up to `limit` (at most 1000) candles ending at `end` (or now),
    /// oldest first, the still-open one included; and the server time.
    pub async fn klines(
        &self,
        symbol: &str,
        interval: &str,
        limit: usize,
        end_ms: Option<i64>,
    ) -> Result<(Vec<Candle>, Option<i64>), BybitHttpError> {
        let mut query = vec![
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
            ("interval", interval.to_string()),
            ("limit", limit.clamp(1, KLINE_PAGE).to_string()),
        ];
        if let Some(end) = end_ms {
            query.push(("end", end.to_string()));
        }
        let (result, time): (KlineResult, _) = self.get("/v5/market/kline", &query).await?;
        let mut candles = result
            .list
            .iter()
            .map(|row| kline_row(row))
            .collect::<Result<Vec<_>, _>>()?;
        candles.sort_by_key(|c| c.open_time_ms);
        Ok((candles, time))
    }

    /// GET /v5/market/tickers for one symbol.
    pub async fn ticker(&self, symbol: &str) -> Result<Option<Ticker>, BybitHttpError> {
        let query = [
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
        ];
        let (result, _): (TickersResult, _) = self.get("/v5/market/tickers", &query).await?;
        Ok(result.list.into_iter().find(|t| t.symbol == symbol))
    }

    /// GET /v5/market/tickers for every linear symbol ("symbol: Symbol name. If category=
    /// option, symbol or baseCoin must be passed": linear may omit it).
    pub async fn tickers(&self) -> Result<Vec<Ticker>, BybitHttpError> {
        let query = [("category", "linear".to_string())];
        let (result, _): (TickersResult, _) = self.get("/v5/market/tickers", &query).await?;
        Ok(result.list)
    }

    /// GET /v5/market/instruments-info, every page: USDT perpetuals that are trading.
    pub async fn instruments(&self) -> Result<Vec<Instrument>, BybitHttpError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut query = vec![
                ("category", "linear".to_string()),
                ("limit", "1000".to_string()),
            ];
            if let Some(c) = &cursor {
                query.push(("cursor", c.clone()));
            }
            let (page, _): (InstrumentsResult, _) =
                self.get("/v5/market/instruments-info", &query).await?;
            for info in &page.list {
                let perpetual =
                    info.contract_type.is_empty() || info.contract_type == "LinearPerpetual";
                if info.status == "Trading" && info.quote_coin == "USDT" && perpetual {
                    out.push(info.to_instrument()?);
                }
            }
            match page.next_page_cursor.filter(|c| !c.is_empty()) {
                Some(next) if !page.list.is_empty() && cursor.as_ref() != Some(&next) => {
                    cursor = Some(next)
                }
                _ => return Ok(out),
            }
        }
    }
}
