//! The incremental indicators. Each one's `push` takes the latest closed
//! candle's fields and moves its state; `value` reads the indicator on the
//! latest bar once it has enough history (its warm-up), following TA-Lib's
//! definitions (default compatibility, unstable period 0) where TA-Lib has
//! the indicator, TradingView's otherwise. A value is a pure function of the
//! state, so reading it on some bars only (a cold batch reads the last few)
//! gives the same numbers as reading it on every bar.

use crate::lane::{Lane, Pair};
use crate::window::{
    exact_sum, ring_sums, rings, Ema, Ring, RollingRange, RollingSum, Sma, Window, Wma,
};

/// TA-Lib's `TRUE_RANGE`: the largest of high - low, |high - previous close|
/// and |low - previous close|.
#[inline(always)]
fn true_range<T: Lane>(high: T, low: T, prev_close: T) -> T {
    let tr = high - low;
    let a = (high - prev_close).abs();
    let tr = T::select(a.gt(tr), a, tr);
    let b = (low - prev_close).abs();
    T::select(b.gt(tr), b, tr)
}

/// RSI with Wilder smoothing, seeded with the simple averages of the first
/// `period` gains and losses (TA-Lib `RSI`; first value at index `period`).
/// 0 when there has been neither gain nor loss, as in TA-Lib. An unchanged
/// close scales both averages alike and so leaves the RSI exactly as it was
/// (TA-Lib would recompute it with an ulp of rounding noise).
///
/// On one symbol or two in lockstep, as [`Dmi`]; the state is plain numbers.
#[derive(Clone, Debug)]
pub(crate) struct Rsi<T = f64> {
    period: usize,
    /// Closes taken; a change is each close after the first.
    taken: usize,
    prev_close: T,
    gain: T,
    loss: T,
    /// (gain, loss) as of the latest bar that set the value.
    valued: (T, T),
}

impl<T: Lane> Rsi<T> {
    pub(crate) fn reset(&mut self) {
        *self = Rsi::new(self.period);
    }

    pub(crate) fn new(period: usize) -> Self {
        let zero = T::splat(0.0);
        Self {
            period,
            taken: 0,
            prev_close: zero,
            gain: zero,
            loss: zero,
            valued: (zero, zero),
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, close: T) {
        let prev = std::mem::replace(&mut self.prev_close, close);
        self.taken += 1;
        let changes = self.taken - 1;
        if changes == 0 {
            return;
        }
        let change = close - prev;
        let p = T::splat(self.period as f64);
        let (up, down) = split_change(change);
        if changes <= self.period {
            self.loss = self.loss - down;
            self.gain = self.gain + up;
            if changes < self.period {
                return;
            }
            self.loss = self.loss / p;
            self.gain = self.gain / p;
            self.valued = (self.gain, self.loss);
        } else {
            let kept = p - T::splat(1.0);
            self.loss = (self.loss * kept - down) / p;
            self.gain = (self.gain * kept + up) / p;
            let moved = change.ne(T::splat(0.0));
            self.valued = (
                T::select(moved, self.gain, self.valued.0),
                T::select(moved, self.loss, self.valued.1),
            );
        }
    }
}

impl<T: Lane> Rsi<T> {
    #[inline]
    pub(crate) fn value(&self) -> Option<T> {
        if self.taken <= self.period {
            return None;
        }
        let (gain, loss) = self.valued;
        let total = gain + loss;
        let zero = T::splat(0.0);
        Some(T::select(
            total.ne(zero),
            T::splat(100.0) * (gain / total),
            zero,
        ))
    }
}

impl<T: Lane> Rsi<T> {
    /// Lane `k` as a one-symbol state.
    pub(crate) fn lane(&self, k: usize) -> Rsi {
        Rsi {
            period: self.period,
            taken: self.taken,
            prev_close: self.prev_close.lane(k),
            gain: self.gain.lane(k),
            loss: self.loss.lane(k),
            valued: (self.valued.0.lane(k), self.valued.1.lane(k)),
        }
    }
}

impl Rsi<Pair> {
    /// Each lane as a one-symbol state.
    pub(crate) fn lanes(&self) -> [Rsi; 2] {
        [0, 1].map(|k| self.lane(k))
    }
}

/// A close-to-close change as (gain, loss side): `(change, 0)` or
/// `(0, change)`. Adding or subtracting that 0 leaves a sum exactly as it
/// was, so the averages are those of TA-Lib's if/else; selects instead of
/// a branch on the sign, which a random walk would mispredict half the time.
#[inline(always)]
fn split_change<T: Lane>(change: T) -> (T, T) {
    let zero = T::splat(0.0);
    let falling = change.lt(zero);
    (
        T::select(falling, zero, change),
        T::select(falling, change, zero),
    )
}

/// TA-Lib's raw stochastic `%K`: where `x` sits in `[lowest, highest]`, in
/// percent, 0 when the range is empty.
fn raw_stochastic(x: f64, highest: f64, lowest: f64) -> f64 {
    let diff = (highest - lowest) / 100.0;
    if diff != 0.0 {
        (x - lowest) / diff
    } else {
        0.0
    }
}

/// Scratch columns for the series forms, each as long as the series.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) columns: [Vec<f64>; 8],
    pub(crate) flat_runs: Vec<usize>,
    pub(crate) suffix: Vec<(f64, f64)>,
}

