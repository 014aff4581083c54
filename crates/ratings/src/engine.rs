//! [`RatingEngine`]: one symbol's indicator state, moved one closed candle at
//! a time.

use crate::candle::{Candle, CandleError};
use crate::every_bar::{Out, Series};
use crate::indicators::{
    williams_r, williams_r_in, Ao, Cci, Channel, Dmi, Hma, Ichimoku, Macd, Momentum, Rsi, Stoch,
    StochRsi, Uo, Vwma,
};
use crate::lane::{pair, Lane, Pair};
use crate::rating::{
    Group, Indicator, IndicatorReading, Indicators, Rating, RatingReport, Recommendation, COUNT,
};
use crate::votes;
use crate::window::{Ema, RollingRange, Sma};

pub(crate) const MA_PERIODS: [usize; 6] = [10, 20, 30, 50, 100, 200];
const VWMA: usize = 20;
const HMA: usize = 9;
/// Conversion, base, span B, displacement.
const ICHIMOKU: (usize, usize, usize, usize) = (9, 26, 52, 26);
pub(crate) const RSI: usize = 14;
/// Channel, %K smoothing, %D smoothing.
const STOCH: (usize, usize, usize) = (14, 3, 3);
const STOCH_SMOOTHING: (usize, usize) = (STOCH.1, STOCH.2);
const CCI: usize = 20;
pub(crate) const DMI: usize = 14;
const AO: (usize, usize) = (5, 34);
const MOMENTUM: usize = 10;
pub(crate) const MACD: (usize, usize, usize) = (12, 26, 9);
/// Stochastic length, %K smoothing, %D smoothing (on RSI 14).
const STOCH_RSI: (usize, usize, usize) = (14, 3, 3);
pub(crate) const BULL_BEAR_EMA: usize = 13;
const UO: (usize, usize, usize) = (7, 14, 28);
const SMA_KEYS: [Indicator; 6] = [
    Indicator::Sma10,
    Indicator::Sma20,
    Indicator::Sma30,
    Indicator::Sma50,
    Indicator::Sma100,
    Indicator::Sma200,
];
pub(crate) const EMA_KEYS: [Indicator; 6] = [
    Indicator::Ema10,
    Indicator::Ema20,
    Indicator::Ema30,
    Indicator::Ema50,
    Indicator::Ema100,
    Indicator::Ema200,
];

/// The first candle (0-based) of a series of `n` that each windowed
/// indicator of a fresh engine has to take for its values on the last three
/// bars (all that the final votes read) to come out exactly as if it had
/// taken every candle. An indicator's `memory` is how many trailing candles
/// those values depend on; `align` is the period of what else they depend
/// on: a short rolling sum adds its window in ring order and a long one is
/// re-summed whenever its ring wraps, so a late start must put the ring
/// where the full run has it. Extremes and lagged reads depend on the
/// window's values only. The recursive indicators (the EMAs, MACD, RSI,
/// directional movement) have unbounded memory and take every candle.
#[derive(Clone, Copy, Debug, Default)]
struct Starts {
    /// Whether the engine took no candle before (its windows are empty).
    fresh: bool,
    sma: [usize; 6],
    vwma: usize,
    hma: usize,
    ichimoku: usize,
    /// The 14-bar channel with the Stochastic (and Williams %R) on it.
    stoch: usize,
    cci: usize,
    ao: usize,
    momentum: usize,
    stoch_rsi: usize,
    uo: usize,
}

impl Starts {
    /// Every indicator takes every candle.
    const EVERY: Starts = Starts {
        fresh: false,
        sma: [0; 6],
        vwma: 0,
        hma: 0,
        ichimoku: 0,
        stoch: 0,
        cci: 0,
        ao: 0,
        momentum: 0,
        stoch_rsi: 0,
        uo: 0,
    };

    fn for_fresh(n: usize) -> Starts {
        // A long rolling sum of p read on three consecutive bars depends on
        // the p candles up to its last re-summing (a wrap of its ring) at or
        // before the first read, and on those after. Started on a multiple
        // of p, its ring wraps where the full run's does; the latest such
        // start that still sees that wrap is the latest one at least p + 2
        // candles before the end.
        let sum_memory = |p: usize| p + 2;
        Starts {
            fresh: true,
            sma: MA_PERIODS.map(|p| tail_start(n, sum_memory(p), p, 0)),
            // Both windows re-summed in ring order on each read.
            vwma: tail_start(n, VWMA + 2, VWMA, 0),
            // WMA(.., 3) of WMA(close, 9): 9 + 2 closes a value, read on 3 bars.
            hma: tail_start(n, HMA + 2 + 2, 1, 0),
            // The cloud read 26 bars back is the 52-bar span there.
            ichimoku: tail_start(n, ICHIMOKU.3 + ICHIMOKU.2 + 2, 1, 0),
            // %D reads 3 %K, each 3 raw values, each a 14-bar channel; both
            // smoothings are short sums in ring order.
            stoch: tail_start(n, STOCH.0 + STOCH.1 + STOCH.2, lcm(STOCH.1, STOCH.2), 0),
            cci: tail_start(n, CCI + 2, CCI, 0),
            ao: tail_start(n, sum_memory(AO.1), lcm(AO.0, AO.1), 0),
            momentum: tail_start(n, MOMENTUM + 1 + 2, 1, 0),
            // As the Stochastic, on RSI values, which exist from candle 14
            // on: the smoothing rings line up counted from there.
            stoch_rsi: tail_start(
                n,
                STOCH_RSI.0 + STOCH_RSI.1 + STOCH_RSI.2,
                lcm(STOCH_RSI.1, STOCH_RSI.2),
                RSI,
            ),
            // Sums of 7 (ring order), 14 and 28 (re-summed on wraps) of
            // values that start one candle after the first close.
            uo: tail_start(n, sum_memory(UO.2) + 1, lcm(lcm(UO.0, UO.1), UO.2), 0),
        }
    }
}

