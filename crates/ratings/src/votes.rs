//! The vote rules of TradingView's Technical Ratings, as published in
//! TradingView's open-source `TechnicalRating` Pine library (v3, 2024-11-29),
//! which backs the built-in "Technical Ratings" indicator, the screener's
//! rating columns and the Technicals gauge. `[1]` means "on the previous bar".
//! Every rule returns +1 (buy), -1 (sell) or 0 (neutral); docs/ratings.md lists
//! them one per line.

/// A buy/sell pair of conditions to a vote; buy wins if both hold (as in Pine).
///
/// The rules combine their comparisons with `&` and `|`, not `&&` and `||`,
/// and this is arithmetic, not a branch: the conditions flip with the
/// market from bar to bar, and branches on them would be mispredicted about
/// as often as not (the every-bar paths vote on every bar).
#[inline(always)]
fn vote(buy: bool, sell: bool) -> i8 {
    i8::from(buy) - i8::from(sell & !buy)
}

/// Relative distance under which a moving average counts as equal to the
/// close: far below any price tick, far above the rounding of an average of
/// equal prices (which can land an ulp or two away from the price).
pub(crate) const MA_EQUAL_REL: f64 = 1e-12;

/// Any moving average: buy when it is below the close, sell when above,
/// neutral when equal (within [`MA_EQUAL_REL`]).
pub(crate) fn moving_average(ma: f64, close: f64) -> i8 {
    let apart = (ma - close).abs() > MA_EQUAL_REL * close.abs().max(ma.abs());
    vote(apart & (ma < close), apart & (ma > close))
}

/// Ichimoku (9, 26, 52), with the cloud displaced 26 bars: buy when
/// lead1[26] > lead2[26], base > lead1[26], conversion > base and close >
/// conversion; sell on the mirror image.
pub(crate) fn ichimoku(close: f64, conversion: f64, base: f64, lead1: f64, lead2: f64) -> i8 {
    vote(
        (lead1 > lead2) & (base > lead1) & (conversion > base) & (close > conversion),
        (lead1 < lead2) & (base < lead1) & (conversion < base) & (close < conversion),
    )
}

/// RSI: buy when below 30 and rising, sell when above 70 and falling.
pub(crate) fn rsi(rsi: f64, prev: f64) -> i8 {
    vote((rsi < 30.0) & (rsi > prev), (rsi > 70.0) & (rsi < prev))
}

/// Stochastic: buy when %K and %D are below 20 and %K > %D; sell when both
/// are above 80 and %K < %D.
pub(crate) fn stochastic(k: f64, d: f64) -> i8 {
    vote(
        (k < 20.0) & (d < 20.0) & (k > d),
        (k > 80.0) & (d > 80.0) & (k < d),
    )
}

/// CCI: buy when below -100 and rising, sell when above 100 and falling.
pub(crate) fn cci(cci: f64, prev: f64) -> i8 {
    vote((cci < -100.0) & (cci > prev), (cci > 100.0) & (cci < prev))
}

/// ADX: with ADX above 20 and rising, buy when +DI > -DI, sell when
/// +DI < -DI.
pub(crate) fn adx(adx: f64, prev_adx: f64, plus_di: f64, minus_di: f64) -> i8 {
    let trending = (adx > 20.0) & (adx > prev_adx);
    vote(
        trending & (plus_di > minus_di),
        trending & (plus_di < minus_di),
    )
}

/// Awesome Oscillator: buy when it crosses above zero or makes a bullish
/// saucer above zero (`ao > 0`, `ao[1] > 0`, `ao > ao[1]`, `ao[2] > ao[1]`);
/// sell on the mirror image.
pub(crate) fn awesome(ao: f64, prev: f64, prev2: f64) -> i8 {
    let cross_up = (ao > 0.0) & (prev <= 0.0);
    let cross_down = (ao < 0.0) & (prev >= 0.0);
    let saucer_up = (ao > 0.0) & (prev > 0.0) & (ao > prev) & (prev2 > prev);
    let saucer_down = (ao < 0.0) & (prev < 0.0) & (ao < prev) & (prev2 < prev);
    vote(cross_up | saucer_up, cross_down | saucer_down)
}