impl Scratch {
    /// Makes every column `n` long.
    pub(crate) fn size(&mut self, n: usize) {
        for column in &mut self.columns {
            column.resize(n, 0.0);
        }
        self.flat_runs.resize(n, 0);
        self.suffix.resize(n, (0.0, 0.0));
    }
}

/// `%K` = SMA(raw, `k`) and `%D` = SMA(%K, `d`) over raw stochastic values
/// `raws[from..]`, each pushed into its average as [`Stoch`] and
/// [`StochRsi`] push them: `ks` and `ds` from the returned first indexes on.
#[inline(always)]
fn smoothed_series(
    raws: &[f64],
    from: usize,
    (k, d): (usize, usize),
    ks: &mut [f64],
    ds: &mut [f64],
) -> (usize, usize) {
    let n = raws.len();
    let k_from = from + Sma::series(&raws[from..], k, &mut ks[from..n]);
    let d_from = k_from + Sma::series(&ks[k_from..n], d, &mut ds[k_from..n]);
    (k_from, d_from)
}

/// The 14-bar high/low channel shared by the Stochastic and Williams %R.
#[derive(Clone, Debug)]
pub(crate) struct Channel {
    range: RollingRange,
}

impl Channel {
    pub(crate) fn reset(&mut self) {
        let Channel { range } = self;
        range.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            range: RollingRange::new(period),
        }
    }

    /// Returns (highest high, lowest low) once full.
    #[inline]
    pub(crate) fn push(&mut self, high: f64, low: f64) -> Option<(f64, f64)> {
        self.range.push(high, low)
    }

    /// (highest high, lowest low) once full.
    #[inline]
    pub(crate) fn value(&self) -> Option<(f64, f64)> {
        self.range.value()
    }

    /// Donchian midpoint.
    #[inline]
    pub(crate) fn mid(&self) -> Option<f64> {
        self.value().map(Channel::midpoint)
    }

    #[inline(always)]
    pub(crate) fn midpoint((highest, lowest): (f64, f64)) -> f64 {
        (highest + lowest) / 2.0
    }

    pub(crate) fn period(&self) -> usize {
        self.range.period()
    }
}

/// Slow stochastic (TA-Lib `STOCH` with SMA smoothing): `%K` = SMA(raw, k),
/// `%D` = SMA(%K, d). Like TA-Lib, both lines are reported from the first bar
/// that has `%D` (index 17 for 14/3/3).
#[derive(Clone, Debug)]
pub(crate) struct Stoch {
    k: Sma,
    d: Sma,
}

impl Stoch {
    pub(crate) fn reset(&mut self) {
        let Stoch { k, d } = self;
        k.reset();
        d.reset();
    }

    pub(crate) fn new(k_smoothing: usize, d_smoothing: usize) -> Self {
        Self {
            k: Sma::new(k_smoothing),
            d: Sma::new(d_smoothing),
        }
    }

    /// Takes the channel of the bar.
    #[inline]
    pub(crate) fn push(&mut self, close: f64, channel: Option<(f64, f64)>) {
        let Some((highest, lowest)) = channel else {
            return;
        };
        self.k.push(raw_stochastic(close, highest, lowest));
        if let Some(k) = self.k.value() {
            self.d.push(k);
        }
    }

    /// (%K, %D).
    #[inline]
    pub(crate) fn value(&self) -> Option<(f64, f64)> {
        let d = self.d.value()?;
        Some((self.k.value()?, d))
    }

    /// The raw value of a close in its bar's channel (highest, lowest).
    #[inline(always)]
    pub(crate) fn raw(close: f64, (highest, lowest): (f64, f64)) -> f64 {
        raw_stochastic(close, highest, lowest)
    }

    /// [`value`](Self::value) after each push into a fresh `Stoch` of
    /// (`k`, `d`) smoothing, given the [`raw`](Self::raw) values of the bars
    /// from `from` on (those with a channel): `ks` and `ds` from the
    /// returned first bar on; `scratch` as long as `raws`.
    #[inline(always)]
    pub(crate) fn series(
        raws: &[f64],
        from: usize,
        smoothing: (usize, usize),
        scratch: &mut [f64],
        ks: &mut [f64],
        ds: &mut [f64],
    ) -> usize {
        let (_, d_from) = smoothed_series(raws, from, smoothing, scratch, ds);
        let n = raws.len();
        ks[d_from..n].copy_from_slice(&scratch[d_from..n]);
        d_from
    }
}

