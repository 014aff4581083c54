//! Bounded building blocks shared by the indicators: a fixed window of the
//! latest values, a rolling sum, simple/exponential/weighted averages and
//! rolling extremes on monotonic deques. Each `push` does O(1) work, except the
//! weighted average (O(period)) and the periodic exact re-summation of a
//! rolling sum (O(period) once every `period` pushes).

use std::collections::VecDeque;

/// The latest `capacity` values of a series.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    buf: Box<[f64]>,
    /// Where the next value goes.
    head: usize,
    len: usize,
}

impl Window {
    pub(crate) fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "a window holds at least one value");
        Self {
            buf: vec![0.0; capacity].into_boxed_slice(),
            head: 0,
            len: 0,
        }
    }

    /// Adds `x`; returns the value that fell out when the window was full.
    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
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
    pub(crate) fn values(&self) -> &[f64] {
        &self.buf[..self.len]
    }

    /// The held values from the latest back (lag 0, 1, 2, ...).
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.len).filter_map(move |lag| self.get(lag))
    }
}

/// Sum of the last `period` values. It is updated by adding the new value and
/// subtracting the one that leaves, and re-summed exactly each time the ring
/// wraps, so rounding errors never accumulate over a long run. Short windows
/// (up to [`EXACT_SUM_PERIOD`]) are simply re-summed on every push: equal
/// inputs then give exactly equal sums (a stochastic stuck at 0 or 100 has
/// %K exactly equal to %D, not 1e-13 apart).
#[derive(Clone, Debug)]
pub(crate) struct RollingSum {
    window: Window,
    sum: f64,
}

/// Windows up to this length are summed exactly on every push.
pub(crate) const EXACT_SUM_PERIOD: usize = 8;

impl RollingSum {
    pub(crate) fn new(period: usize) -> Self {
        Self {
            window: Window::new(period),
            sum: 0.0,
        }
    }

    /// Adds `x`; returns the sum once `period` values have been seen.
    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
        match self.window.push(x) {
            Some(old) => self.sum += x - old,
            None => self.sum += x,
        }
        if self.window.wrapped() || self.window.capacity() <= EXACT_SUM_PERIOD {
            self.sum = self.window.values().iter().sum();
        }
        self.window.is_full().then_some(self.sum)
    }
}

/// Simple moving average.
#[derive(Clone, Debug)]
pub(crate) struct Sma {
    sum: RollingSum,
    period: f64,
}

impl Sma {
    pub(crate) fn new(period: usize) -> Self {
        Self {
            sum: RollingSum::new(period),
            period: period as f64,
        }
    }

    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
        self.sum.push(x).map(|s| s / self.period)
    }
}

/// Exponential moving average, `k = 2 / (period + 1)`, seeded as TA-Lib does
/// with the simple average of the first `period` values (first value at index
/// `period - 1`).
#[derive(Clone, Debug)]
pub(crate) struct Ema {
    period: usize,
    k: f64,
    seen: usize,
    seed_sum: f64,
    value: Option<f64>,
}

impl Ema {
    pub(crate) fn new(period: usize) -> Self {
        Self {
            period,
            k: 2.0 / (period as f64 + 1.0),
            seen: 0,
            seed_sum: 0.0,
            value: None,
        }
    }

    /// An EMA whose seed is given from outside (see the MACD's fast line).
    pub(crate) fn seed(&mut self, value: f64) {
        self.value = Some(value);
    }

    pub(crate) fn value(&self) -> Option<f64> {
        self.value
    }

    /// One step of the recursion on an already seeded average.
    pub(crate) fn step(&mut self, x: f64) -> Option<f64> {
        if let Some(v) = self.value {
            self.value = Some((x - v) * self.k + v);
        }
        self.value
    }

    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
        if self.value.is_some() {
            return self.step(x);
        }
        self.seed_sum += x;
        self.seen += 1;
        if self.seen == self.period {
            self.value = Some(self.seed_sum / self.period as f64);
        }
        self.value
    }
}

/// Linearly weighted moving average: the latest value weighs `period`, the
/// oldest 1. Computed over the window on each push (O(period), small periods).
#[derive(Clone, Debug)]
pub(crate) struct Wma {
    window: Window,
    divisor: f64,
}

impl Wma {
    pub(crate) fn new(period: usize) -> Self {
        let n = period as f64;
        Self {
            window: Window::new(period),
            divisor: n * (n + 1.0) / 2.0,
        }
    }

    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
        self.window.push(x);
        if !self.window.is_full() {
            return None;
        }
        let n = self.window.capacity();
        let weighted: f64 = self
            .window
            .newest_first()
            .enumerate()
            .map(|(lag, v)| (n - lag) as f64 * v)
            .sum();
        Some(weighted / self.divisor)
    }
}

/// Highest (or lowest) of the last `period` values on a monotonic deque:
/// amortized O(1) per push.
#[derive(Clone, Debug)]
pub(crate) struct RollingExtreme {
    period: u64,
    highest: bool,
    t: u64,
    deque: VecDeque<(u64, f64)>,
}

impl RollingExtreme {
    pub(crate) fn highest(period: usize) -> Self {
        Self::new(period, true)
    }

    pub(crate) fn lowest(period: usize) -> Self {
        Self::new(period, false)
    }

    fn new(period: usize, highest: bool) -> Self {
        assert!(period > 0, "an extreme needs a period of at least one");
        Self {
            period: period as u64,
            highest,
            t: 0,
            deque: VecDeque::with_capacity(period + 1),
        }
    }

    /// Adds `x`; returns the extreme once `period` values have been seen.
    pub(crate) fn push(&mut self, x: f64) -> Option<f64> {
        while let Some(&(_, back)) = self.deque.back() {
            let dominated = if self.highest { back <= x } else { back >= x };
            if !dominated {
                break;
            }
            self.deque.pop_back();
        }
        self.deque.push_back((self.t, x));
        while let Some(&(i, _)) = self.deque.front() {
            if i + self.period > self.t {
                break;
            }
            self.deque.pop_front();
        }
        self.t += 1;
        if self.t < self.period {
            return None;
        }
        self.deque.front().map(|&(_, v)| v)
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

    #[test]
    fn wma_weights_the_latest_value_most() {
        let mut w = Wma::new(3);
        assert_eq!(w.push(1.0), None);
        assert_eq!(w.push(2.0), None);
        // (1*1 + 2*2 + 3*3) / 6
        assert_eq!(w.push(3.0), Some(14.0 / 6.0));
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
