//! Bounded building blocks shared by the indicators: a fixed window of the
//! latest values, a rolling sum, simple/exponential/weighted averages and
//! rolling highest/lowest pairs. `push` moves the state and does O(1) work,
//! except the periodic exact re-summation of a rolling sum and the closing
//! of a block of extremes (O(period) once every `period` pushes); `value`
//! reads it (O(period) for the weighted average and the short exact sums).
//! What the recursions need (the window, rolling sum and simple average that
//! seed the MACD's fast line, and the exponential average) also runs on two
//! symbols in lockstep (`T = Pair`, see [`crate::lane`]).

use crate::lane::Lane;

/// The latest `capacity` values of a series.
#[derive(Clone, Debug)]
pub(crate) struct Window<T = f64> {
    buf: Box<[T]>,
    /// Where the next value goes.
    head: usize,
    len: usize,
}

impl<T: Lane> Window<T> {
    /// Empties the window (keeping its buffer).
    pub(crate) fn reset(&mut self) {
        let Window { buf: _, head, len } = self;
        (*head, *len) = (0, 0);
    }

    pub(crate) fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "a window holds at least one value");
        Self {
            buf: vec![T::splat(0.0); capacity].into_boxed_slice(),
            head: 0,
            len: 0,
        }
    }

    /// Adds `x`; returns the value that fell out when the window was full.
    #[inline(always)]
    pub(crate) fn push(&mut self, x: T) -> Option<T> {
        let evicted = if self.len == self.buf.len() {
            Some(self.buf[self.head])
        } else {
            self.len += 1;
            None
        };
        self.buf[self.head] = x;
        self.head += 1;
        if self.head == self.buf.len() {
            self.head = 0;
        }
        evicted
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == self.buf.len()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// True right after a push that filled the last slot of the buffer.
    fn wrapped(&self) -> bool {
        self.head == 0
    }

    /// The held values, in storage order (not time order).
    pub(crate) fn values(&self) -> &[T] {
        &self.buf[..self.len]
    }

    /// The held values in storage order, as [`rings`] gives a full
    /// window's over a series.
    pub(crate) fn ring(&self) -> Ring<'_, T> {
        [self.values(), &[]]
    }

    /// Lane `k` into the one-symbol window `into` of the same capacity.
    fn lane_into(&self, k: usize, into: &mut Window) {
        for (to, from) in into.buf.iter_mut().zip(&self.buf) {
            *to = from.lane(k);
        }
        (into.head, into.len) = (self.head, self.len);
    }
}

impl Window {
    /// The value `lag` pushes ago (0 = the latest), if the window still holds it.
    pub(crate) fn get(&self, lag: usize) -> Option<f64> {
        if lag >= self.len {
            return None;
        }
        let cap = self.buf.len();
        let mut i = self.head + cap - 1 - lag;
        if i >= cap {
            i -= cap;
        }
        Some(self.buf[i])
    }

    /// `x(0), .., x(n - 1)` pushed into this empty window at once: the
    /// same buffer, head and length as pushing them one by one.
    fn fill_empty(&mut self, n: usize, x: impl Fn(usize) -> f64) {
        debug_assert_eq!(self.len, 0, "only an empty window is filled at once");
        let cap = self.buf.len();
        let kept = n.min(cap);
        // The value pushed k-th lands in slot k % cap.
        let mut slot = (n - kept) % cap;
        for k in n - kept..n {
            self.buf[slot] = x(k);
            slot += 1;
            if slot == cap {
                slot = 0;
            }
        }
        (self.head, self.len) = (n % cap, kept);
    }

    /// The held values from the latest back (lag 0, 1, 2, ...).
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = f64> + '_ {
        // The newest values sit just below `head`, the oldest from `head` on
        // (until the ring is full, `head == len` and that part is empty).
        let (recent, oldest) = self.buf[..self.len].split_at(self.head);
        recent.iter().rev().chain(oldest.iter().rev()).copied()
    }
}

/// A full window's values in a [`Window`]'s storage order, in two runs.
pub(crate) type Ring<'a, T = f64> = [&'a [T]; 2];