/// Williams %R (TA-Lib `WILLR`): -100 at the channel's low, 0 at its high;
/// 0 when the range is empty.
pub(crate) fn williams_r(close: f64, channel: Option<(f64, f64)>) -> Option<f64> {
    channel.map(|channel| williams_r_in(close, channel))
}

/// Williams %R of a close in its bar's channel (highest, lowest).
#[inline(always)]
pub(crate) fn williams_r_in(close: f64, (highest, lowest): (f64, f64)) -> f64 {
    let diff = (highest - lowest) * -0.01;
    if diff != 0.0 {
        (highest - close) / diff
    } else {
        0.0
    }
}

/// TradingView-style Stochastic RSI: `%K` = SMA(stoch(RSI, RSI, RSI, n), k),
/// `%D` = SMA(%K, d). Fed with RSI values; first `%K` at index 29 and first
/// `%D` at index 31 for (3, 3, 14, 14).
#[derive(Clone, Debug)]
pub(crate) struct StochRsi {
    range: RollingRange,
    k: Sma,
    d: Sma,
}

impl StochRsi {
    pub(crate) fn reset(&mut self) {
        let StochRsi { range, k, d } = self;
        range.reset();
        k.reset();
        d.reset();
    }

    pub(crate) fn new(stoch_length: usize, k_smoothing: usize, d_smoothing: usize) -> Self {
        Self {
            range: RollingRange::new(stoch_length),
            k: Sma::new(k_smoothing),
            d: Sma::new(d_smoothing),
        }
    }

    /// Takes the bar's RSI (none while the RSI warms up; once it has a
    /// value it has one on every later bar).
    #[inline]
    pub(crate) fn push(&mut self, rsi: Option<f64>) {
        let Some(rsi) = rsi else {
            return;
        };
        let Some((h, l)) = self.range.push(rsi, rsi) else {
            return;
        };
        self.k.push(raw_stochastic(rsi, h, l));
        if let Some(k) = self.k.value() {
            self.d.push(k);
        }
    }

    /// (%K, %D), each once available.
    #[inline]
    pub(crate) fn value(&self) -> (Option<f64>, Option<f64>) {
        (self.k.value(), self.d.value())
    }

    /// [`value`](Self::value) after each push into this fresh `StochRsi`
    /// of the RSI values `rsis[from..]` (the RSI's, from its first value
    /// on): `ks` and `ds` from the returned first indexes on; `raws` is
    /// scratch, all as long as `rsis`.
    #[inline(always)]
    pub(crate) fn series(
        &mut self,
        rsis: &[f64],
        from: usize,
        suffix: &mut [(f64, f64)],
        raws: &mut [f64],
        ks: &mut [f64],
        ds: &mut [f64],
    ) -> (usize, usize) {
        let n = rsis.len();
        let rsis = &rsis[from.min(n)..];
        let period = self.range.period();
        RollingRange::series(rsis, rsis, period, suffix, |j, (h, l)| {
            raws[from + j] = raw_stochastic(rsis[j], h, l);
        });
        let raw_from = (from + period - 1).min(n);
        let smoothing = (self.k.period(), self.d.period());
        smoothed_series(raws, raw_from, smoothing, ks, ds)
    }
}

/// Commodity Channel Index on the typical price (TA-Lib `CCI`): the mean and
/// the mean absolute deviation are recomputed over the window when read
/// (O(period)).
/// 0 when the price equals its mean or the deviation is 0, and when the whole
/// window is one price (where TA-Lib's rounding of the mean yields +-66.67).
#[derive(Clone, Debug)]
pub(crate) struct Cci {
    window: Window,
}

impl Cci {
    pub(crate) fn reset(&mut self) {
        let Cci { window } = self;
        window.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            window: Window::new(period),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, high: f64, low: f64, close: f64) {
        self.window.push(Cci::typical(high, low, close));
    }

    #[inline(always)]
    pub(crate) fn typical(high: f64, low: f64, close: f64) -> f64 {
        (high + low + close) / 3.0
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        if !self.window.is_full() {
            return None;
        }
        let tp = self.window.get(0)?;
        Some(Cci::of(tp, self.window.ring(), self.window.capacity()))
    }

    /// The CCI of the latest typical price `tp` in a full window of `n`.
    #[inline(always)]
    fn of(tp: f64, window: Ring<'_>, n: usize) -> f64 {
        Cci::of_sum(tp, window, n, || exact_sum(window))
    }

