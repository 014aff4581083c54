//! [`RatingEngine`]: one symbol's indicator state, moved one closed candle at
//! a time.

use crate::candle::{Candle, CandleError};
use crate::indicators::{
    williams_r, Ao, Cci, Channel, Dmi, Hma, Ichimoku, IchimokuValue, Macd, Momentum, Rsi, Stoch,
    StochRsi, Uo, Vwma,
};
use crate::rating::{
    Group, Indicator, IndicatorReading, Indicators, Rating, RatingReport, Recommendation, COUNT,
};
use crate::votes;
use crate::window::{Ema, Sma};

const MA_PERIODS: [usize; 6] = [10, 20, 30, 50, 100, 200];
const SMA_KEYS: [Indicator; 6] = [
    Indicator::Sma10,
    Indicator::Sma20,
    Indicator::Sma30,
    Indicator::Sma50,
    Indicator::Sma100,
    Indicator::Sma200,
];
const EMA_KEYS: [Indicator; 6] = [
    Indicator::Ema10,
    Indicator::Ema20,
    Indicator::Ema30,
    Indicator::Ema50,
    Indicator::Ema100,
    Indicator::Ema200,
];

/// What one bar left behind: every reported value plus the extra lines the
/// vote rules read.
#[derive(Clone, Copy, Debug)]
struct Bar {
    values: [Option<f64>; COUNT],
    close: f64,
    ichimoku: IchimokuValue,
    bull_power: Option<f64>,
    bear_power: Option<f64>,
}

impl Bar {
    const EMPTY: Bar = Bar {
        values: [None; COUNT],
        close: f64::NAN,
        ichimoku: IchimokuValue {
            conversion: None,
            base: None,
            lead1_lagged: None,
            lead2_lagged: None,
        },
        bull_power: None,
        bear_power: None,
    };

    fn get(&self, indicator: Indicator) -> Option<f64> {
        self.values[indicator as usize]
    }

    fn set(&mut self, indicator: Indicator, value: Option<f64>) {
        self.values[indicator as usize] = value;
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
            vwma: Vwma::new(20),
            hma: Hma::new(9),
            ichimoku: Ichimoku::new(9, 26, 52, 26),
            rsi: Rsi::new(14),
            channel: Channel::new(14),
            stoch: Stoch::new(3, 3),
            cci: Cci::new(20),
            dmi: Dmi::new(14),
            ao: Ao::new(5, 34),
            momentum: Momentum::new(10),
            macd: Macd::new(12, 26, 9),
            stoch_rsi: StochRsi::new(14, 3, 3),
            ema13: Ema::new(13),
            uo: Uo::new(7, 14, 28),
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

        self.step(candle);
        let bar = self.read_bar(candle);
        self.votes = votes_of(&bar, &self.bar, self.prev_ao);
        self.prev_ao = self.bar.get(Indicator::Ao);
        self.bar = bar;
        self.rating = aggregate(&self.votes);
        Ok(self.rating)
    }