/// The latest start `s <= n - memory` with `s >= offset` and
/// `s - offset` a multiple of `align`; 0 if there is none.
fn tail_start(n: usize, memory: usize, align: usize, offset: usize) -> usize {
    match n.checked_sub(memory + offset) {
        Some(room) => offset + room / align * align,
        None => 0,
    }
}

fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// The lines a bar's votes read besides the reported values: the Ichimoku
/// conversion line and the cloud under the bar, and the Bull and Bear Power.
/// They follow the [`Indicator`]s in a bar's (and an
/// [`EveryBar`](crate::EveryBar)'s) lines.
pub(crate) const CONVERSION: usize = COUNT;
pub(crate) const LEAD1_LAGGED: usize = COUNT + 1;
pub(crate) const LEAD2_LAGGED: usize = COUNT + 2;
pub(crate) const BULL_POWER: usize = COUNT + 3;
pub(crate) const BEAR_POWER: usize = COUNT + 4;
/// Reported values and the extra lines.
pub(crate) const LINES: usize = COUNT + 5;

/// What one bar left behind: every reported value plus the extra lines the
/// vote rules read.
#[derive(Clone, Copy, Debug)]
struct Bar {
    lines: [Option<f64>; LINES],
    close: f64,
}

impl Bar {
    const EMPTY: Bar = Bar {
        lines: [None; LINES],
        close: f64::NAN,
    };

    fn get(&self, indicator: Indicator) -> Option<f64> {
        self.lines[indicator as usize]
    }
}

/// The lines the vote rules read on one bar: its own, the bar before's and,
/// for the Awesome Oscillator, two bars back's. The incremental engine keeps
/// the last bars ([`Recent`]); an every-bar batch reads columns.
pub(crate) trait Lines {
    fn close(&self) -> f64;
    /// `line` on the bar, `lag` bars back (0: this bar; at most 2).
    fn get(&self, line: usize, lag: usize) -> Option<f64>;
}

/// The engine's latest bar, the one before it and the AO before that.
struct Recent<'a> {
    bar: &'a Bar,
    prev: &'a Bar,
    ao_two_back: Option<f64>,
}

impl Lines for Recent<'_> {
    #[inline(always)]
    fn close(&self) -> f64 {
        self.bar.close
    }

    #[inline(always)]
    fn get(&self, line: usize, lag: usize) -> Option<f64> {
        match lag {
            0 => self.bar.lines[line],
            1 => self.prev.lines[line],
            _ => {
                debug_assert_eq!(
                    line,
                    Indicator::Ao as usize,
                    "only the AO is read two bars back"
                );
                self.ao_two_back
            }
        }
    }
}

/// Incremental technical-rating state for one symbol and interval.
///
/// Feed it each closed candle, oldest first, with [`update`](Self::update);
/// each call costs a bounded amount of work and never revisits history. The
/// engine holds about 13 KB (3 KB inline, the rest in its windows) and can be cloned.
#[derive(Clone, Debug)]
pub struct RatingEngine {
    last_time: Option<i64>,
    candles: u64,
    sma: [Sma; 6],
    ema: [Ema; 6],
    vwma: Vwma,
    hma: Hma,
    ichimoku: Ichimoku,
    rsi: Rsi,
    channel: Channel,
    stoch: Stoch,
    cci: Cci,
    dmi: Dmi,
    ao: Ao,
    momentum: Momentum,
    macd: Macd,
    stoch_rsi: StochRsi,
    ema13: Ema,
    uo: Uo,
    /// The latest bar.
    bar: Bar,
    /// The Awesome Oscillator one bar before `bar`.
    prev_ao: Option<f64>,
    /// The votes of the latest bar (`None`: not voting).
    votes: [Option<i8>; COUNT],
    rating: Rating,
}