    /// [`of`](Self::of), the window's sum (`exact_sum`) given.
    #[inline(always)]
    fn of_sum(tp: f64, window: Ring<'_>, n: usize, sum: impl FnOnce() -> f64) -> f64 {
        let values = || window[0].iter().chain(window[1]);
        if values().all(|&v| v == tp) {
            return 0.0;
        }
        let n = n as f64;
        let mean = sum() / n;
        let deviation: f64 = values().map(|v| (v - mean).abs()).sum();
        let distance = tp - mean;
        if distance != 0.0 && deviation != 0.0 {
            distance / (0.015 * (deviation / n))
        } else {
            0.0
        }
    }

    /// [`value`](Self::value) after each push of the typical prices `tps`
    /// into a fresh `Cci` of `period`, as [`RollingSum::series`] gives sums.
    #[inline(always)]
    pub(crate) fn series(tps: &[f64], period: usize, out: &mut [f64]) -> usize {
        ring_sums(tps, period, out);
        for (i, ring) in rings(tps, period) {
            out[i] = Cci::of_sum(tps[i], ring, period, || out[i]);
        }
        (period - 1).min(tps.len())
    }
}

/// Directional movement (TA-Lib `PLUS_DI`, `MINUS_DI`, `ADX`): the sums of
/// the first `period - 1` moves are smoothed Wilder-style from index `period`
/// on (`s = s - s / n + x`); +DI/-DI from index `period`, ADX (the mean of the
/// first `period` DX, then Wilder-smoothed) from index `2 * period - 1`.
/// On one symbol (`T = f64`) or two in lockstep ([`Pair`]): which lines
/// exist follows from the number of moves, the same in both lanes, and what
/// depends on the prices is decided lane by lane with selects. The state is
/// plain numbers (no `Option` to store and reload each bar), so a loop keeps
/// it in registers.
#[derive(Clone, Debug)]
pub(crate) struct Dmi<T = f64> {
    period: usize,
    /// Candles taken; a move is each candle after the first.
    taken: usize,
    /// The latest candle's (high, low, close).
    prev: (T, T, T),
    plus_dm: T,
    minus_dm: T,
    tr: T,
    /// The sum of the first `period` DX, then the ADX.
    adx: T,
    /// The latest bar's +DI and -DI.
    di: (T, T),
}

/// One bar of [`Dmi`] output.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DmiValue<T = f64> {
    pub(crate) plus_di: Option<T>,
    pub(crate) minus_di: Option<T>,
    pub(crate) adx: Option<T>,
}

impl<T: Lane> Dmi<T> {
    pub(crate) fn reset(&mut self) {
        *self = Dmi::new(self.period);
    }

    pub(crate) fn new(period: usize) -> Self {
        let zero = T::splat(0.0);
        Self {
            period,
            taken: 0,
            prev: (zero, zero, zero),
            plus_dm: zero,
            minus_dm: zero,
            tr: zero,
            adx: zero,
            di: (zero, zero),
        }
    }

    fn moves(&self) -> usize {
        self.taken.saturating_sub(1)
    }

    /// The move at which the ADX is first the mean of the DX so far.
    fn adx_seed_move(&self) -> usize {
        2 * self.period - 1
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, high: T, low: T, close: T) {
        let (prev_high, prev_low, prev_close) =
            std::mem::replace(&mut self.prev, (high, low, close));
        self.taken += 1;
        let moves = self.moves();
        if moves == 0 {
            return;
        }
        let zero = T::splat(0.0);
        let up = high - prev_high;
        let down = prev_low - low;
        // TA-Lib's if/else chain as two selects (the two conditions exclude
        // each other); branches on the moves would be mispredicted often.
        let plus = T::select(up.gt(zero) & up.gt(down), up, zero);
        let minus = T::select(down.gt(zero) & up.lt(down), down, zero);
        let tr = true_range(high, low, prev_close);
        if moves < self.period {
            self.plus_dm = self.plus_dm + plus;
            self.minus_dm = self.minus_dm + minus;
            self.tr = self.tr + tr;
            return;
        }
        let n = T::splat(self.period as f64);
        self.plus_dm = self.plus_dm - self.plus_dm / n + plus;
        self.minus_dm = self.minus_dm - self.minus_dm / n + minus;
        self.tr = self.tr - self.tr / n + tr;

        // With no true range the lines are 0 and there is no DX; with no
        // directional movement there is no DX. (Computed anyway and then
        // put aside, so that both lanes of a pair take the same steps.)
        let ranged = self.tr.ne(zero);
        let hundred = T::splat(100.0);
        let p = hundred * (self.plus_dm / self.tr);
        let m = hundred * (self.minus_dm / self.tr);
        let sum = p + m;
        let has_dx = ranged & sum.ne(zero);
        let dx = hundred * ((m - p).abs() / sum);
        self.di = (T::select(ranged, p, zero), T::select(ranged, m, zero));

        // DX exists from move `period`; ADX averages the first `period` of
        // them (a missing DX counts as 0), then moves with each DX there is.
        let seed = self.adx_seed_move();
        if moves <= seed {
            self.adx = self.adx + T::select(has_dx, dx, zero);
            if moves == seed {
                self.adx = self.adx / n;
            }
        } else {
            let adx = self.adx;
            let one = T::splat(1.0);
            self.adx = T::select(has_dx, (adx * (n - one) + dx) / n, adx);
        }
    }
}