/// The storage order of the window of `period` values ending at `xs[end]`,
/// had `xs` been pushed into a [`Window`] from `xs[0]` on: the ring puts
/// the value pushed `k`-th in slot `k % period`, so the first slot holds
/// `xs[slot0]`, `slot0` the latest multiple of `period` not after `end`.
#[inline(always)]
fn ring_at(xs: &[f64], end: usize, slot0: usize, period: usize) -> Ring<'_> {
    [&xs[slot0..=end], &xs[end + 1 - period..slot0]]
}

/// `(i, ring)` for the window ending at each `xs[i]` that is full, oldest
/// first (see [`ring_at`]).
#[inline(always)]
pub(crate) fn rings(xs: &[f64], period: usize) -> impl Iterator<Item = (usize, Ring<'_>)> {
    let mut slot0 = 0;
    (period - 1..xs.len()).map(move |i| {
        if i >= slot0 + period {
            slot0 += period;
        }
        (i, ring_at(xs, i, slot0, period))
    })
}

/// `exact_sum` of each full window's ring (see [`rings`]) into `out[i]`,
/// from the returned first index on. The sum of a ring's first run (the
/// values from the ring's first slot to the window's end) is the running
/// sum of the current lap, carried from one window to the next: the same
/// additions in the same order, done once for all the windows of a lap.
#[inline(always)]
pub(crate) fn ring_sums(xs: &[f64], period: usize, out: &mut [f64]) -> usize {
    let mut lap = empty_sum();
    let mut slot0 = 0;
    for (i, &x) in xs.iter().enumerate() {
        if i == slot0 + period {
            slot0 = i;
            lap = empty_sum();
        }
        lap += x;
        if i + 1 >= period {
            let mut sum = lap;
            for &x in &xs[i + 1 - period..slot0] {
                sum += x;
            }
            out[i] = sum;
        }
    }
    (period - 1).min(xs.len())
}

/// The values of a ring summed in its order (from [`empty_sum`], as
/// `Iterator::sum` adds them).
#[inline(always)]
pub(crate) fn exact_sum<T: Lane>(ring: Ring<'_, T>) -> T {
    ring[0]
        .iter()
        .chain(ring[1])
        .fold(T::splat(empty_sum()), |sum, &x| sum + x)
}

/// Sum of the last `period` values. It is updated by adding the new value and
/// subtracting the one that leaves, and re-summed exactly each time the ring
/// wraps, so rounding errors never accumulate over a long run. Short windows
/// (up to [`EXACT_SUM_PERIOD`]) are simply re-summed whenever the sum is read:
/// equal inputs then give exactly equal sums (a stochastic stuck at 0 or 100
/// has %K exactly equal to %D, not 1e-13 apart).
#[derive(Clone, Debug)]
pub(crate) struct RollingSum<T = f64> {
    window: Window<T>,
    sum: T,
}

/// Windows up to this length are summed exactly on every read.
pub(crate) const EXACT_SUM_PERIOD: usize = 8;

impl<T: Lane> RollingSum<T> {
    pub(crate) fn reset(&mut self) {
        let RollingSum { window, sum } = self;
        window.reset();
        *sum = T::splat(0.0);
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            window: Window::new(period),
            sum: T::splat(0.0),
        }
    }

    /// Adds `x`.
    #[inline(always)]
    pub(crate) fn push(&mut self, x: T) {
        if self.window.capacity() <= EXACT_SUM_PERIOD {
            self.window.push(x);
            return;
        }
        self.sum = match self.window.push(x) {
            Some(old) => self.sum + (x - old),
            None => self.sum + x,
        };
        if self.window.wrapped() {
            self.resum();
        }
    }

    #[cold]
    fn resum(&mut self) {
        self.sum = exact_sum(self.window.ring());
    }

    /// Lane `k` into the one-symbol sum `into` of the same period.
    fn lane_into(&self, k: usize, into: &mut RollingSum) {
        self.window.lane_into(k, &mut into.window);
        into.sum = self.sum.lane(k);
    }

    /// The sum once `period` values have been seen.
    #[inline]
    pub(crate) fn value(&self) -> Option<T> {
        if !self.window.is_full() {
            return None;
        }
        Some(if self.window.capacity() <= EXACT_SUM_PERIOD {
            exact_sum(self.window.ring())
        } else {
            self.sum
        })
    }
}

