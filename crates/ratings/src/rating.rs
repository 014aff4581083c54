//! The rating values the engine hands out: [`Rating`], [`Recommendation`]
//! and the per-indicator [`RatingReport`].

use std::fmt;
use std::ops::Index;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

/// The five rating categories, serialized as `"STRONG_BUY"`, `"BUY"`,
/// `"NEUTRAL"`, `"SELL"`, `"STRONG_SELL"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Recommendation {
    StrongBuy,
    Buy,
    Neutral,
    Sell,
    StrongSell,
}

impl Recommendation {
    /// TradingView's bounds: above 0.5 STRONG_BUY, above 0.1 BUY, below -0.5
    /// STRONG_SELL, below -0.1 SELL, NEUTRAL from -0.1 to 0.1 inclusive (and
    /// for NaN). The bounds themselves fall to the weaker side: 0.5 is BUY.
    pub fn from_score(score: f64) -> Self {
        if score > 0.5 {
            Recommendation::StrongBuy
        } else if score > 0.1 {
            Recommendation::Buy
        } else if score < -0.5 {
            Recommendation::StrongSell
        } else if score < -0.1 {
            Recommendation::Sell
        } else {
            Recommendation::Neutral
        }
    }

    /// The serialized name, e.g. `"STRONG_BUY"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::StrongBuy => "STRONG_BUY",
            Recommendation::Buy => "BUY",
            Recommendation::Neutral => "NEUTRAL",
            Recommendation::Sell => "SELL",
            Recommendation::StrongSell => "STRONG_SELL",
        }
    }
}

impl fmt::Display for Recommendation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The three ratings of one bar, each in `[-1, 1]`.
///
/// `ma` is the mean of the moving-average votes, `osc` the mean of the
/// oscillator votes, `total` the mean of the two. A group with no vote yet
/// (warm-up) shows 0 and `total` is then the other group alone; with no vote
/// at all every field is 0 and the recommendation NEUTRAL.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub total: f64,
    pub ma: f64,
    pub osc: f64,
    pub recommendation: Recommendation,
}

impl Rating {
    /// Rating with no votes at all.
    pub const NEUTRAL: Rating = Rating {
        total: 0.0,
        ma: 0.0,
        osc: 0.0,
        recommendation: Recommendation::Neutral,
    };
}

/// Which rating group an indicator's vote counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// The 15 moving-average votes.
    MovingAverages,
    /// The 11 oscillator votes.
    Oscillators,
}

macro_rules! indicators {
    ($($variant:ident => $key:literal, $group:expr;)*) => {
        /// The indicators of a [`RatingReport`], in report order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Indicator {
            $($variant,)*
        }

        impl Indicator {
            /// Every indicator, in report order.
            pub const ALL: [Indicator; indicators!(@count $($variant)*)] =
                [$(Indicator::$variant,)*];

            /// The key in the report's `indicators` object, e.g. `"RSI14"`.
            pub fn key(self) -> &'static str {
                match self {
                    $(Indicator::$variant => $key,)*
                }
            }

            /// The group its vote counts in; `None` for a companion line
            /// (StochD, PlusDI, MinusDI, MACDSignal, StochRSID) whose
            /// indicator votes under its main line.
            pub const fn group(self) -> Option<Group> {
                match self {
                    $(Indicator::$variant => $group,)*
                }
            }
        }
    };
    (@count) => { 0 };
    (@count $head:ident $($tail:ident)*) => { 1 + indicators!(@count $($tail)*) };
}

const MA: Option<Group> = Some(Group::MovingAverages);
const OSC: Option<Group> = Some(Group::Oscillators);
const COMPANION: Option<Group> = None;

