//! Every bar of a series at once: [`EveryBar`] holds, for each candle, the
//! rating and every indicator's value and vote, bit for bit what
//! [`RatingEngine::report`] gives after feeding the candles one by one, laid
//! out by column (one array per indicator over the bars) rather than one
//! [`RatingReport`] per bar. The indicators move as in the incremental
//! engine and the votes and ratings come from the same rules, run over the
//! columns. A batch fills two series side by side
//! ([`EveryBar::fill_pair`]): their recursions run in lockstep, one
//! instruction for both symbols ([`crate::recursions`]).

use crate::candle::Candle;
use crate::engine::{check_candles, rating_of, vote_of, Lines, LINES};
use crate::indicators::Scratch;
use crate::kernel::{Isa, Kernel};
use crate::lane::Pair;
use crate::rating::{Group, Indicator, IndicatorReading, Indicators, Rating, RatingReport, COUNT};
use crate::recursions::Recursions;
use crate::{RatingEngine, ReportError};

/// Every bar's rating, indicator values and votes for one series: what
/// [`RatingEngine::report`] gives after each candle, bit for bit.
///
/// Fill it with [`EveryBar::fill`] (which reuses its buffers) or
/// [`every_bar_for`]; read a bar with [`report`](Self::report) or one
/// indicator over all bars with [`values`](Self::values) and
/// [`votes`](Self::votes).
#[derive(Clone, Debug, Default)]
pub struct EveryBar {
    len: usize,
    /// `LINES` columns of `len` values (the indicators in report order, then
    /// the extra lines the votes read); a value is there only where
    /// `present` says so.
    lines: Vec<f64>,
    /// Per bar, bit `line` set if the line has a value on the bar.
    present: Vec<u64>,
    /// `COUNT` columns of `len` votes (0 when not voting).
    votes: Vec<i8>,
    total: Vec<f64>,
    ma: Vec<f64>,
    osc: Vec<f64>,
    /// The indicators' state and scratch columns, kept between fills for
    /// their buffers.
    work: Option<Box<Work>>,
}

#[derive(Clone, Debug, Default)]
struct Work {
    engine: RatingEngine,
    /// The recursions on this series alone, and on it and a second one
    /// side by side ([`EveryBar::fill_pair`]).
    recursions: Recursions,
    pair: Recursions<Pair>,
    series: Series,
    first: Vec<usize>,
    gaps: Vec<(usize, usize)>,
    tally: Tally,
}

/// Per bar, the moving averages' and the oscillators' vote sums and counts.
#[derive(Clone, Debug, Default)]
struct Tally {
    sums: [Vec<i32>; 2],
    counts: [Vec<i32>; 2],
    /// Per bar, how many of the group's indicators vote on every bar
    /// from it on (one more than the bars).
    starts: [Vec<i32>; 2],
}

/// A series' candles by field, and scratch columns for the passes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Series {
    pub(crate) close: Vec<f64>,
    pub(crate) high: Vec<f64>,
    pub(crate) low: Vec<f64>,
    pub(crate) volume: Vec<f64>,
    pub(crate) scratch: Scratch,
}

impl Series {
    /// Takes the fields of `candles`, and sizes the scratch to them.
    pub(crate) fn fill(&mut self, candles: &[Candle]) {
        self.close.clear();
        self.close.extend(candles.iter().map(|c| c.close));
        self.high.clear();
        self.high.extend(candles.iter().map(|c| c.high));
        self.low.clear();
        self.low.extend(candles.iter().map(|c| c.low));
        self.volume.clear();
        self.volume.extend(candles.iter().map(|c| c.volume));
        self.scratch.size(candles.len());
    }
}

/// Where the passes write each line's value on each bar.
pub(crate) struct Out<'a> {
    pub(crate) values: &'a mut [f64],
    n: usize,
    /// Per line, the first bar with a value (`n` while none).
    pub(crate) first: &'a mut [usize],
    /// (line, bar) without a value after the line's first: only the VWMA
    /// has any (a window of zero volumes).
    gaps: &'a mut Vec<(usize, usize)>,
}

impl<'a> Out<'a> {
    /// The columns of `n` bars in `values`, with each line's first bar
    /// (`n` while none) and the gaps.
    fn new(
        values: &'a mut [f64],
        n: usize,
        first: &'a mut [usize],
        gaps: &'a mut Vec<(usize, usize)>,
    ) -> Self {
        Out {
            values,
            n,
            first,
            gaps,
        }
    }