impl<T: Lane> Dmi<T> {
    #[inline]
    pub(crate) fn value(&self) -> DmiValue<T> {
        let moves = self.moves();
        let lines = moves >= self.period;
        DmiValue {
            plus_di: lines.then_some(self.di.0),
            minus_di: lines.then_some(self.di.1),
            adx: (moves >= self.adx_seed_move()).then_some(self.adx),
        }
    }
}

impl<T: Lane> Dmi<T> {
    /// Lane `k` as a one-symbol state.
    pub(crate) fn lane(&self, k: usize) -> Dmi {
        let (high, low, close) = self.prev;
        Dmi {
            period: self.period,
            taken: self.taken,
            prev: (high.lane(k), low.lane(k), close.lane(k)),
            plus_dm: self.plus_dm.lane(k),
            minus_dm: self.minus_dm.lane(k),
            tr: self.tr.lane(k),
            adx: self.adx.lane(k),
            di: (self.di.0.lane(k), self.di.1.lane(k)),
        }
    }
}

impl Dmi<Pair> {
    /// Each lane as a one-symbol state.
    pub(crate) fn lanes(&self) -> [Dmi; 2] {
        [0, 1].map(|k| self.lane(k))
    }
}

/// MACD as TA-Lib computes it: the slow EMA is seeded at index `slow - 1`
/// and the fast EMA is seeded at that same index with the simple average of
/// the last `fast` closes; the signal EMA is seeded with the average of the
/// first `signal` MACD values. Both lines are reported from index
/// `slow + signal - 2` (33 for 12/26/9), as TA-Lib does. On one symbol or
/// two in lockstep, as [`Dmi`].
#[derive(Clone, Debug)]
pub(crate) struct Macd<T = f64> {
    fast_seed: Sma<T>,
    fast: Ema<T>,
    slow: Ema<T>,
    signal: Ema<T>,
    /// The latest MACD value (the signal's latest input).
    macd: T,
}

impl<T: Lane> Macd<T> {
    pub(crate) fn reset(&mut self) {
        let Macd {
            fast_seed,
            fast,
            slow,
            signal,
            macd,
        } = self;
        fast_seed.reset();
        fast.reset();
        slow.reset();
        signal.reset();
        *macd = T::splat(0.0);
    }

    pub(crate) fn new(fast: usize, slow: usize, signal: usize) -> Self {
        Self {
            fast_seed: Sma::new(fast),
            fast: Ema::new(fast),
            slow: Ema::new(slow),
            signal: Ema::new(signal),
            macd: T::splat(0.0),
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, close: T) {
        let slow = self.slow.push(close);
        let fast = if self.fast.value().is_some() {
            self.fast.step(close)
        } else {
            self.fast_seed.push(close);
            if let (Some(seed), Some(_)) = (self.fast_seed.value(), slow) {
                self.fast.seed(seed);
            }
            self.fast.value()
        };
        let (Some(fast), Some(slow)) = (fast, slow) else {
            return;
        };
        self.macd = fast - slow;
        self.signal.push(self.macd);
    }

    /// (MACD, signal).
    #[inline]
    pub(crate) fn value(&self) -> Option<(T, T)> {
        self.signal.value().map(|signal| (self.macd, signal))
    }

    /// Lane `k` into the one-symbol state `into` (same periods), reusing
    /// its buffer.
    pub(crate) fn lane_into(&self, k: usize, into: &mut Macd) {
        self.fast_seed.lane_into(k, &mut into.fast_seed);
        into.fast = self.fast.lane(k);
        into.slow = self.slow.lane(k);
        into.signal = self.signal.lane(k);
        into.macd = self.macd.lane(k);
    }
}

/// Ultimate Oscillator (TA-Lib `ULTOSC`): buying pressure over true range on
/// three windows, weighted 4:2:1, in percent; a window whose true range sums
/// to 0 adds nothing. "Sums to 0" is decided exactly, by counting the
/// trailing bars with no range, not by testing a rolling sum that may hold a
/// rounding residue.
#[derive(Clone, Debug)]
pub(crate) struct Uo {
    prev_close: Option<f64>,
    /// (period, buying-pressure sum, true-range sum), shortest first.
    windows: [(usize, RollingSum, RollingSum); 3],
    /// Consecutive latest bars whose true range is 0.
    flat_run: usize,
}

impl Uo {
    pub(crate) fn reset(&mut self) {
        let Uo {
            prev_close,
            windows,
            flat_run,
        } = self;
        *prev_close = None;
        for (_, bp, tr) in windows {
            bp.reset();
            tr.reset();
        }
        *flat_run = 0;
    }