indicators! {
    Sma10 => "SMA10", MA;
    Sma20 => "SMA20", MA;
    Sma30 => "SMA30", MA;
    Sma50 => "SMA50", MA;
    Sma100 => "SMA100", MA;
    Sma200 => "SMA200", MA;
    Ema10 => "EMA10", MA;
    Ema20 => "EMA20", MA;
    Ema30 => "EMA30", MA;
    Ema50 => "EMA50", MA;
    Ema100 => "EMA100", MA;
    Ema200 => "EMA200", MA;
    Vwma20 => "VWMA20", MA;
    Hma9 => "HMA9", MA;
    IchimokuBase => "IchimokuBase", MA;
    Rsi14 => "RSI14", OSC;
    StochK => "StochK", OSC;
    StochD => "StochD", COMPANION;
    Cci20 => "CCI20", OSC;
    Adx14 => "ADX14", OSC;
    PlusDi => "PlusDI", COMPANION;
    MinusDi => "MinusDI", COMPANION;
    Ao => "AO", OSC;
    Mom10 => "Mom10", OSC;
    Macd => "MACD", OSC;
    MacdSignal => "MACDSignal", COMPANION;
    StochRsiK => "StochRSIK", OSC;
    StochRsiD => "StochRSID", COMPANION;
    Wr14 => "WR14", OSC;
    Bbp => "BBP", OSC;
    Uo => "UO", OSC;
}

/// Number of indicators in a report.
pub(crate) const COUNT: usize = Indicator::ALL.len();

/// One indicator in a report: its value (`None`, serialized `null`, while it
/// warms up) and its vote (+1 buy, 0 neutral or not voting, -1 sell).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct IndicatorReading {
    pub value: Option<f64>,
    pub vote: i8,
}

/// Every indicator's reading, indexed by [`Indicator`]; serializes as one
/// JSON object whose keys are [`Indicator::key`] in [`Indicator::ALL`] order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Indicators(pub(crate) [IndicatorReading; COUNT]);

impl Indicators {
    /// (indicator, reading) pairs in report order.
    pub fn iter(&self) -> impl Iterator<Item = (Indicator, IndicatorReading)> + '_ {
        Indicator::ALL.into_iter().zip(self.0.iter().copied())
    }
}

impl Index<Indicator> for Indicators {
    type Output = IndicatorReading;

    fn index(&self, indicator: Indicator) -> &IndicatorReading {
        &self.0[indicator as usize]
    }
}

impl Serialize for Indicators {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(COUNT))?;
        for (indicator, reading) in self.iter() {
            map.serialize_entry(indicator.key(), &reading)?;
        }
        map.end()
    }
}

/// The rating of the latest bar with every indicator behind it. Serializes
/// as `{"total", "ma", "osc", "recommendation", "indicators": {...}}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatingReport {
    pub total: f64,
    pub ma: f64,
    pub osc: f64,
    pub recommendation: Recommendation,
    pub indicators: Indicators,
}

impl RatingReport {
    /// The three ratings without the indicators.
    pub fn rating(&self) -> Rating {
        Rating {
            total: self.total,
            ma: self.ma,
            osc: self.osc,
            recommendation: self.recommendation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommendation_bounds() {
        let eps = 1e-12;
        let cases = [
            (0.5 + eps, Recommendation::StrongBuy),
            (0.5, Recommendation::Buy),
            (0.1 + eps, Recommendation::Buy),
            (0.1, Recommendation::Neutral),
            (0.0, Recommendation::Neutral),
            (-0.1, Recommendation::Neutral),
            (-0.1 - eps, Recommendation::Sell),
            (-0.5, Recommendation::Sell),
            (-0.5 - eps, Recommendation::StrongSell),
            (1.0, Recommendation::StrongBuy),
            (-1.0, Recommendation::StrongSell),
            (f64::NAN, Recommendation::Neutral),
        ];
        for (score, expected) in cases {
            assert_eq!(Recommendation::from_score(score), expected, "score {score}");
        }
    }

    #[test]
    fn groups_hold_15_and_11_votes() {
        let count = |g| {
            Indicator::ALL
                .iter()
                .filter(|i| i.group() == Some(g))
                .count()
        };
        assert_eq!(count(Group::MovingAverages), 15);
        assert_eq!(count(Group::Oscillators), 11);
        assert_eq!(COUNT, 31);
    }
}