    /// `line` has the value `v` on bar `i`.
    #[inline(always)]
    pub(crate) fn set(&mut self, line: usize, i: usize, v: f64) {
        self.values[line * self.n + i] = v;
        if i < self.first[line] {
            self.first[line] = i;
        }
    }

    /// The column of `line`, one value per bar; a pass writes the bars
    /// where the line has a value and [`mark`](Self::mark)s the first.
    #[inline(always)]
    pub(crate) fn column(&mut self, line: usize) -> &mut [f64] {
        &mut self.values[line * self.n..(line + 1) * self.n]
    }

    /// The columns of distinct `lines` (see [`column`](Self::column)).
    #[inline(always)]
    pub(crate) fn columns<const K: usize>(&mut self, lines: [usize; K]) -> [&mut [f64]; K] {
        let n = self.n;
        self.values
            .get_disjoint_mut(lines.map(|line| line * n..(line + 1) * n))
            .expect("distinct lines")
    }

    /// `line` has a value on every bar from `first` on (none if `first`
    /// is the number of bars).
    #[inline(always)]
    pub(crate) fn mark(&mut self, line: usize, first: usize) {
        self.first[line] = self.first[line].min(first);
    }

    /// `line` has `value` on bar `i`; the bars are put in order.
    #[inline(always)]
    pub(crate) fn put(&mut self, line: usize, i: usize, value: Option<f64>) {
        match value {
            Some(v) => self.set(line, i, v),
            None if self.first[line] < i => self.gaps.push((line, i)),
            None => {}
        }
    }
}

const _: () = assert!(LINES <= 64, "a bar's presence bits fit a u64");

impl EveryBar {
    /// An empty series (no bar).
    pub fn new() -> Self {
        Self::default()
    }

    /// Rates every bar of `candles` (oldest first), replacing what was
    /// held. Every candle must be valid and later than the one before it;
    /// if one is not, the error names it and nothing is held.
    ///
    /// Runs the AVX2 copy of the passes where the CPU has AVX2
    /// ([`Kernel::best`]); every copy gives the same bits.
    pub fn fill(&mut self, candles: &[Candle]) -> Result<(), ReportError> {
        self.fill_on(candles, Kernel::best())
    }

    /// [`fill`](Self::fill) on the given copy of the passes (the result is
    /// the same on each; this is for comparing them).
    pub fn fill_on(&mut self, candles: &[Candle], kernel: Kernel) -> Result<(), ReportError> {
        match kernel.isa() {
            Isa::Baseline => self.fill_baseline(candles),
            // SAFETY: a `Kernel` holds `Isa::Avx2` only if the CPU has AVX2
            // (`Kernel::avx2`).
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Isa::Avx2 => unsafe { self.fill_avx2(candles) },
        }
    }

    #[inline(never)]
    fn fill_baseline(&mut self, candles: &[Candle]) -> Result<(), ReportError> {
        self.fill_in::<false>(candles)
    }