    pub(crate) fn new(short: usize, medium: usize, long: usize) -> Self {
        let window = |p| (p, RollingSum::new(p), RollingSum::new(p));
        Self {
            prev_close: None,
            windows: [window(short), window(medium), window(long)],
            flat_run: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, high: f64, low: f64, close: f64) {
        let Some(prev_close) = self.prev_close.replace(close) else {
            return;
        };
        let (pressure, range) = Uo::move_of(high, low, close, prev_close);
        self.flat_run = Uo::flat_run(self.flat_run, range);
        for (_, bp, tr) in &mut self.windows {
            bp.push(pressure);
            tr.push(range);
        }
    }

    /// The buying pressure and true range of a bar.
    #[inline(always)]
    fn move_of(high: f64, low: f64, close: f64, prev_close: f64) -> (f64, f64) {
        (
            close - low.min(prev_close),
            true_range(high, low, prev_close),
        )
    }

    #[inline(always)]
    fn flat_run(run: usize, range: f64) -> usize {
        if range == 0.0 {
            run + 1
        } else {
            0
        }
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        let mut sums = [(0, 0.0, 0.0); 3];
        for ((period, bp, tr), sum) in self.windows.iter().zip(&mut sums) {
            *sum = (*period, bp.value()?, tr.value()?);
        }
        Some(Uo::of(sums, self.flat_run))
    }

    /// The oscillator from each window's (period, buying-pressure sum,
    /// true-range sum), shortest first.
    #[inline(always)]
    fn of(sums: [(usize, f64, f64); 3], flat_run: usize) -> f64 {
        let mut total = 0.0;
        for ((period, bp, tr), weight) in sums.into_iter().zip([4.0, 2.0, 1.0]) {
            if flat_run < period {
                total += weight * (bp / tr);
            }
        }
        100.0 * (total / 7.0)
    }

    /// [`value`](Self::value) after each push of a bar into this fresh `Uo`,
    /// as [`RollingSum::series`] gives sums.
    #[inline(always)]
    pub(crate) fn series(
        &self,
        (highs, lows, closes): (&[f64], &[f64], &[f64]),
        scratch: &mut Scratch,
        out: &mut [f64],
    ) -> usize {
        let n = closes.len();
        if n < 2 {
            return n;
        }
        // Move `j` is bar `j + 1`'s.
        let moves = n - 1;
        let [pressures, ranges, sums @ ..] = &mut scratch.columns;
        let flat_runs = &mut scratch.flat_runs;
        let mut run = 0;
        for j in 0..moves {
            let i = j + 1;
            let (pressure, range) = Uo::move_of(highs[i], lows[i], closes[i], closes[i - 1]);
            pressures[j] = pressure;
            ranges[j] = range;
            run = Uo::flat_run(run, range);
            flat_runs[j] = run;
        }
        let mut from = 0;
        for ((period, _, _), pair) in self.windows.iter().zip(sums.chunks_mut(2)) {
            let [bp, tr] = pair else { unreachable!() };
            from = from.max(RollingSum::series(&pressures[..moves], *period, bp));
            RollingSum::series(&ranges[..moves], *period, tr);
        }
        let periods = [0, 1, 2].map(|w| self.windows[w].0);
        let [bp7, tr7, bp14, tr14, bp28, tr28] = sums;
        for j in from..moves {
            let sums = [
                (periods[0], bp7[j], tr7[j]),
                (periods[1], bp14[j], tr14[j]),
                (periods[2], bp28[j], tr28[j]),
            ];
            out[j + 1] = Uo::of(sums, flat_runs[j]);
        }
        (from + 1).min(n)
    }
}

/// Ichimoku lines used by the rating: conversion (9), base (26), and the
/// leading spans as they were 26 bars ago (the cloud under today's bar).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IchimokuValue {
    pub(crate) conversion: Option<f64>,
    pub(crate) base: Option<f64>,
    pub(crate) lead1_lagged: Option<f64>,
    pub(crate) lead2_lagged: Option<f64>,
}

#[derive(Clone, Debug)]
pub(crate) struct Ichimoku {
    conversion: Channel,
    base: Channel,
    span_b: Channel,
    lead1: Window,
    lead2: Window,
    displacement: usize,
}

impl Ichimoku {
    pub(crate) fn reset(&mut self) {
        let Ichimoku {
            conversion,
            base,
            span_b,
            lead1,
            lead2,
            displacement: _,
        } = self;
        conversion.reset();
        base.reset();
        span_b.reset();
        lead1.reset();
        lead2.reset();
    }