impl Default for RatingEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl RatingEngine {
    /// An engine that has seen no candle yet.
    pub fn new() -> Self {
        Self {
            last_time: None,
            candles: 0,
            sma: MA_PERIODS.map(Sma::new),
            ema: MA_PERIODS.map(Ema::new),
            vwma: Vwma::new(VWMA),
            hma: Hma::new(HMA),
            ichimoku: Ichimoku::new(ICHIMOKU.0, ICHIMOKU.1, ICHIMOKU.2, ICHIMOKU.3),
            rsi: Rsi::new(RSI),
            channel: Channel::new(STOCH.0),
            stoch: Stoch::new(STOCH.1, STOCH.2),
            cci: Cci::new(CCI),
            dmi: Dmi::new(DMI),
            ao: Ao::new(AO.0, AO.1),
            momentum: Momentum::new(MOMENTUM),
            macd: Macd::new(MACD.0, MACD.1, MACD.2),
            stoch_rsi: StochRsi::new(STOCH_RSI.0, STOCH_RSI.1, STOCH_RSI.2),
            ema13: Ema::new(BULL_BEAR_EMA),
            uo: Uo::new(UO.0, UO.1, UO.2),
            bar: Bar::EMPTY,
            prev_ao: None,
            votes: [None; COUNT],
            rating: Rating::NEUTRAL,
        }
    }

    /// Moves the state by one closed candle and returns the new rating.
    ///
    /// A candle that [`try_update`](Self::try_update) would refuse (not a
    /// valid candle, or not later than the previous one, e.g. a replayed
    /// candle) leaves the state untouched and the current rating is returned.
    pub fn update(&mut self, candle: &Candle) -> Rating {
        self.try_update(candle).unwrap_or(self.rating)
    }

    /// Like [`update`](Self::update), but says why a candle is refused.
    pub fn try_update(&mut self, candle: &Candle) -> Result<Rating, CandleError> {
        candle.validate()?;
        if let Some(previous) = self.last_time {
            if candle.time <= previous {
                return Err(CandleError::NotAfterPrevious {
                    time: candle.time,
                    previous,
                });
            }
        }
        self.last_time = Some(candle.time);
        self.candles += 1;

        self.step(candle, 0, &Starts::EVERY);
        let bar = self.read_bar(candle);
        self.votes = votes_of(&self.recent(&bar));
        self.prev_ao = self.bar.get(Indicator::Ao);
        self.bar = bar;
        self.rating = aggregate(&self.votes);
        Ok(self.rating)
    }

    /// Feeds `candles` (oldest first) and returns the rating after the last
    /// one: the same rating, report and state for what follows as
    /// [`try_update`](Self::try_update) on each candle in turn, bit for bit,
    /// for less work. The values are read and voted on only on the last
    /// three bars (the final votes read no others), and a fresh engine feeds
    /// each windowed indicator only the trailing candles those values depend
    /// on (the recursive ones, such as the EMAs, RSI and ADX, take them all).
    /// This is how a cold start rates a whole history.
    ///
    /// Every candle is checked first; if one is refused, the engine is left
    /// unchanged (no candle is taken) and the error names it.
    pub fn try_extend(&mut self, candles: &[Candle]) -> Result<Rating, ReportError> {
        check_candles(candles, self.last_time)?;
        let starts = if self.candles == 0 {
            Starts::for_fresh(candles.len())
        } else {
            Starts::EVERY
        };
        let (silent, read) = split_read(candles);
        self.step_silent(silent, &starts, Taken::NONE);
        self.take_read(candles, read);
        Ok(self.rating)
    }

    /// [`try_extend`](Self::try_extend) of two fresh engines at once, with
    /// the same results: the recursions bound by their divisions, the
    /// directional movement and the RSI, run for both in one pass of paired
    /// operations (see [`crate::lane`]) over their common silent candles
    /// (the RSI up to where either's Stochastic RSI starts reading it).
    /// Either engine not fresh, or a refused candle in either series: each
    /// is extended alone.
    fn try_extend_fresh_pair(
        [a, b]: [&mut RatingEngine; 2],
        [ca, cb]: [&[Candle]; 2],
    ) -> [Result<Rating, ReportError>; 2] {
        let fresh = a.candles == 0 && b.candles == 0;
        if !fresh || check_candles(ca, None).is_err() || check_candles(cb, None).is_err() {
            return [a.try_extend(ca), b.try_extend(cb)];
        }
        let (starts_a, starts_b) = (Starts::for_fresh(ca.len()), Starts::for_fresh(cb.len()));
        let ((silent_a, read_a), (silent_b, read_b)) = (split_read(ca), split_read(cb));
        let common = silent_a.len().min(silent_b.len());
        let taken = Taken {
            dmi: common,
            rsi: common.min(starts_a.stoch_rsi).min(starts_b.stoch_rsi),
        };
        let mut dmi = Dmi::<Pair>::new(DMI);
        let mut rsi = Rsi::<Pair>::new(RSI);
        for (i, (x, y)) in silent_a[..common]
            .iter()
            .zip(&silent_b[..common])
            .enumerate()
        {
            let close = pair(x.close, y.close);
            dmi.push(pair(x.high, y.high), pair(x.low, y.low), close);
            if i < taken.rsi {
                rsi.push(close);
            }
        }
        [a.dmi, b.dmi] = dmi.lanes();
        [a.rsi, b.rsi] = rsi.lanes();
        for (engine, candles, silent, read, starts) in [
            (&mut *a, ca, silent_a, read_a, starts_a),
            (&mut *b, cb, silent_b, read_b, starts_b),
        ] {
            engine.step_silent(silent, &starts, taken);
            engine.take_read(candles, read);
        }
        [Ok(a.rating), Ok(b.rating)]
    }