    /// The same code as [`fill_baseline`](Self::fill_baseline), everything
    /// it inlines compiled for AVX2 (not FMA: see [`crate::kernel`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_avx2(&mut self, candles: &[Candle]) -> Result<(), ReportError> {
        self.fill_in::<true>(candles)
    }

    /// The body of both copies; `AVX2` picks the copy of the out-of-line
    /// vote passes.
    #[inline(always)]
    fn fill_in<const AVX2: bool>(&mut self, candles: &[Candle]) -> Result<(), ReportError> {
        self.len = 0;
        check_candles(candles, None)?;
        let mut work = self.begin(candles);
        let Work {
            recursions,
            series,
            first,
            gaps,
            ..
        } = &mut *work;
        let n = candles.len();
        recursions.every_bar(series, &mut Out::new(&mut self.lines, n, first, gaps));
        self.finish::<AVX2>(candles, work);
        Ok(())
    }

    /// Rates every bar of two series, each into its own `EveryBar`, bit
    /// for bit what [`fill`](Self::fill) gives each, for less work: their
    /// recursions (the EMAs, MACD, RSI, directional movement) run side by
    /// side, each operation serving both symbols ([`crate::recursions`]);
    /// the series may differ in length. A refused candle (or an empty
    /// series) in either: each is filled alone, and the one refused holds
    /// nothing and says why.
    pub fn fill_pair(
        bars: [&mut EveryBar; 2],
        candles: [&[Candle]; 2],
    ) -> [Result<(), ReportError>; 2] {
        Self::fill_pair_on(bars, candles, Kernel::best())
    }

    /// [`fill_pair`](Self::fill_pair) on the given copy of the passes (see
    /// [`fill_on`](Self::fill_on)).
    pub fn fill_pair_on(
        bars: [&mut EveryBar; 2],
        candles: [&[Candle]; 2],
        kernel: Kernel,
    ) -> [Result<(), ReportError>; 2] {
        match kernel.isa() {
            Isa::Baseline => Self::fill_pair_baseline(bars, candles),
            // SAFETY: as in `fill_on`.
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Isa::Avx2 => unsafe { Self::fill_pair_avx2(bars, candles) },
        }
    }

    #[inline(never)]
    fn fill_pair_baseline(
        bars: [&mut EveryBar; 2],
        candles: [&[Candle]; 2],
    ) -> [Result<(), ReportError>; 2] {
        Self::fill_pair_in::<false>(bars, candles)
    }

    /// [`fill_pair_baseline`](Self::fill_pair_baseline) compiled for AVX2,
    /// as [`fill_avx2`](Self::fill_avx2).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_pair_avx2(
        bars: [&mut EveryBar; 2],
        candles: [&[Candle]; 2],
    ) -> [Result<(), ReportError>; 2] {
        Self::fill_pair_in::<true>(bars, candles)
    }

    /// The body of both copies of [`fill_pair`](Self::fill_pair).
    #[inline(always)]
    fn fill_pair_in<const AVX2: bool>(
        [a, b]: [&mut EveryBar; 2],
        [ca, cb]: [&[Candle]; 2],
    ) -> [Result<(), ReportError>; 2] {
        let paired =
            |candles: &[Candle]| !candles.is_empty() && check_candles(candles, None).is_ok();
        if !paired(ca) || !paired(cb) {
            return [a.fill_in::<AVX2>(ca), b.fill_in::<AVX2>(cb)];
        }
        let (mut wa, mut wb) = (a.begin(ca), b.begin(cb));
        let (
            Work {
                pair,
                recursions,
                series: xa,
                first: fa,
                gaps: ga,
                ..
            },
            Work {
                series: xb,
                first: fb,
                gaps: gb,
                ..
            },
        ) = (&mut *wa, &mut *wb);
        pair.every_bar(
            [xa, xb],
            &mut [
                Out::new(&mut a.lines, ca.len(), fa, ga),
                Out::new(&mut b.lines, cb.len(), fb, gb),
            ],
            recursions,
        );
        a.finish::<AVX2>(ca, wa);
        b.finish::<AVX2>(cb, wb);
        [Ok(()), Ok(())]
    }

    /// Readies the buffers for the checked `candles`, and takes the work.
    #[inline(always)]
    fn begin(&mut self, candles: &[Candle]) -> Box<Work> {
        self.len = 0;
        let n = candles.len();
        let mut work = self.work.take().unwrap_or_default();
        work.engine.reset();
        work.first.clear();
        work.first.resize(LINES, n);
        work.gaps.clear();
        work.series.fill(candles);
        // Stale values may stay where a line has none: they are never read.
        self.lines.resize(LINES * n, 0.0);
        work
    }

    /// After the recursions: every other line, the votes and the ratings
    /// of the `candles` [`begin`](Self::begin) took; puts the work back.
    #[inline(always)]
    fn finish<const AVX2: bool>(&mut self, candles: &[Candle], mut work: Box<Work>) {
        let n = candles.len();
        let Work {
            engine,
            series,
            first,
            gaps,
            tally,
            ..
        } = &mut *work;
        engine.lines_every_bar(
            candles,
            series,
            &mut Out::new(&mut self.lines, n, first, gaps),
        );
        // Each line has a value from its first bar on, but on its gaps.
        self.present.clear();
        self.present.resize(n, 0);
        for (line, &bar) in first.iter().enumerate() {
            if bar < n {
                self.present[bar] |= 1 << line;
            }
        }
        let mut bits = 0;
        for present in &mut self.present {
            bits |= *present;
            *present = bits;
        }
        for &(line, bar) in gaps.iter() {
            self.present[bar] &= !(1 << line);
        }
        self.vote::<AVX2>(&series.close, first, gaps, tally);
        self.work = Some(work);
        self.len = n;
    }

    /// Votes and rates every bar from the columns, one indicator at a time:
    /// each over the bars where some input may be missing as the engine
    /// does (every input checked), then over the rest, where every input is
    /// known to be there, with the checks compiled away.
    #[inline(always)]
    fn vote<const AVX2: bool>(
        &mut self,
        closes: &[f64],
        first: &[usize],
        gaps: &[(usize, usize)],
        tally: &mut Tally,
    ) {
        let n = closes.len();
        let mut settled = [0; LINES];
        settled.copy_from_slice(first);
        for &(line, bar) in gaps {
            settled[line] = settled[line].max(bar + 1);
        }
        self.votes.resize(COUNT * n, 0);
        for column in tally.sums.iter_mut().chain(&mut tally.counts) {
            column.clear();
            column.resize(n, 0);
        }
        let columns = Columns {
            lines: &self.lines,
            present: &self.present,
            closes,
            n,
        };
        for starts in &mut tally.starts {
            starts.clear();
            starts.resize(n + 1, 0);
        }
        macro_rules! vote_columns {
            ($($k:literal)*) => {$(
                vote_column_on::<$k, AVX2>(
                    &columns,
                    &settled,
                    &mut self.votes[$k * n..($k + 1) * n],
                    tally,
                );
            )*};
        }
        vote_columns!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30);
        const _: () = assert!(COUNT == 31, "one vote column per indicator above");
        // The group sums, column by column; the counts of the indicators
        // voting on every bar from their `from` on.
        for (indicator, votes) in Indicator::ALL
            .into_iter()
            .zip(self.votes.chunks_exact(n.max(1)))
        {
            if let Some(slot) = slot_of(indicator) {
                for (sum, &vote) in tally.sums[slot].iter_mut().zip(votes) {
                    *sum += i32::from(vote);
                }
            }
        }
        for (counts, starts) in tally.counts.iter_mut().zip(&tally.starts) {
            let mut voting = 0;
            for (count, &start) in counts.iter_mut().zip(starts) {
                voting += start;
                *count += voting;
            }
        }

        self.total.clear();
        self.ma.clear();
        self.osc.clear();
        let Tally {
            sums: [ma_sums, osc_sums],
            counts: [ma_counts, osc_counts],
            ..
        } = tally;
        for i in 0..n {
            let rating = rating_of([ma_sums[i], osc_sums[i]], [ma_counts[i], osc_counts[i]]);
            self.total.push(rating.total);
            self.ma.push(rating.ma);
            self.osc.push(rating.osc);
        }
    }

    /// How many bars (candles) are held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no bar is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `indicator`'s value on `bar` (0-based), `None` while it warms up.
    ///
    /// # Panics
    /// If `bar` is not below [`len`](Self::len).
    pub fn value(&self, indicator: Indicator, bar: usize) -> Option<f64> {
        assert!(bar < self.len, "bar {bar} of {}", self.len);
        let line = indicator as usize;
        (self.present[bar] >> line & 1 == 1).then(|| self.lines[line * self.len + bar])
    }

    /// `indicator`'s value on every bar, oldest first.
    pub fn values(&self, indicator: Indicator) -> impl Iterator<Item = Option<f64>> + '_ {
        let line = indicator as usize;
        let column = &self.lines[line * self.len..(line + 1) * self.len];
        column
            .iter()
            .zip(&self.present)
            .map(move |(&v, &bits)| (bits >> line & 1 == 1).then_some(v))
    }

    /// `indicator`'s vote on every bar (+1, 0 or -1; 0 when not voting).
    pub fn votes(&self, indicator: Indicator) -> &[i8] {
        let k = indicator as usize;
        &self.votes[k * self.len..(k + 1) * self.len]
    }

    /// The ratings on `bar`.
    ///
    /// # Panics
    /// If `bar` is not below [`len`](Self::len).
    pub fn rating(&self, bar: usize) -> Rating {
        let total = self.total[..self.len][bar];
        Rating {
            total,
            ma: self.ma[bar],
            osc: self.osc[bar],
            recommendation: crate::Recommendation::from_score(total),
        }
    }

    /// The totals of every bar, oldest first (see [`rating`](Self::rating)).
    pub fn totals(&self) -> &[f64] {
        &self.total[..self.len]
    }

    /// The report on `bar`: what [`RatingEngine::report`] gives after the
    /// candle of that bar.
    ///
    /// # Panics
    /// If `bar` is not below [`len`](Self::len).
    pub fn report(&self, bar: usize) -> RatingReport {
        let rating = self.rating(bar);
        let mut readings = [IndicatorReading::default(); COUNT];
        for (indicator, reading) in Indicator::ALL.into_iter().zip(&mut readings) {
            *reading = IndicatorReading {
                value: self.value(indicator, bar),
                vote: self.votes[indicator as usize * self.len + bar],
            };
        }
        RatingReport {
            total: rating.total,
            ma: rating.ma,
            osc: rating.osc,
            recommendation: rating.recommendation,
            indicators: Indicators(readings),
        }
    }
}

