//! The prices a 1-minute candle is walked through (docs/backtesting.md, "Prices inside a
//! candle"): the open, then whichever of the high and the low is nearer the open, then the
//! other, then the close. A high and a low as far from the open go low first: a long's stop
//! is met before its take profit, the cautious reading for the side most bots trade.

use rust_decimal::Decimal;
use signaldesk_core::market::Candle;

/// When each point of the path is reached, in ms after the candle opens.
pub const OFFSETS_MS: [i64; 4] = [0, 15_000, 30_000, 59_000];

/// The candle's four prices in the order the market is taken to have reached them, each with
/// its offset in the minute; a price equal to the one before it is left out.
pub fn price_path(candle: &Candle) -> Vec<(i64, Decimal)> {
    let up = candle.high - candle.open;
    let down = candle.open - candle.low;
    let (first, second) = if up < down {
        (candle.high, candle.low)
    } else {
        (candle.low, candle.high)
    };
    let mut path: Vec<(i64, Decimal)> = Vec::with_capacity(4);
    for (offset, price) in OFFSETS_MS
        .into_iter()
        .zip([candle.open, first, second, candle.close])
    {
        if path.last().is_none_or(|(_, last)| *last != price) {
            path.push((offset, price));
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn candle(open: Decimal, high: Decimal, low: Decimal, close: Decimal) -> Candle {
        Candle {
            open_time_ms: 0,
            open,
            high,
            low,
            close,
            volume: dec!(1),
        }
    }

    fn prices(c: &Candle) -> Vec<Decimal> {
        price_path(c).into_iter().map(|(_, p)| p).collect()
    }

    #[test]
    fn the_nearer_extreme_comes_first() {
        let near_high = candle(dec!(100), dec!(101), dec!(95), dec!(97));
        assert_eq!(
            prices(&near_high),
            [dec!(100), dec!(101), dec!(95), dec!(97)]
        );
        let near_low = candle(dec!(100), dec!(106), dec!(99), dec!(104));
        assert_eq!(
            prices(&near_low),
            [dec!(100), dec!(99), dec!(106), dec!(104)]
        );
    }

    #[test]
    fn a_tie_goes_to_the_low_first() {
        let tie = candle(dec!(100), dec!(103), dec!(97), dec!(100));
        assert_eq!(prices(&tie), [dec!(100), dec!(97), dec!(103), dec!(100)]);
    }

    #[test]
    fn repeated_prices_are_walked_once_and_times_stay_in_the_minute() {
        let flat = candle(dec!(100), dec!(100), dec!(100), dec!(100));
        assert_eq!(price_path(&flat), [(0, dec!(100))]);
        let open_at_low = candle(dec!(100), dec!(102), dec!(100), dec!(102));
        assert_eq!(
            price_path(&open_at_low),
            [(0, dec!(100)), (30_000, dec!(102))]
        );
        assert!(OFFSETS_MS.windows(2).all(|w| w[0] < w[1]) && OFFSETS_MS[3] < 60_000);
    }
}
