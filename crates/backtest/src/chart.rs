//! A trade's price chart: the symbol's candles around it as the run saw them (the same
//! deterministic history), with markers at the entry, at each take profit and at the exit.
//! A take profit's time is the first minute whose price path reached its level, which is
//! when the worker took it.

use rust_decimal::Decimal;
use signaldesk_core::market::{Candle, Instrument, PositionSide};
use signaldesk_core::settings::BotSettings;
use signaldesk_core::trading::take_profit_price;
use signaldesk_venue::market::candles::aggregate;

use crate::feed::MINUTE_MS;
use crate::path::price_path;

/// The most candles a chart shows: the interval grows until the window fits.
pub const MAX_CANDLES: usize = 400;
const INTERVALS: [u32; 8] = [1, 3, 5, 15, 30, 60, 240, 1440];

/// The trade as the run's result lists it.
#[derive(Debug, Clone)]
pub struct ChartTrade {
    pub symbol: String,
    pub side: PositionSide,
    pub entry_price: Decimal,
    pub opened_ms: i64,
    pub exit_price: Option<Decimal>,
    pub closed_ms: Option<i64>,
    /// The levels of the take profits it took, in order.
    pub take_profit_levels: Vec<Decimal>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerKind {
    Entry,
    TakeProfit,
    Exit,
}

impl MarkerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MarkerKind::Entry => "entry",
            MarkerKind::TakeProfit => "take_profit",
            MarkerKind::Exit => "exit",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub time_ms: i64,
    pub kind: MarkerKind,
    pub price: Decimal,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TradeChart {
    pub symbol: String,
    pub interval_minutes: u32,
    pub candles: Vec<Candle>,
    pub markers: Vec<Marker>,
}

impl ChartTrade {
    /// The levels of a trade's first `taken` take profits on `instrument` (the ladder of the
    /// settings it traded with, as the worker computes it).
    pub fn take_profit_levels(
        instrument: &Instrument,
        side: PositionSide,
        entry_price: Decimal,
        settings: &BotSettings,
        taken: u32,
    ) -> Vec<Decimal> {
        (0..taken)
            .map(|step| take_profit_price(side, entry_price, settings, step, instrument))
            .collect()
    }

    /// The minutes the chart covers: the trade (to `end_ms` while still open) with a margin
    /// of a fifth of its length, at least half an hour, on each side.
    pub fn window(&self, end_ms: i64) -> (i64, i64) {
        let closed = self.closed_ms.unwrap_or(end_ms).max(self.opened_ms);
        let margin = ((closed - self.opened_ms) / 5).max(30 * MINUTE_MS);
        let from = (self.opened_ms - margin).div_euclid(MINUTE_MS) * MINUTE_MS;
        let to = (closed + margin).div_euclid(MINUTE_MS) * MINUTE_MS + MINUTE_MS;
        (from, to)
    }

    /// The chart over `minutes` (1-minute candles of the window, oldest first).
    pub fn chart(&self, minutes: &[Candle]) -> TradeChart {
        let span = minutes.len().max(1);
        let interval = INTERVALS
            .into_iter()
            .find(|i| span.div_ceil(*i as usize) <= MAX_CANDLES)
            .unwrap_or(1440);
        let candles = if interval == 1 {
            minutes.to_vec()
        } else {
            aggregate_partial(minutes, interval)
        };
        let mut markers = vec![Marker {
            time_ms: self.opened_ms,
            kind: MarkerKind::Entry,
            price: self.entry_price,
            label: format!("Entry {}", self.entry_price),
        }];
        let after_entry = minutes
            .iter()
            .filter(|c| c.open_time_ms + MINUTE_MS > self.opened_ms);
        let mut levels = self.take_profit_levels.iter().enumerate().peekable();
        for candle in after_entry {
            for (offset, price) in price_path(candle) {
                while let Some((n, level)) = levels.peek().copied() {
                    if !self.reached(price, *level) {
                        break;
                    }
                    markers.push(Marker {
                        time_ms: (candle.open_time_ms + offset).max(self.opened_ms),
                        kind: MarkerKind::TakeProfit,
                        price: *level,
                        label: format!("TP {} {level}", n + 1),
                    });
                    levels.next();
                }
            }
        }
        if let (Some(closed), Some(price)) = (self.closed_ms, self.exit_price) {
            markers.push(Marker {
                time_ms: closed,
                kind: MarkerKind::Exit,
                price,
                label: format!("Exit {price}"),
            });
        }
        TradeChart {
            symbol: self.symbol.clone(),
            interval_minutes: interval,
            candles,
            markers,
        }
    }

