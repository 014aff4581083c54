//! The Bybit V5 adapter. Public market data (no keys): REST `/v5/market/*` in [`http`], the
//! public linear websocket in [`ws`], both behind [`MarketData`](crate::market::MarketData)
//! in [`BybitMarketData`]. Trading with an API key: [`private::BybitVenue`] implements
//! [`Venue`](crate::Venue) on the signed REST API and the private websocket.

pub mod http;
mod market_data;
pub mod private;
mod settings;
pub mod ws;

pub use market_data::{BybitMarketConfig, BybitMarketData};
pub use private::market_order_price_limit;
pub use settings::BybitSettings;

/// Bybit's kline interval name for `minutes`, if Bybit has that interval.
pub fn interval_name(minutes: u32) -> Option<&'static str> {
    Some(match minutes {
        1 => "1",
        3 => "3",
        5 => "5",
        15 => "15",
        30 => "30",
        60 => "60",
        120 => "120",
        240 => "240",
        360 => "360",
        720 => "720",
        1440 => "D",
        10080 => "W",
        _ => return None,
    })
}

/// Minutes of a Bybit kline interval name (`"15"`, `"D"`, `"W"`; months are not fixed).
pub fn interval_minutes(name: &str) -> Option<u32> {
    match name {
        "D" => Some(1440),
        "W" => Some(10080),
        n => n.parse().ok().filter(|m| interval_name(*m).is_some()),
    }
}