    /// The read candles of a checked extension (see [`split_read`]), as
    /// [`try_update`](Self::try_update) takes them, but only the last one's
    /// votes are counted: the others would be overwritten unread.
    fn take_read(&mut self, candles: &[Candle], read: &[Candle]) {
        for (k, candle) in read.iter().enumerate() {
            self.step(candle, 0, &Starts::EVERY);
            let bar = self.read_bar(candle);
            if k + 1 == read.len() {
                self.votes = votes_of(&self.recent(&bar));
                self.rating = aggregate(&self.votes);
            }
            self.prev_ao = self.bar.get(Indicator::Ao);
            self.bar = bar;
        }
        self.candles += candles.len() as u64;
        self.last_time = candles.last().map(|c| c.time).or(self.last_time);
    }

    /// The rating after the latest candle.
    pub fn rating(&self) -> Rating {
        self.rating
    }

    /// The rating after the latest candle with every indicator's value and vote.
    pub fn report(&self) -> RatingReport {
        let mut readings = [IndicatorReading::default(); COUNT];
        for (i, reading) in readings.iter_mut().enumerate() {
            *reading = IndicatorReading {
                value: self.bar.lines[i],
                vote: self.votes[i].unwrap_or(0),
            };
        }
        RatingReport {
            total: self.rating.total,
            ma: self.rating.ma,
            osc: self.rating.osc,
            recommendation: self.rating.recommendation,
            indicators: Indicators(readings),
        }
    }

    /// Back to the state of [`new`](Self::new), keeping the windows'
    /// buffers (a batch reuses one engine for many series).
    pub(crate) fn reset(&mut self) {
        let RatingEngine {
            last_time,
            candles,
            sma,
            ema,
            vwma,
            hma,
            ichimoku,
            rsi,
            channel,
            stoch,
            cci,
            dmi,
            ao,
            momentum,
            macd,
            stoch_rsi,
            ema13,
            uo,
            bar,
            prev_ao,
            votes,
            rating,
        } = self;
        (*last_time, *candles) = (None, 0);
        sma.iter_mut().for_each(Sma::reset);
        ema.iter_mut().for_each(Ema::reset);
        vwma.reset();
        hma.reset();
        ichimoku.reset();
        rsi.reset();
        channel.reset();
        stoch.reset();
        cci.reset();
        dmi.reset();
        ao.reset();
        momentum.reset();
        macd.reset();
        stoch_rsi.reset();
        ema13.reset();
        uo.reset();
        (*bar, *prev_ao, *votes, *rating) = (Bar::EMPTY, None, [None; COUNT], Rating::NEUTRAL);
    }

    /// How many candles the engine has taken.
    pub fn candle_count(&self) -> u64 {
        self.candles
    }

    /// Moves the indicators by candle `i` of a series without reading any
    /// value; an indicator whose start (see [`Starts`]) is after `i` skips it.
    /// The indicators fall in independent parts, which a cold start runs
    /// apart ([`step_silent`](Self::step_silent)).
    #[inline(always)]
    fn step(&mut self, c: &Candle, i: usize, from: &Starts) {
        step_directional(&mut self.dmi, c);
        step_exponential(&mut self.ema, &mut self.ema13, &mut self.macd, c.close);
        step_rsi(&mut self.rsi, &mut self.stoch_rsi, c, i, from);
        self.step_windows(c, i, from);
    }

    /// The windowed indicators' part of [`step`](Self::step).
    #[inline(always)]
    fn step_windows(&mut self, c: &Candle, i: usize, from: &Starts) {
        self.step_sma(c, i, from);
        self.step_windows_but_sma(c, i, from);
    }

    /// The simple averages' part of [`step_windows`](Self::step_windows).
    #[inline(always)]
    fn step_sma(&mut self, c: &Candle, i: usize, from: &Starts) {
        for (sma, &start) in self.sma.iter_mut().zip(&from.sma) {
            if i >= start {
                sma.push(c.close);
            }
        }
    }

    /// [`step_windows`](Self::step_windows) but for the simple averages.
    #[inline(always)]
    fn step_windows_but_sma(&mut self, c: &Candle, i: usize, from: &Starts) {
        if i >= from.vwma {
            self.vwma.push(c.close, c.volume);
        }
        if i >= from.hma {
            self.hma.push(c.close);
        }
        if i >= from.ichimoku {
            self.ichimoku.push(c.high, c.low);
        }
        if i >= from.stoch {
            let channel = self.channel.push(c.high, c.low);
            self.stoch.push(c.close, channel);
        }
        if i >= from.cci {
            self.cci.push(c.high, c.low, c.close);
        }
        if i >= from.ao {
            self.ao.push(c.high, c.low);
        }
        if i >= from.momentum {
            self.momentum.push(c.close);
        }
        if i >= from.uo {
            self.uo.push(c.high, c.low, c.close);
        }
    }