/// The lines of a series, by column.
struct Columns<'a> {
    lines: &'a [f64],
    present: &'a [u64],
    closes: &'a [f64],
    n: usize,
}

/// One bar of the columns, as the vote rules read it.
struct At<'a> {
    columns: &'a Columns<'a>,
    i: usize,
}

impl Lines for At<'_> {
    #[inline(always)]
    fn close(&self) -> f64 {
        self.columns.closes[self.i]
    }

    #[inline(always)]
    fn get(&self, line: usize, lag: usize) -> Option<f64> {
        let i = self.i.checked_sub(lag)?;
        let c = self.columns;
        (c.present[i] >> line & 1 == 1).then(|| c.lines[line * c.n + i])
    }
}

/// Bar `from + j` of the bars `from..from + m`, on all of which every line
/// a vote reads is known to have a value. Each read goes through a slice of
/// exactly `m` values, the same for every bar (`j < m`), so the compiler
/// hoists the slicing and drops the bounds checks, and the loop over the
/// bars vectorizes.
struct Settled<'a> {
    columns: &'a Columns<'a>,
    from: usize,
    m: usize,
    j: usize,
}

impl Lines for Settled<'_> {
    #[inline(always)]
    fn close(&self) -> f64 {
        self.columns.closes[self.from..][..self.m][self.j]
    }

    #[inline(always)]
    fn get(&self, line: usize, lag: usize) -> Option<f64> {
        let c = self.columns;
        Some(c.lines[line * c.n + self.from - lag..][..self.m][self.j])
    }
}