    /// Feeds `candles` (oldest first) and returns the rating after the last
    /// one: the same state and rating as [`try_update`](Self::try_update) on
    /// each candle in turn, bit for bit, but the indicator values are read
    /// (and voted on) only on the last three bars, the ones the final votes
    /// look at. This is how a cold start rates a whole history cheaply.
    ///
    /// Every candle is checked first; if one is refused, the engine is left
    /// unchanged (no candle is taken) and the error names it.
    pub fn try_extend(&mut self, candles: &[Candle]) -> Result<Rating, ReportError> {
        let mut previous = self.last_time;
        for (index, candle) in candles.iter().enumerate() {
            let checked = candle.validate().and_then(|()| match previous {
                Some(previous) if candle.time <= previous => Err(CandleError::NotAfterPrevious {
                    time: candle.time,
                    previous,
                }),
                _ => Ok(()),
            });
            checked.map_err(|source| ReportError::BadCandle { index, source })?;
            previous = Some(candle.time);
        }
        // The votes of the last bar read the values of the two bars before it.
        let (silent, read) = candles.split_at(candles.len().saturating_sub(3));
        for candle in silent {
            self.step(candle);
        }
        self.candles += silent.len() as u64;
        self.last_time = silent.last().map(|c| c.time).or(self.last_time);
        for candle in read {
            self.try_update(candle).expect("a checked candle is taken");
        }
        Ok(self.rating)
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
                value: self.bar.values[i],
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

    /// How many candles the engine has taken.
    pub fn candle_count(&self) -> u64 {
        self.candles
    }

    /// Moves every indicator by one candle without reading any value.
    #[inline]
    fn step(&mut self, c: &Candle) {
        for (sma, ema) in self.sma.iter_mut().zip(self.ema.iter_mut()) {
            sma.push(c.close);
            ema.push(c.close);
        }
        self.vwma.push(c.close, c.volume);
        self.hma.push(c.close);
        self.ichimoku.push(c.high, c.low);
        self.rsi.push(c.close);
        let channel = self.channel.push(c.high, c.low);
        self.stoch.push(c.close, channel);
        self.cci.push(c.high, c.low, c.close);
        self.dmi.push(c.high, c.low, c.close);
        self.ao.push(c.high, c.low);
        self.momentum.push(c.close);
        self.macd.push(c.close);
        self.stoch_rsi.push(self.rsi.value());
        self.ema13.push(c.close);
        self.uo.push(c.high, c.low, c.close);
    }

    /// Every value on the bar of `c`, the latest candle [`step`](Self::step) took.
    fn read_bar(&self, c: &Candle) -> Bar {
        let mut bar = Bar::EMPTY;
        bar.close = c.close;
        for ((sma, ema), (sma_key, ema_key)) in self
            .sma
            .iter()
            .zip(&self.ema)
            .zip(SMA_KEYS.into_iter().zip(EMA_KEYS))
        {
            bar.set(sma_key, sma.value());
            bar.set(ema_key, ema.value());
        }
        bar.set(Indicator::Vwma20, self.vwma.value());
        bar.set(Indicator::Hma9, self.hma.value());
        bar.ichimoku = self.ichimoku.value();
        bar.set(Indicator::IchimokuBase, bar.ichimoku.base);

        bar.set(Indicator::Rsi14, self.rsi.value());
        let stoch = self.stoch.value();
        bar.set(Indicator::StochK, stoch.map(|s| s.0));
        bar.set(Indicator::StochD, stoch.map(|s| s.1));
        bar.set(Indicator::Wr14, williams_r(c.close, self.channel.value()));
        bar.set(Indicator::Cci20, self.cci.value());
        let dmi = self.dmi.value();
        bar.set(Indicator::Adx14, dmi.adx);
        bar.set(Indicator::PlusDi, dmi.plus_di);
        bar.set(Indicator::MinusDi, dmi.minus_di);
        bar.set(Indicator::Ao, self.ao.value());
        bar.set(Indicator::Mom10, self.momentum.value());
        let macd = self.macd.value();
        bar.set(Indicator::Macd, macd.map(|m| m.0));
        bar.set(Indicator::MacdSignal, macd.map(|m| m.1));
        let (k, d) = self.stoch_rsi.value();
        bar.set(Indicator::StochRsiK, k);
        bar.set(Indicator::StochRsiD, d);
        let ema13 = self.ema13.value();
        bar.bull_power = ema13.map(|e| c.high - e);
        bar.bear_power = ema13.map(|e| c.low - e);
        bar.set(
            Indicator::Bbp,
            bar.bull_power.zip(bar.bear_power).map(|(b, s)| b + s),
        );
        bar.set(Indicator::Uo, self.uo.value());
        bar
    }
}

/// Every indicator's vote on `bar`, given the bar before it and the AO two
/// bars back. An indicator votes once every input its rule reads exists.
fn votes_of(bar: &Bar, prev: &Bar, ao_two_back: Option<f64>) -> [Option<i8>; COUNT] {
    use Indicator as I;
    let close = bar.close;
    let now = |i: I| bar.get(i);
    let before = |i: I| prev.get(i);
    let ema50 = now(I::Ema50);
    let mut votes = [None; COUNT];
    let mut set = |i: I, vote: Option<i8>| votes[i as usize] = vote;

    for ma in SMA_KEYS
        .into_iter()
        .chain(EMA_KEYS)
        .chain([I::Vwma20, I::Hma9])
    {
        set(ma, now(ma).map(|v| votes::moving_average(v, close)));
    }
    let ic = bar.ichimoku;
    set(
        I::IchimokuBase,
        (|| {
            Some(votes::ichimoku(
                close,
                ic.conversion?,
                ic.base?,
                ic.lead1_lagged?,
                ic.lead2_lagged?,
            ))
        })(),
    );
    set(
        I::Rsi14,
        (|| Some(votes::rsi(now(I::Rsi14)?, before(I::Rsi14)?)))(),
    );
    set(
        I::StochK,
        (|| Some(votes::stochastic(now(I::StochK)?, now(I::StochD)?)))(),
    );
    set(
        I::Cci20,
        (|| Some(votes::cci(now(I::Cci20)?, before(I::Cci20)?)))(),
    );
    set(
        I::Adx14,
        (|| {
            Some(votes::adx(
                now(I::Adx14)?,
                before(I::Adx14)?,
                now(I::PlusDi)?,
                now(I::MinusDi)?,
            ))
        })(),
    );
    set(
        I::Ao,
        (|| Some(votes::awesome(now(I::Ao)?, before(I::Ao)?, ao_two_back?)))(),
    );
    set(
        I::Mom10,
        (|| Some(votes::momentum(now(I::Mom10)?, before(I::Mom10)?)))(),
    );
    set(
        I::Macd,
        (|| Some(votes::macd(now(I::Macd)?, now(I::MacdSignal)?)))(),
    );
    set(
        I::StochRsiK,
        (|| {
            Some(votes::stoch_rsi(
                close,
                ema50?,
                now(I::StochRsiK)?,
                now(I::StochRsiD)?,
            ))
        })(),
    );
    set(
        I::Wr14,
        (|| Some(votes::williams_r(now(I::Wr14)?, before(I::Wr14)?)))(),
    );
    set(
        I::Bbp,
        (|| {
            Some(votes::bull_bear_power(
                close,
                ema50?,
                bar.bull_power?,
                prev.bull_power?,
                bar.bear_power?,
                prev.bear_power?,
            ))
        })(),
    );
    set(I::Uo, now(I::Uo).map(votes::ultimate));
    votes
}

/// Group means and the total (see [`Rating`] for the rules on missing groups).
fn aggregate(votes: &[Option<i8>; COUNT]) -> Rating {
    let (mut sums, mut counts) = ([0i32; 2], [0i32; 2]);
    for (indicator, vote) in Indicator::ALL.into_iter().zip(votes) {
        let slot = match (indicator.group(), vote) {
            (Some(Group::MovingAverages), Some(_)) => 0,
            (Some(Group::Oscillators), Some(_)) => 1,
            _ => continue,
        };
        sums[slot] += i32::from(vote.unwrap_or(0));
        counts[slot] += 1;
    }
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

/// [`report_for`] on each series of a batch (e.g. every symbol's history
/// at start-up), in order, split over `threads` threads (at most one per
/// series; 0 or 1 runs on the calling thread).
pub fn report_batch<S>(series: &[S], threads: usize) -> Vec<Result<RatingReport, ReportError>>
where
    S: AsRef<[Candle]> + Sync,
{
    let one = |candles: &S| report_for(candles.as_ref());
    let threads = threads.min(series.len());
    if threads <= 1 {
        return series.iter().map(one).collect();
    }
    let chunk = series.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = series
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a rating thread panicked"))
            .collect()
    })
}