    /// [`step`](Self::step) over the silent candles of a cold start, but
    /// for the first candles of the directional movement and the RSI that
    /// `taken` says were taken already (see
    /// [`try_extend_fresh_pair`](Self::try_extend_fresh_pair)). The
    /// indicators fall in independent parts, and each part runs over the
    /// candles in a loop of its own, so only the order of the candles within
    /// each counts, and it is unchanged:
    /// - the directional movement, a chain of dependent divisions, on a
    ///   local copy of its state (plain numbers, kept in registers);
    /// - the exponential averages and the MACD, whose ten short chains
    ///   overlap, also on local copies;
    /// - a fresh engine's simple averages, at once
    ///   ([`RollingSum::extend_fresh`](crate::window::RollingSum::extend_fresh));
    /// - the rest (the RSI and the other windows), candle by candle.
    fn step_silent(&mut self, silent: &[Candle], from: &Starts, taken: Taken) {
        let mut dmi = self.dmi.clone();
        for c in &silent[taken.dmi..] {
            step_directional(&mut dmi, c);
        }
        self.dmi = dmi;
        let (mut ema, mut ema13) = (self.ema, self.ema13);
        for c in silent {
            step_exponential(&mut ema, &mut ema13, &mut self.macd, c.close);
        }
        (self.ema, self.ema13) = (ema, ema13);
        if from.fresh {
            for (sma, &start) in self.sma.iter_mut().zip(&from.sma) {
                let tail = &silent[start.min(silent.len())..];
                sma.extend_fresh(tail.len(), |k| tail[k].close);
            }
        }
        for (i, c) in silent.iter().enumerate() {
            if i >= taken.rsi {
                step_rsi(&mut self.rsi, &mut self.stoch_rsi, c, i, from);
            }
            if !from.fresh {
                self.step_sma(c, i, from);
            }
            self.step_windows_but_sma(c, i, from);
        }
    }

    /// `bar` (not yet taken) with the engine's latest bar and the AO before it.
    fn recent<'a>(&'a self, bar: &'a Bar) -> Recent<'a> {
        Recent {
            bar,
            prev: &self.bar,
            ao_two_back: self.prev_ao,
        }
    }

    /// Every value on the bar of `c`, the latest candle [`step`](Self::step) took.
    fn read_bar(&self, c: &Candle) -> Bar {
        let mut bar = Bar::EMPTY;
        bar.close = c.close;
        self.read_lines(c, |line, value| bar.lines[line] = value);
        bar
    }

    /// Hands every line of the bar of `c` (see [`LINES`]) to `put`.
    #[inline(always)]
    pub(crate) fn read_lines(&self, c: &Candle, mut put: impl FnMut(usize, Option<f64>)) {
        let mut set = |indicator: Indicator, value| put(indicator as usize, value);
        for ((sma, ema), (sma_key, ema_key)) in self
            .sma
            .iter()
            .zip(&self.ema)
            .zip(SMA_KEYS.into_iter().zip(EMA_KEYS))
        {
            set(sma_key, sma.value());
            set(ema_key, ema.value());
        }
        set(Indicator::Vwma20, self.vwma.value());
        set(Indicator::Hma9, self.hma.value());
        let ichimoku = self.ichimoku.value();
        set(Indicator::IchimokuBase, ichimoku.base);

        set(Indicator::Rsi14, self.rsi.value());
        let stoch = self.stoch.value();
        set(Indicator::StochK, stoch.map(|s| s.0));
        set(Indicator::StochD, stoch.map(|s| s.1));
        set(Indicator::Wr14, williams_r(c.close, self.channel.value()));
        set(Indicator::Cci20, self.cci.value());
        let dmi = self.dmi.value();
        set(Indicator::Adx14, dmi.adx);
        set(Indicator::PlusDi, dmi.plus_di);
        set(Indicator::MinusDi, dmi.minus_di);
        set(Indicator::Ao, self.ao.value());
        set(Indicator::Mom10, self.momentum.value());
        let macd = self.macd.value();
        set(Indicator::Macd, macd.map(|m| m.0));
        set(Indicator::MacdSignal, macd.map(|m| m.1));
        let (k, d) = self.stoch_rsi.value();
        set(Indicator::StochRsiK, k);
        set(Indicator::StochRsiD, d);
        let powers = self.ema13.value().map(|e| powers(c, e));
        set(Indicator::Bbp, powers.map(|p| p.2));
        set(Indicator::Uo, self.uo.value());
        put(CONVERSION, ichimoku.conversion);
        put(LEAD1_LAGGED, ichimoku.lead1_lagged);
        put(LEAD2_LAGGED, ichimoku.lead2_lagged);
        put(BULL_POWER, powers.map(|p| p.0));
        put(BEAR_POWER, powers.map(|p| p.1));
    }

