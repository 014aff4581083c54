//! Market value types shared by venues, the engine and the trading rules.
//!
//! Every price, quantity and amount of money is a [`Decimal`]; nothing here does I/O.
//! Sides and position sides serialize as Bybit spells them (`"Buy"`, `"Sell"`, `"Long"`,
//! `"Short"`) so the same values travel to the exchange and into storage unchanged.

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

/// The side of an order or a fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    Buy,
    Sell,
}

impl Side {
    /// The other side.
    pub fn opposite(self) -> Side {
        match self {
            Side::Buy => Side::Sell,
            Side::Sell => Side::Buy,
        }
    }

    /// The position this side opens (or adds to) in one-way mode.
    pub fn opens(self) -> PositionSide {
        match self {
            Side::Buy => PositionSide::Long,
            Side::Sell => PositionSide::Short,
        }
    }
}

/// The direction of an open position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PositionSide {
    Long,
    Short,
}

impl PositionSide {
    /// The order side that opens or adds to this position.
    pub fn entry_side(self) -> Side {
        match self {
            PositionSide::Long => Side::Buy,
            PositionSide::Short => Side::Sell,
        }
    }

    /// The order side that reduces or closes this position.
    pub fn exit_side(self) -> Side {
        self.entry_side().opposite()
    }

    /// +1 for long, -1 for short: the sign of the pnl of a price rise.
    pub fn sign(self) -> Decimal {
        match self {
            PositionSide::Long => Decimal::ONE,
            PositionSide::Short => Decimal::NEGATIVE_ONE,
        }
    }

    /// Profit or loss of `qty` held from `entry` to `exit` on this side (fees not included).
    pub fn pnl(self, entry: Decimal, exit: Decimal, qty: Decimal) -> Decimal {
        (exit - entry) * qty * self.sign()
    }
}

/// A tradable USDT perpetual contract and its trading rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instrument {
    /// Exchange symbol, e.g. `BTCUSDT`.
    pub symbol: String,
    /// Smallest price increment.
    pub tick_size: Decimal,
    /// Smallest quantity increment (in the base coin).
    pub qty_step: Decimal,
    /// Smallest order quantity.
    pub min_qty: Decimal,
    /// Smallest order value in USDT (quantity x price).
    pub min_notional: Decimal,
    /// Highest leverage the venue accepts for this symbol.
    pub max_leverage: u32,
}

impl Instrument {
    /// `qty` rounded down to a whole number of quantity steps (never rounds up: an order
    /// never becomes bigger than what was asked for).
    pub fn round_qty_down(&self, qty: Decimal) -> Decimal {
        round_to_step(qty, self.qty_step, RoundingStrategy::ToNegativeInfinity)
    }

    /// `price` rounded to the nearest tick (half a tick rounds away from zero).
    pub fn round_price(&self, price: Decimal) -> Decimal {
        round_to_step(
            price,
            self.tick_size,
            RoundingStrategy::MidpointAwayFromZero,
        )
    }

    /// `price` rounded down to a tick.
    pub fn round_price_down(&self, price: Decimal) -> Decimal {
        round_to_step(price, self.tick_size, RoundingStrategy::ToNegativeInfinity)
    }

    /// `price` rounded up to a tick.
    pub fn round_price_up(&self, price: Decimal) -> Decimal {
        round_to_step(price, self.tick_size, RoundingStrategy::ToPositiveInfinity)
    }

    /// Whether `price` is a whole number of ticks.
    pub fn is_on_tick(&self, price: Decimal) -> bool {
        self.tick_size <= Decimal::ZERO || (price % self.tick_size).is_zero()
    }

    /// Whether `qty` is a whole number of quantity steps.
    pub fn is_on_step(&self, qty: Decimal) -> bool {
        self.qty_step <= Decimal::ZERO || (qty % self.qty_step).is_zero()
    }

    /// The quantity that `notional` USDT buys at `price`, rounded down to the step.
    /// Zero when the price is not positive.
    pub fn qty_for_notional(&self, notional: Decimal, price: Decimal) -> Decimal {
        if price <= Decimal::ZERO {
            return Decimal::ZERO;
        }
        self.round_qty_down(notional.checked_div(price).unwrap_or(Decimal::MAX))
    }

    /// Whether an order of `qty` at `price` meets both the minimum quantity and the
    /// minimum order value.
    pub fn meets_minimums(&self, qty: Decimal, price: Decimal) -> bool {
        qty > Decimal::ZERO && qty >= self.min_qty && qty.saturating_mul(price) >= self.min_notional
    }
}

/// One tier of a contract's risk limit (Bybit's `GET /v5/market/risk-limit`): a position
/// worth up to `risk_limit_value` USDT keeps `maintenance_margin_rate` of its value as
/// maintenance margin, less `mm_deduction`, and may use up to `max_leverage`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskTier {
    /// The largest position value of the tier, USDT.
    pub risk_limit_value: Decimal,
    /// Maintenance margin as a fraction of the position value (0.005 = 0.5%).
    pub maintenance_margin_rate: Decimal,
    /// USDT taken off the maintenance margin, so that it is continuous across tiers (zero
    /// for the first).
    pub mm_deduction: Decimal,
    pub max_leverage: Decimal,
}