/// Records which lines, at which lags, a vote rule reads.
#[derive(Default)]
struct Probe {
    /// Per lag, a bit per line.
    reads: std::cell::Cell<[u64; 3]>,
}

impl Lines for Probe {
    fn close(&self) -> f64 {
        0.0
    }

    fn get(&self, line: usize, lag: usize) -> Option<f64> {
        let mut reads = self.reads.get();
        reads[lag] |= 1 << line;
        self.reads.set(reads);
        Some(0.0)
    }
}

/// The tally slot of an indicator's group; `None` for a companion line.
fn slot_of(indicator: Indicator) -> Option<usize> {
    match indicator.group()? {
        Group::MovingAverages => Some(0),
        Group::Oscillators => Some(1),
    }
}

/// [`vote_column`] in the AVX2 copy if `AVX2`, else in the baseline one.
#[inline(always)]
fn vote_column_on<const K: usize, const AVX2: bool>(
    columns: &Columns<'_>,
    settled: &[usize; LINES],
    votes: &mut [i8],
    tally: &mut Tally,
) {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is true only in `EveryBar::fill_avx2`, which runs
        // only where the CPU has AVX2.
        #[allow(unsafe_code)]
        return unsafe { vote_column_avx2::<K>(columns, settled, votes, tally) };
    }
    vote_column_baseline::<K>(columns, settled, votes, tally)
}