    /// Every line of every bar of `candles` (checked, fed to a fresh engine,
    /// and in `x`) into `out` but for the recursions' (see
    /// [`Recursions::every_bar`](crate::recursions::Recursions::every_bar),
    /// which runs first): what [`read_lines`](Self::read_lines) gives after
    /// each candle. Each indicator runs over the whole series in a pass of
    /// its own, so that its values are written column by column and its
    /// chains of dependent operations overlap across bars; the windowed ones
    /// that are read on every bar go through their `series` forms, which
    /// apply the same formulas to the same windows in the same order.
    /// Inlined into each compiled copy of `EveryBar::fill` (`kernel.rs`).
    #[inline(always)]
    pub(crate) fn lines_every_bar(
        &mut self,
        candles: &[Candle],
        x: &mut Series,
        out: &mut Out<'_>,
    ) {
        use Indicator as I;
        let n = candles.len();
        let [a, b, c, ..] = &mut x.scratch.columns;

        // The powers, on the EMA 13 the recursions left in the Bull Power's
        // column.
        let ema13_from = out.first[BULL_POWER];
        let [bull, bear, bbp] = out.columns([BULL_POWER, BEAR_POWER, I::Bbp as usize]);
        for i in ema13_from..n {
            (bull[i], bear[i], bbp[i]) = powers(&candles[i], bull[i]);
        }
        for line in [BEAR_POWER, I::Bbp as usize] {
            out.mark(line, ema13_from);
        }
        // The RSI has a value on every bar from its first on.
        let rsi_from = out.first[I::Rsi14 as usize];
        let [rsi, k, d] = out.columns([
            I::Rsi14 as usize,
            I::StochRsiK as usize,
            I::StochRsiD as usize,
        ]);
        let suffix = &mut x.scratch.suffix;
        let (k_from, d_from) = self.stoch_rsi.series(rsi, rsi_from, suffix, a, k, d);
        out.mark(I::StochRsiK as usize, k_from);
        out.mark(I::StochRsiD as usize, d_from);

        // The windows.
        for (&period, key) in MA_PERIODS.iter().zip(SMA_KEYS) {
            let from = Sma::series(&x.close, period, out.column(key as usize));
            out.mark(key as usize, from);
        }
        Vwma::series(&x.close, &x.volume, VWMA, [a, b, c], |i, v| {
            out.put(I::Vwma20 as usize, i, v)
        });
        let from = Hma::series(&x.close, HMA, a, out.column(I::Hma9 as usize));
        out.mark(I::Hma9 as usize, from);
        let lines = [
            CONVERSION,
            I::IchimokuBase as usize,
            LEAD1_LAGGED,
            LEAD2_LAGGED,
        ];
        let firsts = self
            .ichimoku
            .series(&x.high, &x.low, suffix, out.columns(lines));
        for (line, first) in lines.into_iter().zip(firsts) {
            out.mark(line, first);
        }
        // The Stochastic's raw values and Williams %R on the 14-bar channel.
        let wr = out.column(I::Wr14 as usize);
        let closes = &x.close;
        let period = self.channel.period();
        RollingRange::series(&x.high, &x.low, period, suffix, |i, channel| {
            a[i] = Stoch::raw(closes[i], channel);
            wr[i] = williams_r_in(closes[i], channel);
        });
        let raw_from = (period - 1).min(n);
        out.mark(I::Wr14 as usize, raw_from);
        let [k, d] = out.columns([I::StochK as usize, I::StochD as usize]);
        let from = Stoch::series(&a[..n], raw_from, STOCH_SMOOTHING, b, k, d);
        out.mark(I::StochK as usize, from);
        out.mark(I::StochD as usize, from);
        for (tp, c) in a.iter_mut().zip(candles) {
            *tp = Cci::typical(c.high, c.low, c.close);
        }
        let from = Cci::series(&a[..n], CCI, out.column(I::Cci20 as usize));
        out.mark(I::Cci20 as usize, from);
        for (mid, c) in a.iter_mut().zip(candles) {
            *mid = Ao::mid(c.high, c.low);
        }
        let from = Ao::series(&a[..n], AO, b, out.column(I::Ao as usize));
        out.mark(I::Ao as usize, from);
        for (i, c) in candles.iter().enumerate() {
            self.momentum.push(c.close);
            out.put(I::Mom10 as usize, i, self.momentum.value());
        }
        let from = self.uo.series(
            (&x.high, &x.low, &x.close),
            &mut x.scratch,
            out.column(I::Uo as usize),
        );
        out.mark(I::Uo as usize, from);
    }
}

/// The Bull Power, Bear Power and their sum (the BBP value) on the bar of
/// `c`, with `ema13` the EMA 13 there.
#[inline(always)]
fn powers(c: &Candle, ema13: f64) -> (f64, f64, f64) {
    let (bull, bear) = (c.high - ema13, c.low - ema13);
    (bull, bear, bull + bear)
}

/// Checks every candle as [`RatingEngine::try_update`] would after a
/// candle at `previous`; the first refusal names its candle.
pub(crate) fn check_candles(candles: &[Candle], previous: Option<i64>) -> Result<(), ReportError> {
    let mut previous = previous;
    for (index, candle) in candles.iter().enumerate() {
        let in_order = match previous {
            Some(previous) if candle.time <= previous => Err(CandleError::NotAfterPrevious {
                time: candle.time,
                previous,
            }),
            _ => Ok(()),
        };
        candle
            .validate()
            .and(in_order)
            .map_err(|source| ReportError::BadCandle { index, source })?;
        previous = Some(candle.time);
    }
    Ok(())
}

/// How many of a cold start's silent candles the paired recursions took
/// already (see [`RatingEngine::try_extend_fresh_pair`]).
#[derive(Clone, Copy, Debug)]
struct Taken {
    dmi: usize,
    rsi: usize,
}