impl RollingSum {
    /// `x(0), .., x(n - 1)` pushed into this fresh sum at once, bit for bit
    /// the state [`push`](Self::push) leaves: the ring re-summed exactly at
    /// its last wrap, then moved by each value in and out since. A cold
    /// start's long windows take a few hundred values this way, in a loop
    /// of their own instead of one push per candle among the others.
    pub(crate) fn extend_fresh(&mut self, n: usize, x: impl Fn(usize) -> f64) {
        let period = self.window.capacity();
        self.window.fill_empty(n, &x);
        if period <= EXACT_SUM_PERIOD {
            return;
        }
        let last_wrap = n / period * period;
        self.sum = if last_wrap == 0 {
            (0..n).fold(self.sum, |sum, i| sum + x(i))
        } else {
            let at_wrap: f64 = (last_wrap - period..last_wrap).map(&x).sum();
            (last_wrap..n).fold(at_wrap, |sum, i| sum + (x(i) - x(i - period)))
        };
    }

    /// [`value`](Self::value) after each push of `xs` into a fresh
    /// `RollingSum` of `period`, as a pass over the series: `out[i]` is the
    /// sum after push `i`, from the returned first index on (`xs.len()` if
    /// there is none); `out` is at least as long as `xs`.
    #[inline(always)]
    pub(crate) fn series(xs: &[f64], period: usize, out: &mut [f64]) -> usize {
        let n = xs.len();
        let first = (period - 1).min(n);
        if period <= EXACT_SUM_PERIOD {
            ring_sums(xs, period, out);
            return first;
        }
        // The ring wraps after each multiple of `period` pushes, at the
        // first sum of each chunk of `period` sums: re-summed there, moved by
        // the new and the leaving value in between.
        for (wrap, sums) in (first..)
            .step_by(period)
            .zip(out[first..n].chunks_mut(period))
        {
            let mut sum = exact_sum([&xs[wrap + 1 - period..=wrap], &[]]);
            sums[0] = sum;
            for (i, s) in (wrap + 1..).zip(&mut sums[1..]) {
                sum += xs[i] - xs[i - period];
                *s = sum;
            }
        }
        first
    }
}

/// Simple moving average.
#[derive(Clone, Debug)]
pub(crate) struct Sma<T = f64> {
    sum: RollingSum<T>,
    period: f64,
}

impl<T: Lane> Sma<T> {
    pub(crate) fn reset(&mut self) {
        let Sma { sum, period: _ } = self;
        sum.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            sum: RollingSum::new(period),
            period: period as f64,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        self.sum.push(x);
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<T> {
        self.sum.value().map(|s| Sma::mean(s, self.period))
    }

    pub(crate) fn period(&self) -> usize {
        self.sum.window.capacity()
    }

    /// The average of a window of `period` values summing to `sum`.
    #[inline(always)]
    pub(crate) fn mean(sum: T, period: f64) -> T {
        sum / T::splat(period)
    }

    /// Lane `k` into the one-symbol average `into` of the same period.
    pub(crate) fn lane_into(&self, k: usize, into: &mut Sma) {
        self.sum.lane_into(k, &mut into.sum);
    }
}

impl Sma {
    /// See [`RollingSum::extend_fresh`].
    pub(crate) fn extend_fresh(&mut self, n: usize, x: impl Fn(usize) -> f64) {
        self.sum.extend_fresh(n, x);
    }

    /// [`value`](Self::value) after each push of `xs` into a fresh `Sma`
    /// of `period`, as [`RollingSum::series`] gives the sums. The divisions
    /// run over the sums in a loop of their own, which the compiler
    /// vectorizes.
    #[inline(always)]
    pub(crate) fn series(xs: &[f64], period: usize, out: &mut [f64]) -> usize {
        let first = RollingSum::series(xs, period, out);
        let p = period as f64;
        for v in &mut out[first..xs.len()] {
            *v = Sma::mean(*v, p);
        }
        first
    }
}

/// Exponential moving average, `k = 2 / (period + 1)`, seeded as TA-Lib does
/// with the simple average of the first `period` values (first value at index
/// `period - 1`).
///
/// The state is plain numbers (no `Option` stored and reloaded each bar, on
/// the chain of the recursion): what exists follows from `seen`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ema<T = f64> {
    period: usize,
    k: T,
    /// Values taken while seeding; `period` from the seed on.
    seen: usize,
    /// The sum of the values so far while seeding, then the average.
    value: T,
}

