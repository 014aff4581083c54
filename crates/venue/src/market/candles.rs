//! Candle building: ticks into a candle, and shorter candles into longer ones.

use rust_decimal::Decimal;
use signaldesk_core::market::Candle;

/// Milliseconds in `minutes`.
pub fn minutes_ms(minutes: u32) -> i64 {
    i64::from(minutes) * 60_000
}

/// Start of the `interval_minutes` bucket holding `ts_ms` (buckets are aligned to the Unix
/// epoch, as exchanges align them: a 15-minute candle opens at :00, :15, :30, :45).
pub fn bucket_start(ts_ms: i64, interval_minutes: u32) -> i64 {
    let len = minutes_ms(interval_minutes.max(1));
    ts_ms.div_euclid(len) * len
}

/// Aggregates consecutive candles of `from_minutes` (oldest first) into candles of
/// `to_minutes`: open of the first, highest high, lowest low, close of the last, summed
/// volume. Only complete buckets are returned (every shorter candle present), so a bucket
/// cut by the start or the end of the input is left out.
pub fn aggregate(candles: &[Candle], from_minutes: u32, to_minutes: u32) -> Vec<Candle> {
    if from_minutes == 0 || to_minutes < from_minutes || !to_minutes.is_multiple_of(from_minutes) {
        return Vec::new();
    }
    let per_bucket = (to_minutes / from_minutes) as usize;
    let mut out = Vec::with_capacity(candles.len() / per_bucket + 1);
    let mut current: Option<(Candle, usize)> = None;
    for c in candles {
        let start = bucket_start(c.open_time_ms, to_minutes);
        match current.as_mut() {
            Some((agg, n)) if agg.open_time_ms == start => {
                extend(agg, c);
                *n += 1;
            }
            _ => {
                if let Some((agg, n)) = current.take() {
                    if n == per_bucket {
                        out.push(agg);
                    }
                }
                current = Some((
                    Candle {
                        open_time_ms: start,
                        ..c.clone()
                    },
                    1,
                ));
            }
        }
    }
    if let Some((agg, n)) = current {
        if n == per_bucket {
            out.push(agg);
        }
    }
    out
}

/// Adds the next shorter candle `c` to `agg`, the longer one it belongs to: the highest
/// high, the lowest low, `c`'s close, the summed volume.
pub fn extend(agg: &mut Candle, c: &Candle) {
    agg.high = agg.high.max(c.high);
    agg.low = agg.low.min(c.low);
    agg.close = c.close;
    agg.volume += c.volume;
}

/// A candle being built from trades.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandleBuilder {
    candle: Candle,
}

impl CandleBuilder {
    /// Opens a candle at `open_time_ms` with a first trade.
    pub fn open(open_time_ms: i64, price: Decimal, volume: Decimal) -> Self {
        Self {
            candle: Candle {
                open_time_ms,
                open: price,
                high: price,
                low: price,
                close: price,
                volume,
            },
        }
    }

    /// Adds a trade.
    pub fn trade(&mut self, price: Decimal, volume: Decimal) {
        let c = &mut self.candle;
        c.high = c.high.max(price);
        c.low = c.low.min(price);
        c.close = price;
        c.volume += volume;
    }

    pub fn open_time_ms(&self) -> i64 {
        self.candle.open_time_ms
    }

    /// The candle as it stands.
    pub fn candle(&self) -> &Candle {
        &self.candle
    }

    /// The finished candle.
    pub fn finish(self) -> Candle {
        self.candle
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn minute(i: i64, o: Decimal, h: Decimal, l: Decimal, c: Decimal, v: Decimal) -> Candle {
        Candle {
            // 1_700_000_100_000 is a multiple of 15 minutes.
            open_time_ms: 1_700_000_100_000 + i * 60_000,
            open: o,
            high: h,
            low: l,
            close: c,
            volume: v,
        }
    }

    #[test]
    fn fifteen_one_minute_candles_make_one_fifteen_minute_candle() {
        // Prices rise by 1 a minute from 100; minute 6 spikes to 130 and minute 11 dips to 90.
        let mut ones = Vec::new();
        for i in 0..15 {
            let o = dec!(100) + Decimal::from(i);
            let mut h = o + dec!(0.5);
            let mut l = o - dec!(0.5);
            if i == 6 {
                h = dec!(130);
            }
            if i == 11 {
                l = dec!(90);
            }
            ones.push(minute(i, o, h, l, o + dec!(0.25), dec!(1.5)));
        }
        let fifteen = aggregate(&ones, 1, 15);
        assert_eq!(fifteen.len(), 1);
        let c = &fifteen[0];
        assert_eq!(c.open_time_ms, ones[0].open_time_ms);
        assert_eq!(c.open, dec!(100));
        assert_eq!(c.high, dec!(130));
        assert_eq!(c.low, dec!(90));
        assert_eq!(c.close, dec!(114.25));
        assert_eq!(c.volume, dec!(22.5));
    }

    #[test]
    fn incomplete_buckets_are_left_out() {
        let ones: Vec<Candle> = (3..33)
            .map(|i| minute(i, dec!(1), dec!(2), dec!(0.5), dec!(1), dec!(1)))
            .collect();
        // Minutes 3..14 (partial), 15..29 (complete), 30..32 (partial).
        let fifteen = aggregate(&ones, 1, 15);
        assert_eq!(fifteen.len(), 1);
        assert_eq!(fifteen[0].open_time_ms, ones[12].open_time_ms);
        assert_eq!(fifteen[0].volume, dec!(15));
    }

    #[test]
    fn bad_ratios_give_nothing() {
        let ones = vec![minute(0, dec!(1), dec!(1), dec!(1), dec!(1), dec!(1))];
        assert!(aggregate(&ones, 2, 15).is_empty());
        assert!(aggregate(&ones, 0, 15).is_empty());
        assert_eq!(aggregate(&ones, 1, 1), ones);
    }

    #[test]
    fn builder_tracks_ohlcv() {
        let mut b = CandleBuilder::open(60_000, dec!(10), dec!(1));
        b.trade(dec!(12), dec!(2));
        b.trade(dec!(9), dec!(0.5));
        b.trade(dec!(11), dec!(1));
        let c = b.finish();
        assert_eq!(
            (c.open, c.high, c.low, c.close, c.volume),
            (dec!(10), dec!(12), dec!(9), dec!(11), dec!(4.5))
        );
    }
}