impl Taken {
    const NONE: Taken = Taken { dmi: 0, rsi: 0 };
}

/// A checked extension's candles as (silent, read): the votes of the last
/// bar read the values of the two bars before it, so values are read on the
/// last three candles only.
fn split_read(candles: &[Candle]) -> (&[Candle], &[Candle]) {
    candles.split_at(candles.len().saturating_sub(3))
}

/// The directional movement's part of [`RatingEngine::step`].
#[inline(always)]
fn step_directional(dmi: &mut Dmi, c: &Candle) {
    dmi.push(c.high, c.low, c.close);
}

/// The exponential averages' part of [`RatingEngine::step`], on one
/// symbol's close or several side by side.
#[inline(always)]
pub(crate) fn step_exponential<T: Lane>(
    ema: &mut [Ema<T>; 6],
    ema13: &mut Ema<T>,
    macd: &mut Macd<T>,
    close: T,
) {
    for ema in ema {
        ema.push(close);
    }
    ema13.push(close);
    macd.push(close);
}

/// The RSI's part of [`RatingEngine::step`], with the Stochastic RSI on it.
#[inline(always)]
fn step_rsi(rsi: &mut Rsi, stoch_rsi: &mut StochRsi, c: &Candle, i: usize, from: &Starts) {
    rsi.push(c.close);
    if i >= from.stoch_rsi {
        stoch_rsi.push(rsi.value());
    }
}

/// Every indicator's vote on a bar, given its lines (see [`Lines`]).
#[inline(always)]
pub(crate) fn votes_of(lines: &impl Lines) -> [Option<i8>; COUNT] {
    let mut votes = [None; COUNT];
    for indicator in Indicator::ALL {
        votes[indicator as usize] = vote_of(indicator, lines);
    }
    votes
}

/// `indicator`'s vote on a bar, given its lines (see [`Lines`]); `None`
/// until every input its rule reads exists, and always for a companion line.
#[inline(always)]
pub(crate) fn vote_of(indicator: Indicator, lines: &impl Lines) -> Option<i8> {
    use Indicator as I;
    let close = lines.close();
    let now = |i: I| lines.get(i as usize, 0);
    let before = |i: I| lines.get(i as usize, 1);
    match indicator {
        I::Sma10
        | I::Sma20
        | I::Sma30
        | I::Sma50
        | I::Sma100
        | I::Sma200
        | I::Ema10
        | I::Ema20
        | I::Ema30
        | I::Ema50
        | I::Ema100
        | I::Ema200
        | I::Vwma20
        | I::Hma9 => Some(votes::moving_average(now(indicator)?, close)),
        I::IchimokuBase => Some(votes::ichimoku(
            close,
            lines.get(CONVERSION, 0)?,
            now(I::IchimokuBase)?,
            lines.get(LEAD1_LAGGED, 0)?,
            lines.get(LEAD2_LAGGED, 0)?,
        )),
        I::Rsi14 => Some(votes::rsi(now(I::Rsi14)?, before(I::Rsi14)?)),
        I::StochK => Some(votes::stochastic(now(I::StochK)?, now(I::StochD)?)),
        I::Cci20 => Some(votes::cci(now(I::Cci20)?, before(I::Cci20)?)),
        I::Adx14 => Some(votes::adx(
            now(I::Adx14)?,
            before(I::Adx14)?,
            now(I::PlusDi)?,
            now(I::MinusDi)?,
        )),
        I::Ao => Some(votes::awesome(
            now(I::Ao)?,
            before(I::Ao)?,
            lines.get(I::Ao as usize, 2)?,
        )),
        I::Mom10 => Some(votes::momentum(now(I::Mom10)?, before(I::Mom10)?)),
        I::Macd => Some(votes::macd(now(I::Macd)?, now(I::MacdSignal)?)),
        I::StochRsiK => Some(votes::stoch_rsi(
            close,
            now(I::Ema50)?,
            now(I::StochRsiK)?,
            now(I::StochRsiD)?,
        )),
        I::Wr14 => Some(votes::williams_r(now(I::Wr14)?, before(I::Wr14)?)),
        I::Bbp => Some(votes::bull_bear_power(
            close,
            now(I::Ema50)?,
            lines.get(BULL_POWER, 0)?,
            lines.get(BULL_POWER, 1)?,
            lines.get(BEAR_POWER, 0)?,
            lines.get(BEAR_POWER, 1)?,
        )),
        I::Uo => Some(votes::ultimate(now(I::Uo)?)),
        I::StochD | I::PlusDi | I::MinusDi | I::MacdSignal | I::StochRsiD => None,
    }
}

