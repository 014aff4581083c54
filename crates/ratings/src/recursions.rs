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
//!
//! Each bar's values go straight into the lanes' columns, whether the line
//! has a value there yet or not (an [`Out`] column holds stale values where
//! its line has none, never read): which lines have a value depends only
//! on how many bars were taken, the same in every lane, so each line's first
//! bar is found once for all lanes and marked after the loop.

use std::ops::Range;

use crate::engine::{
    step_exponential, BULL_BEAR_EMA, BULL_POWER, DMI, EMA_KEYS, MACD, MA_PERIODS, RSI,
};
use crate::every_bar::{Out, Series};
use crate::indicators::{Dmi, Macd, Rsi};
use crate::lane::{Lane, Pair};
use crate::rating::Indicator;
use crate::window::Ema;

/// The lines of the exponential averages' and the RSI's loop, in the order
/// of its values: the EMAs, MACD and its signal, the RSI, and the EMA 13 in
/// the Bull Power's column (the powers replace it).
const EXPONENTIAL_LINES: [usize; 10] = [
    EMA_KEYS[0] as usize,
    EMA_KEYS[1] as usize,
    EMA_KEYS[2] as usize,
    EMA_KEYS[3] as usize,
    EMA_KEYS[4] as usize,
    EMA_KEYS[5] as usize,
    Indicator::Macd as usize,
    Indicator::MacdSignal as usize,
    Indicator::Rsi14 as usize,
    BULL_POWER,
];

/// The directional movement's lines, in the order of its loop's values.
const DIRECTIONAL_LINES: [usize; 3] = [
    Indicator::Adx14 as usize,
    Indicator::PlusDi as usize,
    Indicator::MinusDi as usize,
];

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

impl Recursions {
    /// From a fresh state, every bar of `series`: the EMAs, MACD, its
    /// signal, RSI, ADX, +DI and -DI, and the EMA 13 in the Bull Power's
    /// column, into `out`.
    #[inline(always)]
    pub(crate) fn every_bar(&mut self, series: &Series, out: &mut Out<'_>) {
        self.reset();
        self.run(0..series.close.len(), [series], std::array::from_mut(out));
    }
}

impl Recursions<Pair> {
    /// [`Recursions::every_bar`] of two series side by side (lane `k`:
    /// `series[k]`, into `outs[k]`). They may differ in length: both lanes
    /// run over the bars both series have, then the longer series goes on
    /// alone, on its lane's state moved to `alone`.
    #[inline(always)]
    pub(crate) fn every_bar(
        &mut self,
        series: [&Series; 2],
        outs: &mut [Out<'_>; 2],
        alone: &mut Recursions,
    ) {
        self.reset();
        let common = series.map(|x| x.close.len()).into_iter().min();
        let common = common.unwrap_or(0);
        self.run(0..common, series, outs);
        for (k, (x, out)) in series.into_iter().zip(outs).enumerate() {
            if x.close.len() > common {
                self.lane_into(k, alone);
                alone.run(common..x.close.len(), [x], std::array::from_mut(out));
            }
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

    /// Lane `k` into the one-symbol state `into`, reusing its buffers.
    fn lane_into(&self, k: usize, into: &mut Recursions) {
        for (to, from) in into.ema.iter_mut().zip(&self.ema) {
            *to = from.lane(k);
        }
        into.ema13 = self.ema13.lane(k);
        self.macd.lane_into(k, &mut into.macd);
        into.rsi = self.rsi.lane(k);
        into.dmi = self.dmi.lane(k);
    }

    /// Takes `bars` of `L = T::LANES` series, which each of them has, in
    /// two loops:
    /// the exponential averages, MACD and the RSI (the RSI's chain, two
    /// divisions a bar, is the longest; the EMAs' overlap with it), then
    /// the directional movement (seven divisions a bar, four in a chain).
    #[inline(always)]
    fn run<const L: usize>(
        &mut self,
        bars: Range<usize>,
        series: [&Series; L],
        outs: &mut [Out<'_>; L],
    ) {
        assert_eq!(L, T::LANES, "one series per lane");
        let closes = series.map(|x| &x.close[..bars.end]);
        let (highs, lows) = (
            series.map(|x| &x.high[..bars.end]),
            series.map(|x| &x.low[..bars.end]),
        );
        let at = |xs: &[&[f64]; L], i: usize| T::from_fn(|k| xs[k][i]);
        // The states as local copies (plain numbers, kept in registers
        // rather than stored and reloaded on each bar); the MACD's holds a
        // buffer, and stays.
        let (mut ema, mut ema13, mut rsi) = (self.ema, self.ema13, self.rsi.clone());
        let mut lines = Lines::new(outs, EXPONENTIAL_LINES, bars.end);
        for i in bars.clone() {
            let close = at(&closes, i);
            step_exponential(&mut ema, &mut ema13, &mut self.macd, close);
            rsi.push(close);
            for (j, ema) in ema.iter().enumerate() {
                lines.write(i, j, ema.value());
            }
            let macd = self.macd.value();
            lines.write(i, 6, macd.map(|m| m.0));
            lines.write(i, 7, macd.map(|m| m.1));
            lines.write(i, 8, rsi.value());
            lines.write(i, 9, ema13.value());
        }
        (self.ema, self.ema13, self.rsi) = (ema, ema13, rsi);
        let first = lines.first;
        mark(outs, EXPONENTIAL_LINES, first);
        let mut dmi = self.dmi.clone();
        let mut lines = Lines::new(outs, DIRECTIONAL_LINES, bars.end);
        for i in bars {
            dmi.push(at(&highs, i), at(&lows, i), at(&closes, i));
            let value = dmi.value();
            lines.write(i, 0, value.adx);
            lines.write(i, 1, value.plus_di);
            lines.write(i, 2, value.minus_di);
        }
        self.dmi = dmi;
        let first = lines.first;
        mark(outs, DIRECTIONAL_LINES, first);
    }
}

/// `K` lines' columns in each of `L` lanes' outputs, up to a bar, and each
/// line's first bar with a value (the same in every lane).
struct Lines<'o, const K: usize, const L: usize> {
    columns: [[&'o mut [f64]; K]; L],
    first: [usize; K],
}

impl<'o, const K: usize, const L: usize> Lines<'o, K, L> {
    /// The columns of `lines` in each of `outs`, bars `..end`.
    #[inline(always)]
    fn new(outs: &'o mut [Out<'_>; L], lines: [usize; K], end: usize) -> Self {
        Lines {
            columns: outs
                .each_mut()
                .map(|out| out.columns(lines).map(|column| &mut column[..end])),
            first: [usize::MAX; K],
        }
    }

    /// Bar `i`'s value of line `j` (`None`: none yet), lane by lane.
    #[inline(always)]
    fn write<T: Lane>(&mut self, i: usize, j: usize, value: Option<T>) {
        if value.is_some() {
            self.first[j] = self.first[j].min(i);
        }
        let value = value.unwrap_or(T::splat(0.0));
        for (k, columns) in self.columns.iter_mut().enumerate() {
            columns[j][i] = value.lane(k);
        }
    }
}

/// Marks each of `lines`' first bar (`usize::MAX`: none) in `outs`.
fn mark<const K: usize, const L: usize>(
    outs: &mut [Out<'_>; L],
    lines: [usize; K],
    first: [usize; K],
) {
    for out in outs {
        for (line, first) in lines.into_iter().zip(first) {
            out.mark(line, first);
        }
    }
}
