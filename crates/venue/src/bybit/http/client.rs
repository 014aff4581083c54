//! The Bybit V5 REST client (public market endpoints; the private ones will sign requests
//! here too).

use std::time::Duration;

use serde::de::DeserializeOwned;
use signaldesk_core::market::{Candle, Instrument, RiskTier};

use super::error::BybitHttpError;
use super::ip_ban;
use super::models::{
    dec, kline_row, Envelope, FundingHistoryResult, InstrumentInfo, InstrumentsResult, KlineResult,
    RiskLimitResult, Ticker, TickersResult,
};

/// Mainnet REST base URL.
pub const MAINNET_REST_URL: &str = "https://api.bybit.com";

/// Most rows one kline request returns.
pub const KLINE_PAGE: usize = 1000;

/// Most rows one funding history request returns ("limit: [`1`, `200`]. Default: `200`",
/// docs/v5/market/history-fund-rate.mdx).
pub const FUNDING_PAGE: usize = 200;

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

    /// GET /v5/market/funding/history: up to [`FUNDING_PAGE`] settlements `(time, rate)` of
    /// `symbol` in `[start_ms, end_ms]`, the newest ones when there are more, oldest first.
    pub async fn funding_history(
        &self,
        symbol: &str,
        start_ms: i64,
        end_ms: i64,
    ) -> Result<Vec<(i64, rust_decimal::Decimal)>, BybitHttpError> {
        let query = [
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
            ("startTime", start_ms.to_string()),
            ("endTime", end_ms.to_string()),
            ("limit", FUNDING_PAGE.to_string()),
        ];
        let (result, _): (FundingHistoryResult, _) =
            self.get("/v5/market/funding/history", &query).await?;
        let mut rates = result
            .list
            .iter()
            .map(|row| {
                let at = row.funding_rate_timestamp.parse().map_err(|_| {
                    BybitHttpError::Decode(format!(
                        "fundingRateTimestamp is not a time: {:?}",
                        row.funding_rate_timestamp
                    ))
                })?;
                Ok((at, dec("fundingRate", &row.funding_rate)?))
            })
            .collect::<Result<Vec<_>, BybitHttpError>>()?;
        rates.sort_by_key(|(at, _)| *at);
        Ok(rates)
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

    /// GETs `path` page after page, each asking for the `cursor` the one before named
    /// (`rows` answers a page's rows and its `nextPageCursor`), until a page is empty or
    /// names no new page; every page's rows.
    async fn every_page<P: DeserializeOwned, R>(
        &self,
        path: &str,
        query: &[(&str, String)],
        rows: impl Fn(P) -> (Vec<R>, Option<String>),
    ) -> Result<Vec<R>, BybitHttpError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut paged = query.to_vec();
            if let Some(c) = &cursor {
                paged.push(("cursor", c.clone()));
            }
            let (page, _): (P, _) = self.get(path, &paged).await?;
            let (list, next) = rows(page);
            let empty = list.is_empty();
            out.extend(list);
            match next.filter(|c| !c.is_empty()) {
                Some(next) if !empty && cursor.as_ref() != Some(&next) => cursor = Some(next),
                _ => return Ok(out),
            }
        }
    }

    /// GET /v5/market/instruments-info, every page: USDT perpetuals that are trading.
    pub async fn instruments(&self) -> Result<Vec<Instrument>, BybitHttpError> {
        let query = [
            ("category", "linear".to_string()),
            ("limit", "1000".to_string()),
        ];
        let all = self
            .every_page(
                "/v5/market/instruments-info",
                &query,
                |page: InstrumentsResult| (page.list, page.next_page_cursor),
            )
            .await?;
        all.iter()
            .filter(|info| info.untradable().is_none())
            .map(InstrumentInfo::to_instrument)
            .collect()
    }

    /// GET /v5/market/instruments-info?category=linear&symbol=…: how Bybit lists `symbol`,
    /// `None` when it does not. Unless asked for another status Bybit answers `Trading`
    /// contracts only (market/instrument: "`linear` & `inverse` & `spot` By default returns
    /// only `Trading` symbols"), so a contract not trading is not found either.
    pub async fn instrument_info(
        &self,
        symbol: &str,
    ) -> Result<Option<InstrumentInfo>, BybitHttpError> {
        let query = [
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
        ];
        let (page, _): (InstrumentsResult, _) =
            self.get("/v5/market/instruments-info", &query).await?;
        Ok(page.list.into_iter().find(|info| info.symbol == symbol))
    }

    /// GET /v5/market/risk-limit?category=linear&symbol=…, every page: `symbol`'s risk limit
    /// tiers, the lowest first (by position value).
    pub async fn risk_tiers(&self, symbol: &str) -> Result<Vec<RiskTier>, BybitHttpError> {
        let query = [
            ("category", "linear".to_string()),
            ("symbol", symbol.to_string()),
        ];
        let rows = self
            .every_page("/v5/market/risk-limit", &query, |page: RiskLimitResult| {
                (page.list, page.next_page_cursor)
            })
            .await?;
        let mut tiers = rows
            .iter()
            .filter(|row| row.symbol == symbol)
            .map(|row| row.to_tier())
            .collect::<Result<Vec<_>, _>>()?;
        tiers.sort_by_key(|t| t.risk_limit_value);
        Ok(tiers)
    }
}
