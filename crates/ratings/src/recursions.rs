//! The recursive indicators on every bar of a series, for
//! [`EveryBar`](crate::EveryBar): the six EMAs, the EMA 13 under the Bull
//! and Bear Power, MACD, RSI and the directional movement. Each bar's values
//! hang on the bar before's through chains of dependent operations (the
//! RSI's and the directional movement's divisions among them), so a series
//! cannot be widened bar by bar; several series can, side by side. The pass
//! runs on one symbol (`T = f64`) or on two in lockstep (`T = Pair`, see
//! [`crate::lane`]), where each operation, and each division, serves both
//! symbols for the time of one: the same IEEE operations per lane, so the
//! same bits as two single passes.

use crate::engine::{
    step_exponential, BULL_BEAR_EMA, BULL_POWER, DMI, EMA_KEYS, MACD, MA_PERIODS, RSI,
};
use crate::every_bar::{Out, Series};
use crate::indicators::{Dmi, Macd, Rsi};
use crate::lane::Lane;
use crate::rating::Indicator;
use crate::window::Ema;

/// The recursive indicators' state, on one symbol or `T::LANES` side by
/// side; kept between fills for the MACD's seeding window.
#[derive(Clone, Debug)]
pub(crate) struct Recursions<T = f64> {
    ema: [Ema<T>; 6],
    ema13: Ema<T>,
    macd: Macd<T>,
    rsi: Rsi<T>,
    dmi: Dmi<T>,
}

impl<T: Lane> Default for Recursions<T> {
    fn default() -> Self {
        Self {
            ema: MA_PERIODS.map(Ema::new),
            ema13: Ema::new(BULL_BEAR_EMA),
            macd: Macd::new(MACD.0, MACD.1, MACD.2),
            rsi: Rsi::new(RSI),
            dmi: Dmi::new(DMI),
        }
    }
}

impl<T: Lane> Recursions<T> {
    fn reset(&mut self) {
        let Recursions {
            ema,
            ema13,
            macd,
            rsi,
            dmi,
        } = self;
        ema.iter_mut().for_each(Ema::reset);
        ema13.reset();
        macd.reset();
        rsi.reset();
        dmi.reset();
    }

    /// From a fresh state, every bar of `T::LANES` series side by side
    /// (lane `k`: `series[k]`, written to `outs[k]`): the EMAs, MACD, its
    /// signal, RSI, ADX, +DI and -DI, and the EMA 13 in the Bull Power's
    /// column (the powers replace it). The series may differ in length: a
    /// shorter one's last bar is fed again up to the longest's end and its
    /// lane's values there are dropped (lanes never mix). With several
    /// lanes, no series may be empty.
    #[inline(always)]
    pub(crate) fn every_bar(&mut self, series: &[&Series], outs: &mut [Out<'_>]) {
        use Indicator as I;
        assert!(series.len() == T::LANES && outs.len() == T::LANES);
        self.reset();
        let n = series.iter().map(|x| x.close.len()).max().unwrap_or(0);
        // Bar `i` of each lane's `field` (`close`, `high`, `low`).
        macro_rules! bar {
            ($field:ident, $i:expr) => {
                T::from_fn(|k| {
                    let xs = &series[k].$field;
                    xs[$i.min(xs.len() - 1)]
                })
            };
        }
        // The exponential averages, MACD and the RSI: the RSI's chain (two
        // divisions a bar) is the longest; the EMAs' overlap with it.
        for i in 0..n {
            let close = bar!(close, i);
            step_exponential(&mut self.ema, &mut self.ema13, &mut self.macd, close);
            self.rsi.push(close);
            for (ema, key) in self.ema.iter().zip(EMA_KEYS) {
                put(outs, key as usize, i, ema.value());
            }
            let macd = self.macd.value();
            put(outs, I::Macd as usize, i, macd.map(|m| m.0));
            put(outs, I::MacdSignal as usize, i, macd.map(|m| m.1));
            put(outs, I::Rsi14 as usize, i, self.rsi.value());
            put(outs, BULL_POWER, i, self.ema13.value());
        }
        // The directional movement: seven divisions a bar, four in a chain.
        for i in 0..n {
            self.dmi.push(bar!(high, i), bar!(low, i), bar!(close, i));
            let dmi = self.dmi.value();
            put(outs, I::Adx14 as usize, i, dmi.adx);
            put(outs, I::PlusDi as usize, i, dmi.plus_di);
            put(outs, I::MinusDi as usize, i, dmi.minus_di);
        }
    }
}

/// Each lane's value of `line` on bar `i` into its output, for the lanes
/// whose series has that bar.
#[inline(always)]
fn put<T: Lane>(outs: &mut [Out<'_>], line: usize, i: usize, value: Option<T>) {
    for (k, out) in outs.iter_mut().enumerate() {
        if i < out.bars() {
            out.put(line, i, value.map(|v| v.lane(k)));
        }
    }
}