/// Group means and the total (see [`Rating`] for the rules on missing groups).
#[inline(always)]
pub(crate) fn aggregate(votes: &[Option<i8>; COUNT]) -> Rating {
    // Each group's vote sum and count as sums of masked terms, the same
    // integers as counting indicator by indicator, without a branch per vote.
    const fn member(group: Group) -> [i32; COUNT] {
        let mut mask = [0; COUNT];
        let mut i = 0;
        while i < COUNT {
            mask[i] = match (Indicator::ALL[i].group(), group) {
                (Some(Group::MovingAverages), Group::MovingAverages)
                | (Some(Group::Oscillators), Group::Oscillators) => 1,
                _ => 0,
            };
            i += 1;
        }
        mask
    }
    const MEMBERS: [[i32; COUNT]; 2] = [member(Group::MovingAverages), member(Group::Oscillators)];
    let (mut sums, mut counts) = ([0i32; 2], [0i32; 2]);
    for (slot, members) in MEMBERS.iter().enumerate() {
        for (vote, &member) in votes.iter().zip(members) {
            sums[slot] += member * i32::from(vote.unwrap_or(0));
            counts[slot] += member * i32::from(vote.is_some());
        }
    }
    rating_of(sums, counts)
}

/// The ratings from the moving averages' and the oscillators' vote sums
/// and counts.
#[inline(always)]
pub(crate) fn rating_of(sums: [i32; 2], counts: [i32; 2]) -> Rating {
    let mean =
        |slot: usize| (counts[slot] > 0).then(|| f64::from(sums[slot]) / f64::from(counts[slot]));
    let ma = mean(0);
    let osc = mean(1);
    let total = match (ma, osc) {
        (Some(m), Some(o)) => (m + o) / 2.0,
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => 0.0,
    };
    Rating {
        total,
        ma: ma.unwrap_or(0.0),
        osc: osc.unwrap_or(0.0),
        recommendation: Recommendation::from_score(total),
    }
}

/// Why [`report_for`] could not rate a series.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReportError {
    #[error("no candles to rate")]
    NoCandles,
    #[error("candle {index} (0-based): {source}")]
    BadCandle {
        index: usize,
        #[source]
        source: CandleError,
    },
}

/// Feeds `candles` (oldest first) to a fresh engine and returns the report
/// after the last one. Every candle must be valid and later than the one
/// before it.
pub fn report_for(candles: &[Candle]) -> Result<RatingReport, ReportError> {
    if candles.is_empty() {
        return Err(ReportError::NoCandles);
    }
    let mut engine = RatingEngine::new();
    engine.try_extend(candles)?;
    Ok(engine.report())
}

/// Fresh engines, one per series of `series` (e.g. every symbol's history
/// at start-up), each extended by its series as
/// [`try_extend`](RatingEngine::try_extend) would: the same results, ratings
/// and states, bit for bit, for less work, since the series are taken two
/// at a time and share their divisions (see
/// [`report_batch`], which gives the reports instead).
pub fn extend_batch<S: AsRef<[Candle]>>(
    series: &[S],
) -> Vec<(RatingEngine, Result<Rating, ReportError>)> {
    let mut engines = [RatingEngine::new(), RatingEngine::new()];
    let mut extended = Vec::with_capacity(series.len());
    extend_in_pairs(series, &mut engines, |_, engine, result| {
        extended.push((std::mem::take(engine), result));
    });
    extended
}

/// Extends `engines`, reset, by the series of `series` two at a time
/// ([`RatingEngine::try_extend_fresh_pair`]; an odd last one alone) and
/// hands each series, in order, with its engine and result to `done`.
fn extend_in_pairs<S: AsRef<[Candle]>>(
    series: &[S],
    [a, b]: &mut [RatingEngine; 2],
    mut done: impl FnMut(&[Candle], &mut RatingEngine, Result<Rating, ReportError>),
) {
    for two in series.chunks(2) {
        a.reset();
        b.reset();
        match two {
            [ca, cb] => {
                let (ca, cb) = (ca.as_ref(), cb.as_ref());
                let [ra, rb] = RatingEngine::try_extend_fresh_pair([&mut *a, &mut *b], [ca, cb]);
                done(ca, a, ra);
                done(cb, b, rb);
            }
            [c] => {
                let result = a.try_extend(c.as_ref());
                done(c.as_ref(), a, result);
            }
            _ => unreachable!("chunks of one or two"),
        }
    }
}

/// [`report_for`] on each of `series`, two engines reused.
fn report_run<S: AsRef<[Candle]>>(series: &[S]) -> Vec<Result<RatingReport, ReportError>> {
    let mut engines = [RatingEngine::new(), RatingEngine::new()];
    let mut reports = Vec::with_capacity(series.len());
    extend_in_pairs(series, &mut engines, |candles, engine, result| {
        reports.push(match result {
            _ if candles.is_empty() => Err(ReportError::NoCandles),
            Ok(_) => Ok(engine.report()),
            Err(e) => Err(e),
        });
    });
    reports
}

/// [`report_for`] on each series of a batch (e.g. every symbol's history
/// at start-up), in order, split over `threads` threads (at most one per
/// series; 0 or 1 runs on the calling thread).
pub fn report_batch<S>(series: &[S], threads: usize) -> Vec<Result<RatingReport, ReportError>>
where
    S: AsRef<[Candle]> + Sync,
{
    let threads = threads.min(series.len());
    if threads <= 1 {
        return report_run(series);
    }
    let chunk = series.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = series
            .chunks(chunk)
            .map(|part| scope.spawn(move || report_run(part)))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a rating thread panicked"))
            .collect()
    })
}