    fn reached(&self, price: Decimal, level: Decimal) -> bool {
        match self.side {
            PositionSide::Long => price >= level,
            PositionSide::Short => price <= level,
        }
    }
}

/// `minutes` in candles of `interval` minutes, the window's first and last (cut) buckets
/// included.
fn aggregate_partial(minutes: &[Candle], interval: u32) -> Vec<Candle> {
    let mut out: Vec<Candle> = Vec::new();
    for bucket in minutes.chunk_by(|a, b| {
        let len = i64::from(interval) * MINUTE_MS;
        a.open_time_ms.div_euclid(len) == b.open_time_ms.div_euclid(len)
    }) {
        // A whole bucket aggregates as everywhere else; a cut one from what it has.
        let whole = aggregate(bucket, 1, interval);
        out.extend(whole.into_iter().next().or_else(|| {
            let first = bucket.first()?;
            let last = bucket.last()?;
            Some(Candle {
                open_time_ms: first
                    .open_time_ms
                    .div_euclid(i64::from(interval) * MINUTE_MS)
                    * i64::from(interval)
                    * MINUTE_MS,
                open: first.open,
                high: bucket.iter().map(|c| c.high).max()?,
                low: bucket.iter().map(|c| c.low).min()?,
                close: last.close,
                volume: bucket.iter().map(|c| c.volume).sum(),
            })
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn minute(i: i64, open: Decimal, high: Decimal, low: Decimal, close: Decimal) -> Candle {
        Candle {
            open_time_ms: i * MINUTE_MS,
            open,
            high,
            low,
            close,
            volume: dec!(1),
        }
    }

    #[test]
    fn markers_sit_at_the_entry_each_take_profit_s_first_touch_and_the_exit() {
        let minutes = vec![
            minute(0, dec!(100), dec!(100), dec!(100), dec!(100)),
            minute(1, dec!(100), dec!(101), dec!(99), dec!(101)),
            minute(2, dec!(101), dec!(103), dec!(101), dec!(102)),
            minute(3, dec!(102), dec!(106), dec!(102), dec!(105)),
            minute(4, dec!(105), dec!(105), dec!(98), dec!(98)),
        ];
        let trade = ChartTrade {
            symbol: "BTCUSDT".into(),
            side: PositionSide::Long,
            entry_price: dec!(100),
            opened_ms: MINUTE_MS,
            exit_price: Some(dec!(98)),
            closed_ms: Some(4 * MINUTE_MS + 30_000),
            take_profit_levels: vec![dec!(102), dec!(104)],
        };
        let chart = trade.chart(&minutes);
        assert_eq!(chart.interval_minutes, 1);
        let seen: Vec<(MarkerKind, i64, Decimal)> = chart
            .markers
            .iter()
            .map(|m| (m.kind, m.time_ms, m.price))
            .collect();
        assert_eq!(
            seen,
            [
                (MarkerKind::Entry, MINUTE_MS, dec!(100)),
                (MarkerKind::TakeProfit, 2 * MINUTE_MS + 30_000, dec!(102)),
                (MarkerKind::TakeProfit, 3 * MINUTE_MS + 30_000, dec!(104)),
                (MarkerKind::Exit, 4 * MINUTE_MS + 30_000, dec!(98)),
            ]
        );
    }

    #[test]
    fn a_long_window_is_drawn_in_longer_candles_and_keeps_its_extremes() {
        let minutes: Vec<Candle> = (0..2_000)
            .map(|i| {
                let p = Decimal::from(100 + (i % 50));
                minute(i, p, p + dec!(1), p - dec!(1), p)
            })
            .collect();
        let trade = ChartTrade {
            symbol: "BTCUSDT".into(),
            side: PositionSide::Short,
            entry_price: dec!(120),
            opened_ms: 0,
            exit_price: None,
            closed_ms: None,
            take_profit_levels: Vec::new(),
        };
        let chart = trade.chart(&minutes);
        assert_eq!(chart.interval_minutes, 5);
        assert!(chart.candles.len() <= MAX_CANDLES);
        assert_eq!(chart.candles.iter().map(|c| c.high).max(), Some(dec!(150)));
        assert_eq!(chart.candles.iter().map(|c| c.low).min(), Some(dec!(99)));
        assert_eq!(
            trade.window(3_600_000),
            (-30 * MINUTE_MS, 3_600_000 + 30 * MINUTE_MS + MINUTE_MS)
        );
    }
}