impl<T: Lane> Ema<T> {
    pub(crate) fn reset(&mut self) {
        *self = Ema::new(self.period);
    }

    pub(crate) fn new(period: usize) -> Self {
        Self {
            period,
            k: T::splat(2.0 / (period as f64 + 1.0)),
            seen: 0,
            value: T::splat(0.0),
        }
    }

    /// Lane `k` as a one-symbol average.
    pub(crate) fn lane(&self, k: usize) -> Ema {
        Ema {
            period: self.period,
            k: self.k.lane(k),
            seen: self.seen,
            value: self.value.lane(k),
        }
    }

    /// An EMA whose seed is given from outside (see the MACD's fast line).
    pub(crate) fn seed(&mut self, value: T) {
        (self.value, self.seen) = (value, self.period);
    }

    #[inline(always)]
    fn seeded(&self) -> bool {
        self.seen >= self.period
    }

    #[inline(always)]
    pub(crate) fn value(&self) -> Option<T> {
        self.seeded().then_some(self.value)
    }

    /// One step of the recursion on an already seeded average.
    #[inline(always)]
    pub(crate) fn step(&mut self, x: T) -> Option<T> {
        if self.seeded() {
            let v = self.value;
            self.value = (x - v) * self.k + v;
        }
        self.value()
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, x: T) -> Option<T> {
        if self.seeded() {
            return self.step(x);
        }
        self.value = self.value + x;
        self.seen += 1;
        if self.seeded() {
            self.value = self.value / T::splat(self.period as f64);
        }
        self.value()
    }
}

/// Linearly weighted moving average: the latest value weighs `period`, the
/// oldest 1. Computed over the window when read (O(period), small periods).
#[derive(Clone, Debug)]
pub(crate) struct Wma {
    window: Window,
    divisor: f64,
}

impl Wma {
    pub(crate) fn reset(&mut self) {
        let Wma { window, divisor: _ } = self;
        window.reset();
    }