/// Momentum: buy when rising, sell when falling.
pub(crate) fn momentum(mom: f64, prev: f64) -> i8 {
    vote(mom > prev, mom < prev)
}

/// MACD: buy when the MACD line is above its signal line, sell when below.
pub(crate) fn macd(macd: f64, signal: f64) -> i8 {
    vote(macd > signal, macd < signal)
}

/// Stochastic RSI: buy in a downtrend (close < EMA50) when %K and %D are
/// below 20 and %K > %D; sell in an uptrend (close > EMA50) when both are
/// above 80 and %K < %D.
pub(crate) fn stoch_rsi(close: f64, ema50: f64, k: f64, d: f64) -> i8 {
    vote(
        (close < ema50) & (k < 20.0) & (d < 20.0) & (k > d),
        (close > ema50) & (k > 80.0) & (d > 80.0) & (k < d),
    )
}

/// Williams %R: buy when below -80 and rising, sell when above -20 and falling.
pub(crate) fn williams_r(wr: f64, prev: f64) -> i8 {
    vote((wr < -80.0) & (wr > prev), (wr > -20.0) & (wr < prev))
}

/// Bull Bear Power (EMA 13): buy in an uptrend (close > EMA50) when bear
/// power (low - EMA13) is negative and rising; sell in a downtrend when bull
/// power (high - EMA13) is positive and falling.
pub(crate) fn bull_bear_power(
    close: f64,
    ema50: f64,
    bull: f64,
    prev_bull: f64,
    bear: f64,
    prev_bear: f64,
) -> i8 {
    vote(
        (close > ema50) & (bear < 0.0) & (bear > prev_bear),
        (close < ema50) & (bull > 0.0) & (bull < prev_bull),
    )
}

/// Ultimate Oscillator: buy above 70, sell below 30.
pub(crate) fn ultimate(uo: f64) -> i8 {
    vote(uo > 70.0, uo < 30.0)
}

#[cfg(test)]
mod tests {
    //! Each rule at its thresholds: just below, at, and just above.
    use super::*;

    const EPS: f64 = 1e-9;

    #[test]
    fn moving_average_compares_with_the_close() {
        assert_eq!(moving_average(100.0 - EPS, 100.0), 1);
        assert_eq!(moving_average(100.0, 100.0), 0);
        assert_eq!(moving_average(100.0 + EPS, 100.0), -1);
        // Rounding noise of an average of equal prices is "equal".
        assert_eq!(moving_average(100.0 * (1.0 + 1e-13), 100.0), 0);
        assert_eq!(moving_average(100.0 * (1.0 - 1e-13), 100.0), 0);
        assert_eq!(moving_average(100.0 * (1.0 + 2e-12), 100.0), -1);
        assert_eq!(moving_average(100.0 * (1.0 - 2e-12), 100.0), 1);
    }

    #[test]
    fn ichimoku_needs_the_whole_stack_in_order() {
        // Bullish stack: close 14 > conversion 13 > base 12 > lead1 11 > lead2 10.
        assert_eq!(ichimoku(14.0, 13.0, 12.0, 11.0, 10.0), 1);
        // Each link at equality breaks it.
        assert_eq!(ichimoku(13.0, 13.0, 12.0, 11.0, 10.0), 0);
        assert_eq!(ichimoku(14.0, 12.0, 12.0, 11.0, 10.0), 0);
        assert_eq!(ichimoku(14.0, 13.0, 11.0, 11.0, 10.0), 0);
        assert_eq!(ichimoku(14.0, 13.0, 12.0, 10.0, 10.0), 0);
        // Just past equality restores it.
        assert_eq!(ichimoku(13.0 + EPS, 13.0, 12.0, 11.0, 10.0), 1);
        // Bearish stack is the mirror image.
        assert_eq!(ichimoku(10.0, 11.0, 12.0, 13.0, 14.0), -1);
        assert_eq!(ichimoku(11.0, 11.0, 12.0, 13.0, 14.0), 0);
        assert_eq!(ichimoku(11.0 - EPS, 11.0, 12.0, 13.0, 14.0), -1);
        // Mixed: price above, cloud bearish.
        assert_eq!(ichimoku(14.0, 13.0, 12.0, 11.0, 12.0), 0);
    }