fn round_to_step(value: Decimal, step: Decimal, strategy: RoundingStrategy) -> Decimal {
    if step <= Decimal::ZERO {
        return value;
    }
    // Saturating: a value too large for the step's precision stays as it is.
    let Some(steps) = value.checked_div(step) else {
        return value;
    };
    let steps = steps.round_dp_with_strategy(0, strategy);
    steps.checked_mul(step).unwrap_or(value).normalize()
}

/// One closed OHLCV candle. `open_time_ms` is the start of the candle in Unix milliseconds
/// (UTC); `volume` is in the base coin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candle {
    pub open_time_ms: i64,
    pub open: Decimal,
    pub high: Decimal,
    pub low: Decimal,
    pub close: Decimal,
    pub volume: Decimal,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn btc() -> Instrument {
        Instrument {
            symbol: "BTCUSDT".into(),
            tick_size: dec!(0.1),
            qty_step: dec!(0.001),
            min_qty: dec!(0.001),
            min_notional: dec!(5),
            max_leverage: 100,
        }
    }

    #[test]
    fn qty_rounds_down_to_the_step() {
        let i = btc();
        assert_eq!(i.round_qty_down(dec!(0.0129)), dec!(0.012));
        assert_eq!(i.round_qty_down(dec!(0.012)), dec!(0.012));
        assert_eq!(i.round_qty_down(dec!(0.0009)), dec!(0));
        let whole = Instrument {
            qty_step: dec!(10),
            ..btc()
        };
        assert_eq!(whole.round_qty_down(dec!(129.9)), dec!(120));
    }

    #[test]
    fn price_rounds_to_the_tick() {
        let i = btc();
        assert_eq!(i.round_price(dec!(90000.04)), dec!(90000));
        assert_eq!(i.round_price(dec!(90000.05)), dec!(90000.1));
        assert_eq!(i.round_price(dec!(90000.16)), dec!(90000.2));
        assert_eq!(i.round_price_down(dec!(90000.19)), dec!(90000.1));
        assert_eq!(i.round_price_up(dec!(90000.11)), dec!(90000.2));
        assert_eq!(i.round_price_up(dec!(90000.1)), dec!(90000.1));
        let doge = Instrument {
            tick_size: dec!(0.00001),
            ..btc()
        };
        assert_eq!(doge.round_price(dec!(0.162346)), dec!(0.16235));
        let bch = Instrument {
            tick_size: dec!(0.05),
            ..btc()
        };
        assert_eq!(bch.round_price(dec!(500.07)), dec!(500.05));
        assert_eq!(bch.round_price(dec!(500.08)), dec!(500.1));
    }

    #[test]
    fn tick_and_step_checks() {
        let i = btc();
        assert!(i.is_on_tick(dec!(90000.1)));
        assert!(!i.is_on_tick(dec!(90000.15)));
        assert!(i.is_on_step(dec!(0.015)));
        assert!(!i.is_on_step(dec!(0.0155)));
    }

    #[test]
    fn notional_and_minimums() {
        let i = btc();
        // 1000 USDT at 90000 is 0.01111.. BTC, rounded down to 0.011.
        assert_eq!(i.qty_for_notional(dec!(1000), dec!(90000)), dec!(0.011));
        assert_eq!(i.qty_for_notional(dec!(1000), dec!(0)), dec!(0));
        assert!(i.meets_minimums(dec!(0.001), dec!(90000)));
        assert!(!i.meets_minimums(dec!(0), dec!(90000)));
        // 0.001 BTC at 4000 is 4 USDT, under the 5 USDT minimum order value.
        assert!(!i.meets_minimums(dec!(0.001), dec!(4000)));
    }

    #[test]
    fn sides_and_pnl() {
        assert_eq!(Side::Buy.opposite(), Side::Sell);
        assert_eq!(Side::Sell.opens(), PositionSide::Short);
        assert_eq!(PositionSide::Long.exit_side(), Side::Sell);
        assert_eq!(PositionSide::Short.entry_side(), Side::Sell);
        assert_eq!(
            PositionSide::Long.pnl(dec!(100), dec!(110), dec!(2)),
            dec!(20)
        );
        assert_eq!(
            PositionSide::Short.pnl(dec!(100), dec!(110), dec!(2)),
            dec!(-20)
        );
    }

    #[test]
    fn serializes_like_bybit() {
        assert_eq!(
            serde_json::to_string(&Side::Buy).ok().as_deref(),
            Some("\"Buy\"")
        );
        assert_eq!(
            serde_json::to_string(&PositionSide::Short).ok().as_deref(),
            Some("\"Short\"")
        );
    }
}