#[inline(never)]
fn vote_column_baseline<const K: usize>(
    columns: &Columns<'_>,
    settled: &[usize; LINES],
    votes: &mut [i8],
    tally: &mut Tally,
) {
    vote_column::<K>(columns, settled, votes, tally)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn vote_column_avx2<const K: usize>(
    columns: &Columns<'_>,
    settled: &[usize; LINES],
    votes: &mut [i8],
    tally: &mut Tally,
) {
    vote_column::<K>(columns, settled, votes, tally)
}

/// Votes indicator `K` (its place in [`Indicator::ALL`]) on every bar into
/// `votes`, counting the votes where an input may be missing, and marking
/// in its group's `starts` the bar from which it votes on every bar.
#[inline(always)]
fn vote_column<const K: usize>(
    columns: &Columns<'_>,
    settled: &[usize; LINES],
    votes: &mut [i8],
    tally: &mut Tally,
) {
    let indicator = Indicator::ALL[K];
    let Some(slot) = slot_of(indicator) else {
        votes.fill(0);
        return;
    };
    let n = columns.n;
    // From `from` on, every line the rule reads has a value on the bars it reads.
    let probe = Probe::default();
    vote_of(indicator, &probe);
    let mut from = 0;
    for (lag, reads) in probe.reads.get().into_iter().enumerate() {
        for (line, &settled) in settled.iter().enumerate() {
            if reads >> line & 1 == 1 {
                from = from.max(settled + lag);
            }
        }
    }
    let from = from.min(n);
    let counts = &mut tally.counts[slot][..n];
    for i in 0..from {
        let vote = vote_of(indicator, &At { columns, i });
        votes[i] = vote.unwrap_or(0);
        counts[i] += i32::from(vote.is_some());
    }
    tally.starts[slot][from] += 1;
    let m = n - from;
    for (j, vote) in votes[from..][..m].iter_mut().enumerate() {
        *vote = vote_of(
            indicator,
            &Settled {
                columns,
                from,
                m,
                j,
            },
        )
        .unwrap_or(0);
    }
}

/// Every bar of `candles` (oldest first): [`EveryBar::fill`] on a new one.
pub fn every_bar_for(candles: &[Candle]) -> Result<EveryBar, ReportError> {
    let mut bars = EveryBar::new();
    bars.fill(candles)?;
    Ok(bars)
}

/// [`every_bar_for`] on each series of a batch, in order, split over
/// `threads` threads (at most one per series; 0 or 1 runs on the calling
/// thread), as [`report_batch`](crate::report_batch) does for the final
/// reports. Every bar of every series is kept, about 140 KB a series of 500
/// candles; to look at each series' bars and let them go, see
/// [`every_bar_batch_with`], which is faster.
pub fn every_bar_batch<S>(series: &[S], threads: usize) -> Vec<Result<EveryBar, ReportError>>
where
    S: AsRef<[Candle]> + Sync,
{
    // Two engines and scratches per thread, handed from each series' bars
    // to the next's.
    let run = |_: usize, part: &[S]| -> Vec<_> {
        let mut kept = Vec::with_capacity(part.len());
        fill_each(part, &mut Default::default(), |_, bars, filled| {
            let work = bars.work.take();
            kept.push(filled.map(|()| std::mem::take(bars)));
            bars.work = work;
        });
        kept
    };
    split(series, threads, run).into_iter().flatten().collect()
}

/// Fills one [`EveryBar`] per thread with each series of a batch in turn
/// and hands it to `visit` with the series' index (or the error that
/// refused the series), on up to `threads` threads (0 or 1: the calling
/// thread, in order). The bars are reused for the thread's next series, so
/// their memory stays in the cache and nothing is allocated per series:
/// `visit` reads (or copies) what it needs. Each thread fills its series
/// two at a time ([`EveryBar::fill_pair`]).
pub fn every_bar_batch_with<S, F>(series: &[S], threads: usize, visit: F)
where
    S: AsRef<[Candle]> + Sync,
    F: Fn(usize, Result<&EveryBar, ReportError>) + Sync,
{
    let run = |offset: usize, part: &[S]| {
        fill_each(part, &mut Default::default(), |k, bars, filled| {
            visit(offset + k, filled.map(|()| &*bars));
        });
    };
    split(series, threads, run);
}

/// Fills `bars` with the series of `series`, two at a time
/// ([`EveryBar::fill_pair`]; an odd last one alone), and hands each, in
/// order, with its index and result to `done`.
fn fill_each<S: AsRef<[Candle]>>(
    series: &[S],
    [a, b]: &mut [EveryBar; 2],
    mut done: impl FnMut(usize, &mut EveryBar, Result<(), ReportError>),
) {
    for (k, two) in (0..).step_by(2).zip(series.chunks(2)) {
        match two {
            [ca, cb] => {
                let [ra, rb] = EveryBar::fill_pair([a, b], [ca.as_ref(), cb.as_ref()]);
                done(k, a, ra);
                done(k + 1, b, rb);
            }
            [c] => {
                let filled = a.fill(c.as_ref());
                done(k, a, filled);
            }
            _ => unreachable!("chunks of one or two"),
        }
    }
}

/// `run(offset, part)` on `threads` contiguous parts of `series` (at most
/// one per series), on threads of their own unless there is one part.
fn split<S, R, T>(series: &[S], threads: usize, run: R) -> Vec<T>
where
    S: Sync,
    R: Fn(usize, &[S]) -> T + Sync,
    T: Send,
{
    let threads = threads.min(series.len());
    if threads <= 1 {
        return vec![run(0, series)];
    }
    let chunk = series.len().div_ceil(threads);
    let run = &run;
    std::thread::scope(|scope| {
        let workers: Vec<_> = series
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| scope.spawn(move || run(k * chunk, part)))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a rating thread panicked"))
            .collect()
    })
}
