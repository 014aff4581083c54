//! Which prices of a symbol can be skipped: a [`QuietBand`] is the range of prices at which
//! whoever answers it (the paper exchange for an account, the trading worker for its take
//! profits) would do nothing at all. A backtest walks a 1-minute candle through the venue
//! and the worker only when its range leaves the band; walking it anyway changes nothing.

use rust_decimal::Decimal;

/// Prices strictly between `low` and `high` (unbounded where `None`) change nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietBand {
    pub low: Option<Decimal>,
    pub high: Option<Decimal>,
}

impl QuietBand {
    /// Nothing watches the price.
    pub const EVERYWHERE: QuietBand = QuietBand {
        low: None,
        high: None,
    };
    /// Every price may matter.
    pub const NOWHERE: QuietBand = QuietBand {
        low: Some(Decimal::MAX),
        high: Some(Decimal::MIN),
    };

    /// Whether every price from `low` to `high` (inclusive) is quiet.
    pub fn holds(&self, low: Decimal, high: Decimal) -> bool {
        self.low.is_none_or(|l| low > l) && self.high.is_none_or(|h| high < h)
    }

    /// This band, also ending where a price at or below `level` acts.
    #[must_use]
    pub fn acting_at_or_below(self, level: Decimal) -> QuietBand {
        QuietBand {
            low: Some(self.low.map_or(level, |l| l.max(level))),
            ..self
        }
    }

    /// This band, also ending where a price at or above `level` acts.
    #[must_use]
    pub fn acting_at_or_above(self, level: Decimal) -> QuietBand {
        QuietBand {
            high: Some(self.high.map_or(level, |h| h.min(level))),
            ..self
        }
    }

    /// The prices quiet for both.
    #[must_use]
    pub fn and(self, other: QuietBand) -> QuietBand {
        let with_low = match other.low {
            Some(l) => self.acting_at_or_below(l),
            None => self,
        };
        match other.high {
            Some(h) => with_low.acting_at_or_above(h),
            None => with_low,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn a_band_holds_only_ranges_strictly_inside_it() {
        let band = QuietBand::EVERYWHERE
            .acting_at_or_below(dec!(90))
            .acting_at_or_above(dec!(110))
            .acting_at_or_below(dec!(95));
        assert!(band.holds(dec!(95.1), dec!(109.9)));
        assert!(!band.holds(dec!(95), dec!(100)));
        assert!(!band.holds(dec!(100), dec!(110)));
        assert!(QuietBand::EVERYWHERE.holds(dec!(0), dec!(1e9)));
        assert!(!QuietBand::NOWHERE.holds(dec!(100), dec!(100)));
        let both = band.and(QuietBand::EVERYWHERE.acting_at_or_above(dec!(105)));
        assert_eq!((both.low, both.high), (Some(dec!(95)), Some(dec!(105))));
    }
}