    pub(crate) fn new(period: usize) -> Self {
        let n = period as f64;
        Self {
            window: Window::new(period),
            divisor: n * (n + 1.0) / 2.0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, x: f64) {
        self.window.push(x);
    }

    #[inline]
    pub(crate) fn value(&self) -> Option<f64> {
        if !self.window.is_full() {
            return None;
        }
        Some(Wma::weigh(
            self.window.newest_first(),
            self.window.capacity(),
            self.divisor,
        ))
    }

    pub(crate) fn period(&self) -> usize {
        self.window.capacity()
    }

    /// The average of a full window of `n` values, given newest first.
    #[inline(always)]
    fn weigh(newest_first: impl Iterator<Item = f64>, n: usize, divisor: f64) -> f64 {
        let mut weighted = empty_sum();
        for (lag, v) in newest_first.enumerate() {
            weighted = Wma::term(weighted, n, lag, v);
        }
        weighted / divisor
    }

    /// The weighted sum so far with the value `lag` pushes back added.
    #[inline(always)]
    fn term(weighted: f64, n: usize, lag: usize, v: f64) -> f64 {
        weighted + (n - lag) as f64 * v
    }

    /// [`value`](Self::value) after each push of `xs` into a fresh `Wma`
    /// of `period`, as [`RollingSum::series`] gives the sums. Four bars at a
    /// time, in lockstep (each bar's sum in the same order as
    /// [`weigh`](Self::weigh)'s, the four chains of additions overlapping).
    #[inline(always)]
    pub(crate) fn series(xs: &[f64], period: usize, out: &mut [f64]) -> usize {
        const LANES: usize = 4;
        let divisor = Wma::new(period).divisor;
        let n = xs.len();
        let first = (period - 1).min(n);
        let mut i = first;
        while i + LANES <= n {
            let mut weighted = [empty_sum(); LANES];
            for lag in 0..period {
                let values = &xs[i - lag..i - lag + LANES];
                for (w, &v) in weighted.iter_mut().zip(values) {
                    *w = Wma::term(*w, period, lag, v);
                }
            }
            for (o, w) in out[i..i + LANES].iter_mut().zip(weighted) {
                *o = w / divisor;
            }
            i += LANES;
        }
        for (i, o) in (i..).zip(&mut out[i..n]) {
            let newest_first = xs[i + 1 - period..=i].iter().rev().copied();
            *o = Wma::weigh(newest_first, period, divisor);
        }
        first
    }
}

/// What summing no value gives (`Iterator::sum`'s start): a sum written
/// as a loop starts there, so that it equals the same values summed with
/// `sum()`, down to the sign of a zero.
#[inline(always)]
pub(crate) fn empty_sum() -> f64 {
    std::iter::empty::<f64>().sum()
}

/// Highest and lowest of the last `period` (high, low) pairs, O(1) per push
/// without data-dependent branches (van Herk / Gil-Werman): the pushes are
/// cut into blocks of `period`; a window is the tail of the previous block,
/// whose extremes (`suffix`) are computed once when that block closes, plus
/// the head of the current block, whose running extremes (`prefix`) each
/// push updates. Among equal values the newest wins, as on a monotonic deque
/// (it matters only for 0.0 against -0.0), so the result depends on the
/// window's values only, not on where the blocks fall.
#[derive(Clone, Debug)]
pub(crate) struct RollingRange {
    /// Whether a whole block has been seen.
    warm: bool,
    /// The current block's (high, low) pairs; `filled` of them so far (0 to
    /// period - 1).
    block: Box<[(f64, f64)]>,
    filled: usize,
    /// (highest, lowest) of `block[..filled]`.
    prefix: (f64, f64),
    /// `suffix[i]`: (highest, lowest) of the previous block from `i` on.
    suffix: Box<[(f64, f64)]>,
}

/// `newer` unless `older` is strictly higher; compiles to one `maxsd`.
#[inline(always)]
fn higher(newer: f64, older: f64) -> f64 {
    if older > newer {
        older
    } else {
        newer
    }
}

/// `newer` unless `older` is strictly lower; compiles to one `minsd`.
#[inline(always)]
fn lower(newer: f64, older: f64) -> f64 {
    if older < newer {
        older
    } else {
        newer
    }
}

#[inline(always)]
fn widen(newer: (f64, f64), older: (f64, f64)) -> (f64, f64) {
    (higher(newer.0, older.0), lower(newer.1, older.1))
}

impl RollingRange {
    pub(crate) fn reset(&mut self) {
        let RollingRange {
            warm,
            block: _,
            filled,
            prefix,
            suffix: _,
        } = self;
        (*warm, *filled, *prefix) = (false, 0, (0.0, 0.0));
    }

    pub(crate) fn new(period: usize) -> Self {
        assert!(period > 0, "a range needs a period of at least one");
        Self {
            warm: false,
            block: vec![(0.0, 0.0); period].into_boxed_slice(),
            filled: 0,
            prefix: (0.0, 0.0),
            suffix: vec![(0.0, 0.0); period].into_boxed_slice(),
        }
    }

    /// Adds a (high, low) pair; returns (highest, lowest) once `period`
    /// pairs have been seen.
    #[inline(always)]
    pub(crate) fn push(&mut self, high: f64, low: f64) -> Option<(f64, f64)> {
        let x = (high, low);
        self.prefix = if self.filled == 0 {
            x
        } else {
            widen(x, self.prefix)
        };
        self.block[self.filled] = x;
        self.filled += 1;
        if self.filled == self.block.len() {
            self.close_block();
        }
        self.value()
    }

    #[cold]
    fn close_block(&mut self) {
        let mut best = self.block[self.block.len() - 1];
        for (suffix, &x) in self.suffix.iter_mut().zip(self.block.iter()).rev() {
            best = widen(best, x);
            *suffix = best;
        }
        self.filled = 0;
        self.warm = true;
    }