    #[test]
    fn rsi_thresholds() {
        assert_eq!(rsi(30.0 - EPS, 25.0), 1);
        assert_eq!(rsi(30.0, 25.0), 0);
        assert_eq!(rsi(30.0 + EPS, 25.0), 0);
        assert_eq!(rsi(25.0, 25.0), 0, "oversold but not rising");
        assert_eq!(rsi(25.0, 25.0 + EPS), 0, "oversold and falling");
        assert_eq!(rsi(70.0 + EPS, 75.0), -1);
        assert_eq!(rsi(70.0, 75.0), 0);
        assert_eq!(rsi(70.0 - EPS, 75.0), 0);
        assert_eq!(rsi(75.0, 75.0), 0, "overbought but not falling");
        assert_eq!(rsi(50.0, 40.0), 0);
    }

    #[test]
    fn stochastic_thresholds() {
        assert_eq!(stochastic(20.0 - EPS, 15.0), 1);
        assert_eq!(stochastic(20.0, 15.0), 0);
        assert_eq!(stochastic(19.0, 20.0 - EPS), 0, "%K must be above %D");
        assert_eq!(stochastic(19.0 + EPS, 19.0), 1);
        assert_eq!(stochastic(19.0, 19.0), 0);
        assert_eq!(stochastic(80.0 + EPS, 85.0), -1);
        assert_eq!(stochastic(80.0, 85.0), 0);
        assert_eq!(stochastic(85.0, 80.0), 0, "%D must be above 80 too");
        assert_eq!(stochastic(85.0 - EPS, 85.0), -1);
        assert_eq!(stochastic(85.0, 85.0), 0);
    }

    #[test]
    fn cci_thresholds() {
        assert_eq!(cci(-100.0 - EPS, -150.0), 1);
        assert_eq!(cci(-100.0, -150.0), 0);
        assert_eq!(cci(-100.0 + EPS, -150.0), 0);
        assert_eq!(cci(-150.0, -150.0), 0);
        assert_eq!(cci(100.0 + EPS, 150.0), -1);
        assert_eq!(cci(100.0, 150.0), 0);
        assert_eq!(cci(150.0, 150.0), 0);
    }

    #[test]
    fn adx_thresholds() {
        assert_eq!(adx(20.0 + EPS, 19.0, 30.0, 10.0), 1);
        assert_eq!(adx(20.0, 19.0, 30.0, 10.0), 0);
        assert_eq!(adx(20.0 - EPS, 19.0, 30.0, 10.0), 0);
        assert_eq!(adx(25.0, 25.0, 30.0, 10.0), 0, "ADX must be rising");
        assert_eq!(adx(25.0, 25.0 - EPS, 30.0, 10.0), 1);
        assert_eq!(adx(25.0, 24.0, 10.0, 10.0), 0, "+DI = -DI");
        assert_eq!(adx(25.0, 24.0, 10.0, 10.0 + EPS), -1);
        assert_eq!(adx(20.0, 19.0, 10.0, 30.0), 0);
        assert_eq!(adx(20.0 + EPS, 19.0, 10.0, 30.0), -1);
    }

    #[test]
    fn awesome_oscillator_crosses_and_saucers() {
        // Crossing zero.
        assert_eq!(awesome(EPS, 0.0, 5.0), 1);
        assert_eq!(awesome(EPS, -1.0, 5.0), 1);
        assert_eq!(awesome(0.0, -1.0, 5.0), 0);
        assert_eq!(awesome(-EPS, 0.0, -5.0), -1);
        assert_eq!(awesome(-EPS, 1.0, -5.0), -1);
        assert_eq!(awesome(0.0, 1.0, -5.0), 0);
        // Bullish saucer: above zero, dipped at [1], rising again.
        assert_eq!(awesome(2.0, 1.0, 3.0), 1);
        assert_eq!(awesome(1.0, 1.0, 3.0), 0, "not rising");
        assert_eq!(awesome(2.0, 1.0, 1.0), 0, "no dip at [1]");
        assert_eq!(awesome(2.0, 1.0, 1.0 + EPS), 1);
        assert_eq!(awesome(3.0, 2.0, 1.0), 0, "steady rise is no saucer");
        // Bearish saucer.
        assert_eq!(awesome(-2.0, -1.0, -3.0), -1);
        assert_eq!(awesome(-2.0, -1.0, -1.0), 0);
        assert_eq!(awesome(-2.0, -1.0, -1.0 - EPS), -1);
    }

