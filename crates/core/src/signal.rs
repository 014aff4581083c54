//! Signals as the bot trades on them: a five-level rating (STRONG_BUY, BUY, NEUTRAL, SELL,
//! STRONG_SELL) is kept for display, and only its strong ends are trading signals
//! (DESIGN.md section 5: BUY and SELL count as NEUTRAL).

use std::fmt;

use serde::{Deserialize, Serialize};

/// What the bot trades on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TradeSignal {
    StrongBuy,
    StrongSell,
    Neutral,
}

/// The five rating levels, by their stored names.
pub const RATING_LEVELS: [&str; 5] = ["STRONG_BUY", "BUY", "NEUTRAL", "SELL", "STRONG_SELL"];

impl TradeSignal {
    /// The trading signal of a stored five-level rating; anything unknown is NEUTRAL.
    pub fn from_rating(rating: &str) -> TradeSignal {
        match rating {
            "STRONG_BUY" => TradeSignal::StrongBuy,
            "STRONG_SELL" => TradeSignal::StrongSell,
            _ => TradeSignal::Neutral,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TradeSignal::StrongBuy => "STRONG_BUY",
            TradeSignal::StrongSell => "STRONG_SELL",
            TradeSignal::Neutral => "NEUTRAL",
        }
    }

    /// The spec's display weight (section 3): STRONG_BUY 3, STRONG_SELL 2, NEUTRAL 1.
    pub fn weight(self) -> u8 {
        match self {
            TradeSignal::StrongBuy => 3,
            TradeSignal::StrongSell => 2,
            TradeSignal::Neutral => 1,
        }
    }
}

impl fmt::Display for TradeSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rating level as an alert may write it, case-insensitive, with `-`, `_` or a space
/// between the words ("strong buy", "Strong-Sell"); `None` for anything else.
pub fn parse_rating_level(text: &str) -> Option<&'static str> {
    let normal: String = text
        .trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    RATING_LEVELS.into_iter().find(|level| *level == normal)
}

/// Orders signals for display: by weight, heaviest first, then by symbol.
pub fn display_order(a: (TradeSignal, &str), b: (TradeSignal, &str)) -> std::cmp::Ordering {
    b.0.weight().cmp(&a.0.weight()).then_with(|| a.1.cmp(b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_strong_levels_trade() {
        assert_eq!(
            TradeSignal::from_rating("STRONG_BUY"),
            TradeSignal::StrongBuy
        );
        assert_eq!(
            TradeSignal::from_rating("STRONG_SELL"),
            TradeSignal::StrongSell
        );
        assert_eq!(TradeSignal::from_rating("BUY"), TradeSignal::Neutral);
        assert_eq!(TradeSignal::from_rating("SELL"), TradeSignal::Neutral);
        assert_eq!(TradeSignal::from_rating("junk"), TradeSignal::Neutral);
    }

    #[test]
    fn weights_follow_the_spec() {
        assert_eq!(TradeSignal::StrongBuy.weight(), 3);
        assert_eq!(TradeSignal::StrongSell.weight(), 2);
        assert_eq!(TradeSignal::Neutral.weight(), 1);
        let mut list = [
            (TradeSignal::Neutral, "AAA"),
            (TradeSignal::StrongSell, "ZZZ"),
            (TradeSignal::StrongBuy, "MMM"),
            (TradeSignal::StrongSell, "BBB"),
        ];
        list.sort_by(|a, b| display_order(*a, *b));
        let symbols: Vec<_> = list.iter().map(|s| s.1).collect();
        assert_eq!(symbols, ["MMM", "BBB", "ZZZ", "AAA"]);
    }

    #[test]
    fn alert_levels_parse_case_insensitively() {
        assert_eq!(parse_rating_level("strong_buy"), Some("STRONG_BUY"));
        assert_eq!(parse_rating_level(" Strong Sell "), Some("STRONG_SELL"));
        assert_eq!(parse_rating_level("strong-buy"), Some("STRONG_BUY"));
        assert_eq!(parse_rating_level("buy"), Some("BUY"));
        assert_eq!(parse_rating_level("Neutral"), Some("NEUTRAL"));
        assert_eq!(parse_rating_level("STRONGBUY"), None);
        assert_eq!(parse_rating_level(""), None);
        assert_eq!(parse_rating_level("hold"), None);
    }
}