    /// [`value`](Self::value) after each push of (`highs[i]`, `lows[i]`)
    /// into a fresh `RollingRange` of `period`: `out(i, (highest, lowest))`
    /// from `i = period - 1` on. The same blocks, from the first pair on,
    /// and the same comparisons in the same order as the pushes: a running
    /// prefix in the current block widened by the previous block's suffix
    /// (`suffix` is scratch as long as the series).
    #[inline(always)]
    pub(crate) fn series(
        highs: &[f64],
        lows: &[f64],
        period: usize,
        suffix: &mut [(f64, f64)],
        mut out: impl FnMut(usize, (f64, f64)),
    ) {
        let n = highs.len().min(lows.len());
        let pair = |i: usize| (highs[i], lows[i]);
        // Each whole block's suffixes, as `close_block` computes them.
        let mut start = 0;
        while start + period <= n {
            let mut best = pair(start + period - 1);
            for j in (start..start + period).rev() {
                best = widen(best, pair(j));
                suffix[j] = best;
            }
            start += period;
        }
        // Block by block, so that each block's chain of comparisons starts
        // afresh (and the blocks' chains overlap).
        for start in (0..n).step_by(period) {
            let mut prefix = pair(start);
            for i in start..(start + period).min(n) {
                if i > start {
                    prefix = widen(pair(i), prefix);
                }
                if i + 1 >= period {
                    // After push `i`, `i - start + 1` pairs are in the
                    // current block (none once it closes).
                    let from = i + 1 - period;
                    out(
                        i,
                        if i + 1 == start + period {
                            suffix[from]
                        } else {
                            widen(prefix, suffix[from])
                        },
                    );
                }
            }
        }
    }

    pub(crate) fn period(&self) -> usize {
        self.block.len()
    }

    /// (highest, lowest) once `period` pairs have been seen.
    #[inline(always)]
    pub(crate) fn value(&self) -> Option<(f64, f64)> {
        if !self.warm {
            return None;
        }
        Some(if self.filled == 0 {
            self.suffix[0]
        } else {
            widen(self.prefix, self.suffix[self.filled])
        })
    }
}

/// One side of a [`RollingRange`], for the tests that check it against a
/// naive scan.
#[cfg(test)]
pub(crate) struct RollingExtreme {
    range: RollingRange,
    highest: bool,
}

#[cfg(test)]
impl RollingExtreme {
    pub(crate) fn highest(period: usize) -> Self {
        Self {
            range: RollingRange::new(period),
            highest: true,
        }
    }

    pub(crate) fn lowest(period: usize) -> Self {
        Self {
            range: RollingRange::new(period),
            highest: false,
        }
    }

    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
        let (h, l) = self.range.push(x, x)?;
        Some(if self.highest { h } else { l })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_keeps_the_latest_values() {
        let mut w = Window::new(3);
        assert_eq!(w.push(1.0), None);
        assert_eq!(w.push(2.0), None);
        assert_eq!(w.get(0), Some(2.0));
        assert_eq!(w.get(1), Some(1.0));
        assert_eq!(w.get(2), None);
        assert_eq!(w.push(3.0), None);
        assert_eq!(w.push(4.0), Some(1.0));
        assert_eq!(w.newest_first().collect::<Vec<_>>(), vec![4.0, 3.0, 2.0]);
    }

    #[test]
    fn rolling_extremes_match_a_naive_scan() {
        let xs: Vec<f64> = (0..200)
            .map(|i| ((i * 7919) % 101) as f64 - ((i * 31) % 17) as f64)
            .collect();
        for period in [1, 2, 5, 14, 52] {
            let mut hi = RollingExtreme::highest(period);
            let mut lo = RollingExtreme::lowest(period);
            for (i, &x) in xs.iter().enumerate() {
                let h = hi.push(x);
                let l = lo.push(x);
                if i + 1 < period {
                    assert_eq!((h, l), (None, None));
                    continue;
                }
                let win = &xs[i + 1 - period..=i];
                let max = win.iter().copied().fold(f64::MIN, f64::max);
                let min = win.iter().copied().fold(f64::MAX, f64::min);
                assert_eq!((h, l), (Some(max), Some(min)), "period {period} index {i}");
            }
        }
    }

