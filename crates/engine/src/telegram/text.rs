//! The words of each Telegram message: pure functions from a deal or a day's figures to plain
//! text. Money (margin, pnl, equity) shows two decimals, pnl always with its sign; prices and
//! sizes show exactly the digits they have, so a coin priced at 0.00001234 stays readable.

use chrono::NaiveDate;
use rust_decimal::{Decimal, RoundingStrategy};
use signaldesk_core::market::PositionSide;

/// The currency every amount of money is in.
const QUOTE: &str = "USDT";

/// A position that was just opened.
#[derive(Debug, Clone, PartialEq)]
pub struct DealOpened {
    pub symbol: String,
    pub side: PositionSide,
    /// Size in the base coin.
    pub qty: Decimal,
    /// Average fill price.
    pub price: Decimal,
    pub leverage: u32,
    /// Margin put up, in USDT.
    pub margin: Decimal,
}

/// A position (or part of one) that was just closed.
#[derive(Debug, Clone, PartialEq)]
pub struct DealClosed {
    pub symbol: String,
    pub side: PositionSide,
    /// Size closed, in the base coin.
    pub qty: Decimal,
    pub exit_price: Decimal,
    /// The trade's realised profit or loss so far, in USDT, net of `fees` and `funding`.
    pub pnl: Decimal,
    /// The trade's trading fees so far, in USDT.
    pub fees: Decimal,
    /// Funding the position received (positive) or paid (negative), in USDT.
    pub funding: Decimal,
    /// Why it closed, as a short phrase: "take profit", "stop loss", "trailing stop", …
    pub reason: String,
}

/// One day of closed trades, in the user's time zone.
#[derive(Debug, Clone, PartialEq)]
pub struct DailySummary {
    pub date: NaiveDate,
    pub trades: u64,
    pub wins: u64,
    pub losses: u64,
    /// Sum of the day's realised pnl, in USDT, net of fees and funding.
    pub pnl: Decimal,
    /// The part of `pnl` that was funding (received positive, paid negative).
    pub funding: Decimal,
    /// Account equity at the end of the day, when known.
    pub equity: Option<Decimal>,
}

/// "Opened LONG BTCUSDT" with size, price, leverage and margin.
pub fn deal_opened_text(deal: &DealOpened) -> String {
    format!(
        "Opened {side} {symbol}\nSize: {qty} @ {price}\nLeverage: {leverage}x, margin {margin} {QUOTE}",
        side = side_word(deal.side),
        symbol = deal.symbol,
        qty = exact(deal.qty),
        price = exact(deal.price),
        leverage = deal.leverage,
        margin = money(deal.margin),
    )
}

/// "Closed LONG BTCUSDT (take profit)" with size, exit price, pnl and what it is net of.
pub fn deal_closed_text(deal: &DealClosed) -> String {
    let reason = deal.reason.trim();
    let reason = if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    };
    format!(
        "Closed {side} {symbol}{reason}\nSize: {qty} @ {price}\nPnL: {pnl} {QUOTE}\n\
         Fees: {fees} {QUOTE}, funding: {funding} {QUOTE}",
        side = side_word(deal.side),
        symbol = deal.symbol,
        qty = exact(deal.qty),
        price = exact(deal.exit_price),
        pnl = signed_money(deal.pnl),
        fees = money(deal.fees),
        funding = signed_money(deal.funding),
    )
}

/// The daily summary: trades, wins and losses (with the win rate), pnl, and equity if known.
pub fn daily_summary_text(day: &DailySummary) -> String {
    let mut text = format!(
        "Daily summary {date}\nTrades: {trades} (wins {wins}, losses {losses})",
        date = day.date.format("%Y-%m-%d"),
        trades = day.trades,
        wins = day.wins,
        losses = day.losses,
    );
    if day.trades > 0 {
        let rate = Decimal::from(day.wins) * Decimal::ONE_HUNDRED / Decimal::from(day.trades);
        let rate = rate.round_dp_with_strategy(1, RoundingStrategy::MidpointAwayFromZero);
        text.push_str(&format!("\nWin rate: {rate:.1}%"));
    }
    text.push_str(&format!("\nPnL: {} {QUOTE}", signed_money(day.pnl)));
    if !day.funding.is_zero() {
        text.push_str(&format!(
            "\nFunding (in the PnL): {} {QUOTE}",
            signed_money(day.funding)
        ));
    }
    if let Some(equity) = day.equity {
        text.push_str(&format!("\nEquity: {} {QUOTE}", money(equity)));
    }
    text
}

fn side_word(side: PositionSide) -> &'static str {
    match side {
        PositionSide::Long => "LONG",
        PositionSide::Short => "SHORT",
    }
}