    pub(crate) fn new(conversion: usize, base: usize, span_b: usize, displacement: usize) -> Self {
        Self {
            conversion: Channel::new(conversion),
            base: Channel::new(base),
            span_b: Channel::new(span_b),
            lead1: Window::new(displacement + 1),
            lead2: Window::new(displacement + 1),
            displacement,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, high: f64, low: f64) {
        self.conversion.push(high, low);
        self.base.push(high, low);
        self.span_b.push(high, low);
        let (conversion, base) = (self.conversion.mid(), self.base.mid());
        // Once a line exists it exists on every later bar, so the window
        // holds consecutive bars and lag `displacement` is 26 bars back.
        if let (Some(c), Some(b)) = (conversion, base) {
            self.lead1.push(Ichimoku::lead1(c, b));
        }
        if let Some(s) = self.span_b.mid() {
            self.lead2.push(s);
        }
    }

    #[inline(always)]
    fn lead1(conversion: f64, base: f64) -> f64 {
        (conversion + base) / 2.0
    }

    #[inline]
    pub(crate) fn value(&self) -> IchimokuValue {
        IchimokuValue {
            conversion: self.conversion.mid(),
            base: self.base.mid(),
            lead1_lagged: self.lead1.get(self.displacement),
            lead2_lagged: self.lead2.get(self.displacement),
        }
    }

    /// [`value`](Self::value) after each push of a bar into a fresh
    /// `Ichimoku` like this one, as [`RollingSum::series`] gives sums:
    /// the conversion line, the base line and the leading spans
    /// `displacement` bars back, with their first bars. A line that exists
    /// exists on every later bar, so the lead pushed `displacement` pushes
    /// ago is the one `displacement` bars back.
    #[inline(always)]
    pub(crate) fn series(
        &self,
        highs: &[f64],
        lows: &[f64],
        suffix: &mut [(f64, f64)],
        [conversion, base, lead1_lagged, lead2_lagged]: [&mut [f64]; 4],
    ) -> [usize; 4] {
        let n = highs.len();
        let mut firsts = [n; 4];
        // The span's midpoints go to `lead2_lagged` and the leads to
        // `lead1_lagged` first, then each is moved back by the displacement.
        for (channel, line, k) in [
            (&self.conversion, &mut *conversion, 0),
            (&self.base, &mut *base, 1),
            (&self.span_b, &mut *lead2_lagged, 3),
        ] {
            RollingRange::series(highs, lows, channel.period(), suffix, |i, range| {
                line[i] = Channel::midpoint(range);
            });
            firsts[k] = (channel.period() - 1).min(n);
        }
        let lead1_from = firsts[0].max(firsts[1]);
        for i in lead1_from..n {
            lead1_lagged[i] = Ichimoku::lead1(conversion[i], base[i]);
        }
        let lag = self.displacement;
        for (line, from, k) in [(lead1_lagged, lead1_from, 2), (lead2_lagged, firsts[3], 3)] {
            let first = (from + lag).min(n);
            line.copy_within(from..n - (first - from), first);
            firsts[k] = first;
        }
        firsts
    }
}

/// Volume-weighted moving average, summed over the window when read
/// (O(period)) so that an all-zero-volume window is detected exactly; it
/// has no value then.
#[derive(Clone, Debug)]
pub(crate) struct Vwma {
    prices: Window,
    volumes: Window,
}

impl Vwma {
    pub(crate) fn reset(&mut self) {
        let Vwma { prices, volumes } = self;
        prices.reset();
        volumes.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            prices: Window::new(period),
            volumes: Window::new(period),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, close: f64, volume: f64) {
        self.prices.push(close);
        self.volumes.push(volume);
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        if !self.prices.is_full() {
            return None;
        }
        Vwma::of(self.prices.ring(), self.volumes.ring())
    }

    /// The average of a full window of prices and their volumes (in the
    /// same order).
    #[inline(always)]
    fn of(prices: Ring<'_>, volumes: Ring<'_>) -> Option<f64> {
        let volume_sum = exact_sum(volumes);
        if volume_sum == 0.0 {
            return None;
        }
        let weighted: f64 = prices[0]
            .iter()
            .zip(volumes[0])
            .chain(prices[1].iter().zip(volumes[1]))
            .map(|(&p, &v)| Vwma::weight(p, v))
            .sum();
        Some(Vwma::mean(weighted, volume_sum))
    }

    #[inline(always)]
    fn weight(price: f64, volume: f64) -> f64 {
        price * volume
    }

    #[inline(always)]
    fn mean(weighted: f64, volume_sum: f64) -> f64 {
        weighted / volume_sum
    }