    /// The pass over a series gives what the pushes give, on sums whose
    /// rounding depends on the order (values across many binades).
    #[test]
    fn series_passes_equal_the_pushes() {
        let xs: Vec<f64> = (0..300)
            .map(|i| ((i * 7919) % 101) as f64 * 10f64.powi((i * 13) % 9 - 4))
            .collect();
        for period in [1, 2, 3, 5, 7, 8, 9, 14, 20, 34, 50] {
            let (mut sum, mut sma, mut wma) =
                (RollingSum::new(period), Sma::new(period), Wma::new(period));
            let mut pushed = Vec::new();
            for &x in &xs {
                sum.push(x);
                sma.push(x);
                wma.push(x);
                pushed.push((sum.value(), sma.value(), wma.value()));
            }
            let mut passed = vec![(None, None, None); xs.len()];
            let mut out = vec![0.0; xs.len()];
            let first = RollingSum::series(&xs, period, &mut out);
            for i in first..xs.len() {
                passed[i].0 = Some(out[i]);
            }
            let first = Sma::series(&xs, period, &mut out);
            for i in first..xs.len() {
                passed[i].1 = Some(out[i]);
            }
            let first = Wma::series(&xs, period, &mut out);
            for i in first..xs.len() {
                passed[i].2 = Some(out[i]);
            }
            let bits = |v: (Option<f64>, Option<f64>, Option<f64>)| {
                (
                    v.0.map(f64::to_bits),
                    v.1.map(f64::to_bits),
                    v.2.map(f64::to_bits),
                )
            };
            for (i, (&a, &b)) in passed.iter().zip(&pushed).enumerate() {
                assert_eq!(bits(a), bits(b), "period {period}, index {i}");
            }
        }
    }

    /// The pass over a series gives what the pushes give, 0.0 against -0.0
    /// included.
    #[test]
    fn range_series_equals_the_pushes() {
        let xs: Vec<f64> = (0..200)
            .map(|i| match i % 7 {
                0 => 0.0,
                3 => -0.0,
                _ => ((i * 7919) % 101) as f64 - 50.0,
            })
            .collect();
        let lows: Vec<f64> = xs.iter().map(|x| x - ((x * 3.0) % 5.0).abs()).collect();
        for period in [1, 2, 5, 14, 26, 52] {
            let mut range = RollingRange::new(period);
            let pushed: Vec<_> = xs
                .iter()
                .zip(&lows)
                .map(|(&h, &l)| range.push(h, l).map(|(h, l)| (h.to_bits(), l.to_bits())))
                .collect();
            let mut passed = vec![None; xs.len()];
            let mut suffix = vec![(0.0, 0.0); xs.len()];
            RollingRange::series(&xs, &lows, period, &mut suffix, |i, (h, l)| {
                passed[i] = Some((h.to_bits(), l.to_bits()))
            });
            assert_eq!(passed, pushed, "period {period}");
        }
    }

    /// A full window's ring is the `Window`'s storage order.
    #[test]
    fn rings_are_the_windows_storage_order() {
        let xs: Vec<f64> = (0..60).map(f64::from).collect();
        for period in [1, 3, 7, 20] {
            let mut window = Window::new(period);
            let mut rings = rings(&xs, period);
            for (i, &x) in xs.iter().enumerate() {
                window.push(x);
                if i + 1 < period {
                    continue;
                }
                let (at, ring) = rings.next().expect("a ring per full window");
                assert_eq!(at, i);
                assert_eq!(ring.concat(), window.values(), "period {period}, index {i}");
            }
            assert!(rings.next().is_none());
        }
    }

    #[test]
    fn wma_weights_the_latest_value_most() {
        let mut w = Wma::new(3);
        w.push(1.0);
        assert_eq!(w.value(), None);
        w.push(2.0);
        assert_eq!(w.value(), None);
        w.push(3.0);
        // (1*1 + 2*2 + 3*3) / 6
        assert_eq!(w.value(), Some(14.0 / 6.0));
    }

    #[test]
    fn ema_is_seeded_with_the_simple_average() {
        let mut e = Ema::new(3);
        assert_eq!(e.push(1.0), None);
        assert_eq!(e.push(2.0), None);
        assert_eq!(e.push(3.0), Some(2.0));
        assert_eq!(e.push(6.0), Some(4.0));
    }
}