/// Every significant digit, no trailing zeros: `0.0100` shows as `0.01`.
fn exact(value: Decimal) -> String {
    value.normalize().to_string()
}

/// Two decimals, halves away from zero; never `-0.00`.
fn money(value: Decimal) -> String {
    let rounded = value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    if rounded.is_zero() {
        return "0.00".to_string();
    }
    format!("{rounded:.2}")
}

/// [`money`] with an explicit `+` on gains; zero has no sign.
fn signed_money(value: Decimal) -> String {
    let shown = money(value);
    if value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero) > Decimal::ZERO {
        format!("+{shown}")
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal_macros::dec;

    use super::*;

    #[test]
    fn an_open_names_side_symbol_size_price_leverage_and_margin() {
        let text = deal_opened_text(&DealOpened {
            symbol: "BTCUSDT".into(),
            side: PositionSide::Long,
            qty: dec!(0.0150),
            price: dec!(65000.5),
            leverage: 10,
            margin: dec!(97.5),
        });
        assert_eq!(
            text,
            "Opened LONG BTCUSDT\nSize: 0.015 @ 65000.5\nLeverage: 10x, margin 97.50 USDT"
        );
    }

    #[test]
    fn a_small_price_keeps_its_digits() {
        let text = deal_opened_text(&DealOpened {
            symbol: "1000PEPEUSDT".into(),
            side: PositionSide::Short,
            qty: dec!(120000),
            price: dec!(0.00001234),
            leverage: 5,
            margin: dec!(0.296),
        });
        assert!(text.starts_with("Opened SHORT 1000PEPEUSDT\n"), "{text}");
        assert!(text.contains("Size: 120000 @ 0.00001234\n"), "{text}");
        assert!(text.ends_with("margin 0.30 USDT"), "{text}");
    }

    #[test]
    fn a_close_shows_the_reason_and_a_signed_pnl() {
        let mut deal = DealClosed {
            symbol: "ETHUSDT".into(),
            side: PositionSide::Short,
            qty: dec!(0.5),
            exit_price: dec!(3100.00),
            pnl: dec!(12.345),
            fees: dec!(1.8),
            funding: dec!(0.125),
            reason: "take profit".into(),
        };
        assert_eq!(
            deal_closed_text(&deal),
            "Closed SHORT ETHUSDT (take profit)\nSize: 0.5 @ 3100\nPnL: +12.35 USDT\n\
             Fees: 1.80 USDT, funding: +0.13 USDT"
        );

        deal.pnl = dec!(-7.1);
        deal.funding = dec!(-0.4);
        deal.reason = "stop loss".into();
        assert!(deal_closed_text(&deal)
            .ends_with("PnL: -7.10 USDT\nFees: 1.80 USDT, funding: -0.40 USDT"));

        deal.reason = "  ".into();
        assert!(deal_closed_text(&deal).starts_with("Closed SHORT ETHUSDT\n"));
    }

    #[test]
    fn money_that_rounds_to_zero_has_no_sign() {
        assert_eq!(signed_money(dec!(-0.004)), "0.00");
        assert_eq!(signed_money(dec!(0.004)), "0.00");
        assert_eq!(signed_money(Decimal::ZERO), "0.00");
        assert_eq!(signed_money(dec!(0.005)), "+0.01");
        assert_eq!(signed_money(dec!(-0.005)), "-0.01");
        assert_eq!(money(dec!(1234567.891)), "1234567.89");
        assert_eq!(money(dec!(3)), "3.00");
    }

    #[test]
    fn the_daily_summary_counts_trades_and_shows_equity_when_known() {
        let day = DailySummary {
            date: NaiveDate::from_ymd_opt(2025, 3, 30).unwrap(),
            trades: 3,
            wins: 2,
            losses: 1,
            pnl: dec!(-4.5),
            funding: dec!(-0.75),
            equity: Some(dec!(1000)),
        };
        assert_eq!(
            daily_summary_text(&day),
            "Daily summary 2025-03-30\nTrades: 3 (wins 2, losses 1)\nWin rate: 66.7%\n\
             PnL: -4.50 USDT\nFunding (in the PnL): -0.75 USDT\nEquity: 1000.00 USDT"
        );
    }

    #[test]
    fn a_quiet_day_has_no_win_rate_and_no_equity_line_when_unknown() {
        let day = DailySummary {
            date: NaiveDate::from_ymd_opt(2025, 1, 1).unwrap(),
            trades: 0,
            wins: 0,
            losses: 0,
            pnl: Decimal::ZERO,
            funding: Decimal::ZERO,
            equity: None,
        };
        assert_eq!(
            daily_summary_text(&day),
            "Daily summary 2025-01-01\nTrades: 0 (wins 0, losses 0)\nPnL: 0.00 USDT"
        );
    }
}