    /// [`value`](Self::value) after each push into a fresh `Vwma` of
    /// `period`: `out(i, vwma)` from `period - 1` on.
    #[inline(always)]
    pub(crate) fn series(
        closes: &[f64],
        volumes: &[f64],
        period: usize,
        [weights, weighted, volume_sums]: [&mut [f64]; 3],
        mut out: impl FnMut(usize, Option<f64>),
    ) {
        // Each window's two sums, as `of` adds them: its weights and its
        // volumes in ring order.
        let n = closes.len();
        for ((w, &p), &v) in weights.iter_mut().zip(closes).zip(volumes) {
            *w = Vwma::weight(p, v);
        }
        let first = ring_sums(&weights[..n], period, weighted);
        ring_sums(volumes, period, volume_sums);
        for i in first..n {
            let volume_sum = volume_sums[i];
            out(
                i,
                (volume_sum != 0.0).then(|| Vwma::mean(weighted[i], volume_sum)),
            );
        }
    }
}

/// Hull moving average: WMA(2 * WMA(x, n / 2) - WMA(x, n), floor(sqrt(n))).
#[derive(Clone, Debug)]
pub(crate) struct Hma {
    half: Wma,
    full: Wma,
    smooth: Wma,
}

impl Hma {
    pub(crate) fn reset(&mut self) {
        let Hma { half, full, smooth } = self;
        half.reset();
        full.reset();
        smooth.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        let root = (period as f64).sqrt().floor() as usize;
        Self {
            half: Wma::new(period / 2),
            full: Wma::new(period),
            smooth: Wma::new(root.max(1)),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, close: f64) {
        self.half.push(close);
        self.full.push(close);
        if let (Some(half), Some(full)) = (self.half.value(), self.full.value()) {
            self.smooth.push(Hma::raw(half, full));
        }
    }

    #[inline(always)]
    fn raw(half: f64, full: f64) -> f64 {
        2.0 * half - full
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        self.smooth.value()
    }

    /// [`value`](Self::value) after each push of `closes` into a fresh
    /// `Hma` of `period`, as [`RollingSum::series`] gives sums; `raw` is
    /// scratch as long as `closes`.
    #[inline(always)]
    pub(crate) fn series(closes: &[f64], period: usize, raw: &mut [f64], out: &mut [f64]) -> usize {
        let n = closes.len();
        let template = Hma::new(period);
        let (half, full, smooth) = (
            template.half.period(),
            template.full.period(),
            template.smooth.period(),
        );
        // The raw line starts once both averages have a value.
        let half_from = Wma::series(closes, half, out);
        let full_from = Wma::series(closes, full, raw);
        let from = half_from.max(full_from);
        for (r, &h) in raw[from..n].iter_mut().zip(&out[from..n]) {
            *r = Hma::raw(h, *r);
        }
        from + Wma::series(&raw[from..n], smooth, &mut out[from..n])
    }
}

/// Awesome Oscillator: SMA(hl2, 5) - SMA(hl2, 34). A difference within
/// 1e-12 of the price is rounding noise of two averages of one flat price and
/// reads 0 (otherwise it would "cross zero" on noise).
#[derive(Clone, Debug)]
pub(crate) struct Ao {
    fast: Sma,
    slow: Sma,
}

impl Ao {
    pub(crate) fn reset(&mut self) {
        let Ao { fast, slow } = self;
        fast.reset();
        slow.reset();
    }

    pub(crate) fn new(fast: usize, slow: usize) -> Self {
        Self {
            fast: Sma::new(fast),
            slow: Sma::new(slow),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, high: f64, low: f64) {
        let mid = Ao::mid(high, low);
        self.fast.push(mid);
        self.slow.push(mid);
    }

    #[inline(always)]
    pub(crate) fn mid(high: f64, low: f64) -> f64 {
        (high + low) / 2.0
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        Some(Ao::of(self.fast.value()?, self.slow.value()?))
    }

    #[inline(always)]
    fn of(fast: f64, slow: f64) -> f64 {
        let ao = fast - slow;
        if ao.abs() <= 1e-12 * slow.abs() {
            0.0
        } else {
            ao
        }
    }

    /// [`value`](Self::value) after each push of the midpoints `mids`
    /// into a fresh `Ao` of (`fast`, `slow`), as [`RollingSum::series`]
    /// gives sums; `fasts` is scratch as long as `mids`.
    #[inline(always)]
    pub(crate) fn series(
        mids: &[f64],
        (fast, slow): (usize, usize),
        fasts: &mut [f64],
        out: &mut [f64],
    ) -> usize {
        let fast_from = Sma::series(mids, fast, fasts);
        let slow_from = Sma::series(mids, slow, out);
        let from = fast_from.max(slow_from);
        for (o, &f) in out[from..mids.len()]
            .iter_mut()
            .zip(&fasts[from..mids.len()])
        {
            *o = Ao::of(f, *o);
        }
        from
    }
}

/// Momentum: close - close `period` bars ago.
#[derive(Clone, Debug)]
pub(crate) struct Momentum {
    closes: Window,
}

impl Momentum {
    pub(crate) fn reset(&mut self) {
        let Momentum { closes } = self;
        closes.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            closes: Window::new(period + 1),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, close: f64) {
        self.closes.push(close);
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        let back = self.closes.get(self.closes.capacity() - 1)?;
        Some(self.closes.get(0)? - back)
    }
}