    #[test]
    fn momentum_direction() {
        assert_eq!(momentum(1.0 + EPS, 1.0), 1);
        assert_eq!(momentum(1.0, 1.0), 0);
        assert_eq!(momentum(1.0 - EPS, 1.0), -1);
        assert_eq!(momentum(-5.0, -6.0), 1, "rising counts, not the sign");
    }

    #[test]
    fn macd_against_signal() {
        assert_eq!(macd(0.5 + EPS, 0.5), 1);
        assert_eq!(macd(0.5, 0.5), 0);
        assert_eq!(macd(0.5 - EPS, 0.5), -1);
    }

    #[test]
    fn stoch_rsi_thresholds_and_trend_filter() {
        // Buy needs a downtrend (close < EMA50).
        assert_eq!(stoch_rsi(99.0, 100.0, 20.0 - EPS, 10.0), 1);
        assert_eq!(stoch_rsi(99.0, 100.0, 20.0, 10.0), 0);
        assert_eq!(stoch_rsi(100.0, 100.0, 15.0, 10.0), 0, "close at EMA50");
        assert_eq!(stoch_rsi(101.0, 100.0, 15.0, 10.0), 0, "uptrend");
        assert_eq!(stoch_rsi(99.0, 100.0, 15.0, 15.0), 0, "%K = %D");
        assert_eq!(stoch_rsi(99.0, 100.0, 15.0, 20.0), 0, "%K below %D");
        // Sell needs an uptrend.
        assert_eq!(stoch_rsi(101.0, 100.0, 80.0 + EPS, 90.0), -1);
        assert_eq!(stoch_rsi(101.0, 100.0, 80.0, 90.0), 0);
        assert_eq!(stoch_rsi(100.0, 100.0, 85.0, 90.0), 0, "close at EMA50");
        assert_eq!(stoch_rsi(99.0, 100.0, 85.0, 90.0), 0, "downtrend");
        assert_eq!(stoch_rsi(101.0, 100.0, 90.0, 80.0), 0, "%D not above 80");
        assert_eq!(stoch_rsi(101.0, 100.0, 90.0, 80.0 + EPS), 0, "%K above %D");
    }

    #[test]
    fn williams_r_thresholds() {
        assert_eq!(williams_r(-80.0 - EPS, -90.0), 1);
        assert_eq!(williams_r(-80.0, -90.0), 0);
        assert_eq!(williams_r(-90.0, -90.0), 0);
        assert_eq!(williams_r(-20.0 + EPS, -10.0), -1);
        assert_eq!(williams_r(-20.0, -10.0), 0);
        assert_eq!(williams_r(-10.0, -10.0), 0);
    }

    #[test]
    fn bull_bear_power_thresholds() {
        // Uptrend, bear power negative and rising.
        assert_eq!(bull_bear_power(101.0, 100.0, 2.0, 2.0, -EPS, -1.0), 1);
        assert_eq!(bull_bear_power(101.0, 100.0, 2.0, 2.0, 0.0, -1.0), 0);
        assert_eq!(bull_bear_power(101.0, 100.0, 2.0, 2.0, -1.0, -1.0), 0);
        assert_eq!(bull_bear_power(100.0, 100.0, 2.0, 2.0, -0.5, -1.0), 0);
        // Downtrend, bull power positive and falling.
        assert_eq!(bull_bear_power(99.0, 100.0, EPS, 1.0, -2.0, -2.0), -1);
        assert_eq!(bull_bear_power(99.0, 100.0, 0.0, 1.0, -2.0, -2.0), 0);
        assert_eq!(bull_bear_power(99.0, 100.0, 1.0, 1.0, -2.0, -2.0), 0);
        assert_eq!(bull_bear_power(100.0, 100.0, 0.5, 1.0, -2.0, -2.0), 0);
    }

    #[test]
    fn ultimate_thresholds() {
        assert_eq!(ultimate(70.0 + EPS), 1);
        assert_eq!(ultimate(70.0), 0);
        assert_eq!(ultimate(30.0), 0);
        assert_eq!(ultimate(30.0 - EPS), -1);
        assert_eq!(ultimate(50.0), 0);
    }
}
