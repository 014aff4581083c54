//! What a run reads, a day at a time: each symbol's 1-minute candles (loaded, read from the
//! database or generated from the simulated market as the run goes, so a year of twenty
//! symbols is never held whole) and the signals known by then (the rating engine over the
//! interval's candles built from those minutes, or a given list).

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc};

use signaldesk_core::market::Candle;
use signaldesk_engine::signals::ratings_candle;
use signaldesk_ratings::RatingEngine;
use signaldesk_venue::market::candles::{bucket_start, extend};
use signaldesk_venue::market::sim::{MinuteHistory, SimConfig};

use crate::data::{spec_of, GapFiller};
use crate::stored::{StoredCandles, Stretch};
use crate::{BacktestError, ScriptedSignal, Signals};

pub const MINUTE_MS: i64 = 60_000;

/// The minutes a run reads at a time.
const CHUNK_MINUTES: usize = 1_440;

/// Where a run's 1-minute candles come from.
#[derive(Debug, Clone)]
pub enum Candles {
    /// Held in memory, per symbol, oldest first, one for every minute from the symbol's
    /// first ([`crate::data::fill_gaps`]): a sweep's shared history, a test's script.
    Loaded(Arc<BTreeMap<String, Vec<Candle>>>),
    /// Stored (Bybit) candles, read a day at a time as the run goes, each minute missing
    /// between two stored ones filled as [`crate::data::fill_gaps`] fills it.
    Stored(StoredCandles),
    /// The simulated market's (seed `seed`) over `[from_ms, to_ms)`, generated as the run
    /// goes ([`MinuteHistory`]).
    Simulated {
        seed: u64,
        symbols: Vec<String>,
        from_ms: i64,
        to_ms: i64,
    },
}

impl Candles {
    /// The symbols, in the order runs walk them.
    pub fn symbols(&self) -> Vec<String> {
        match self {
            Candles::Loaded(map) => map.keys().cloned().collect(),
            Candles::Stored(stored) => stored.bounds().keys().cloned().collect(),
            Candles::Simulated { symbols, .. } => {
                let mut sorted = symbols.clone();
                sorted.sort();
                sorted.dedup();
                sorted
            }
        }
    }

    /// The first minute and how many minutes the run walks.
    pub fn timeline(&self) -> Result<(i64, usize), BacktestError> {
        let (first, last) = match self {
            Candles::Loaded(map) => {
                let mut first = i64::MAX;
                let mut last = i64::MIN;
                for (symbol, candles) in map.iter() {
                    let (Some(a), Some(b)) = (candles.first(), candles.last()) else {
                        return Err(BacktestError::NoCandles(symbol.clone()));
                    };
                    first = first.min(a.open_time_ms);
                    last = last.max(b.open_time_ms);
                }
                (first, last)
            }
            Candles::Stored(stored) => stored
                .bounds()
                .values()
                .fold((i64::MAX, i64::MIN), |(first, last), &(a, b)| {
                    (first.min(a), last.max(b))
                }),
            Candles::Simulated { from_ms, to_ms, .. } => (
                bucket_start(*from_ms, 1),
                bucket_start(*to_ms, 1) - MINUTE_MS,
            ),
        };
        if first > last {
            return Err(BacktestError::EmptyPeriod);
        }
        Ok((
            first,
            usize::try_from((last - first) / MINUTE_MS + 1).unwrap_or(0),
        ))
    }

    /// Every candle in memory (a sweep reads them once for all its runs).
    pub fn load(&self) -> Result<Arc<BTreeMap<String, Vec<Candle>>>, BacktestError> {
        if let Candles::Loaded(map) = self {
            return Ok(map.clone());
        }
        let symbols = self.symbols();
        let (_, minutes) = self.timeline()?;
        let mut all: BTreeMap<String, Vec<Candle>> = symbols
            .iter()
            .map(|s| (s.clone(), Vec::with_capacity(minutes)))
            .collect();
        let mut feed = Feed::new(self, &Signals::Scripted(Arc::default()))?;
        while let Some(chunk) = feed.next_chunk()? {
            for (symbol, part) in symbols.iter().zip(chunk.candles) {
                if let Some(list) = all.get_mut(symbol) {
                    list.extend(part.candles);
                }
            }
        }
        Ok(Arc::new(all))
    }
}

/// One symbol's candles of a chunk: the first at `first_ms`, one a minute after it.
#[derive(Debug, Default)]
pub(crate) struct Part {
    pub first_ms: i64,
    pub candles: Vec<Candle>,
}

impl Part {
    pub fn at(&self, minute_ms: i64) -> Option<&Candle> {
        let index = usize::try_from((minute_ms - self.first_ms) / MINUTE_MS).ok()?;
        (minute_ms >= self.first_ms)
            .then(|| self.candles.get(index))
            .flatten()
    }
}

/// A stretch of minutes: each symbol's candles (the run's symbol order) and the signals
/// known by its end, oldest first (a signal may be due after the chunk's last minute).
#[derive(Debug)]
pub(crate) struct Chunk {
    pub start_ms: i64,
    pub minutes: usize,
    pub candles: Vec<Part>,
    pub signals: Vec<ScriptedSignal>,
}

enum Source {
    Loaded(Arc<BTreeMap<String, Vec<Candle>>>),
    /// Read a day ahead on a thread of their own; each symbol's gaps filled on from the
    /// stretch before.
    Stored {
        stretches: mpsc::Receiver<Result<Stretch, BacktestError>>,
        /// Each symbol's last stored minute.
        lasts: Vec<i64>,
        gaps: Vec<GapFiller>,
    },
    Simulated(Box<MinuteHistory>),
}

enum Rating {
    Engines(Vec<Bucket>),
    Scripted {
        signals: Arc<Vec<ScriptedSignal>>,
        next: usize,
    },
}

/// One symbol's rating engine and the interval candle it is building.
struct Bucket {
    engine: RatingEngine,
    interval_minutes: u32,
    building: Option<(Candle, u32)>,
}

impl Bucket {
    /// Adds the minute `c`; answers the interval candle it completes, rated.
    fn add(&mut self, c: &Candle) -> Option<(Candle, String)> {
        let start = bucket_start(c.open_time_ms, self.interval_minutes);
        match self.building.as_mut() {
            Some((agg, n)) if agg.open_time_ms == start => {
                extend(agg, c);
                *n += 1;
            }
            _ => {
                self.building = Some((
                    Candle {
                        open_time_ms: start,
                        ..c.clone()
                    },
                    1,
                ))
            }
        }
        let interval_ms = i64::from(self.interval_minutes) * MINUTE_MS;
        if c.open_time_ms + MINUTE_MS != start + interval_ms {
            return None;
        }
        let (candle, n) = self.building.take()?;
        if n != self.interval_minutes {
            return None;
        }
        let rating = self.engine.update(&ratings_candle(&candle));
        Some((candle, rating.recommendation.as_str().to_string()))
    }
}

/// Reads a run's candles and signals a chunk at a time.
pub(crate) struct Feed {
    symbols: Vec<String>,
    source: Source,
    rating: Rating,
    next_ms: i64,
    end_ms: i64,
}

impl Feed {
    pub fn new(candles: &Candles, signals: &Signals) -> Result<Feed, BacktestError> {
        let symbols = candles.symbols();
        let (first_ms, minutes) = candles.timeline()?;
        let source = match candles {
            Candles::Loaded(map) => Source::Loaded(map.clone()),
            Candles::Stored(stored) => Source::Stored {
                stretches: stored.read_ahead(
                    symbols.clone(),
                    first_ms,
                    first_ms + minutes as i64 * MINUTE_MS,
                    CHUNK_MINUTES as i64 * MINUTE_MS,
                )?,
                lasts: symbols.iter().map(|s| stored.bounds()[s].1).collect(),
                gaps: vec![GapFiller::default(); symbols.len()],
            },
            Candles::Simulated {
                seed,
                from_ms,
                to_ms,
                ..
            } => {
                let specs = symbols
                    .iter()
                    .map(|s| spec_of(s))
                    .collect::<Result<Vec<_>, _>>()?;
                let config = SimConfig {
                    seed: *seed,
                    symbols: specs,
                    ..SimConfig::default()
                };
                Source::Simulated(Box::new(MinuteHistory::new(&config, *from_ms, *to_ms)))
            }
        };
        let rating = match signals {
            Signals::Ratings { interval_minutes } => Rating::Engines(
                symbols
                    .iter()
                    .map(|_| Bucket {
                        engine: RatingEngine::new(),
                        interval_minutes: (*interval_minutes).max(1),
                        building: None,
                    })
                    .collect(),
            ),
            Signals::Scripted(list) => {
                let signals = if list.is_sorted_by_key(|s| s.at_ms) {
                    list.clone()
                } else {
                    let mut sorted = list.as_ref().clone();
                    sorted.sort_by_key(|s| s.at_ms);
                    Arc::new(sorted)
                };
                Rating::Scripted { signals, next: 0 }
            }
        };
        Ok(Feed {
            symbols,
            source,
            rating,
            next_ms: first_ms,
            end_ms: first_ms + minutes as i64 * MINUTE_MS,
        })
    }

    /// The next chunk; `None` once the period is done. Only stored candles can fail (the
    /// database); with them it waits for their reader's thread
    /// ([`StoredCandles::read_ahead`]).
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, BacktestError> {
        if self.next_ms >= self.end_ms {
            return Ok(None);
        }
        let start_ms = self.next_ms;
        let left = usize::try_from((self.end_ms - start_ms) / MINUTE_MS).unwrap_or(0);
        let minutes = CHUNK_MINUTES.min(left);
        let end_ms = start_ms + minutes as i64 * MINUTE_MS;
        let candles: Vec<Part> = match &mut self.source {
            Source::Simulated(history) => history
                .next_minutes(minutes)
                .into_iter()
                .map(|candles| Part {
                    first_ms: start_ms,
                    candles,
                })
                .collect(),
            Source::Loaded(map) => self
                .symbols
                .iter()
                .map(|symbol| slice(&map[symbol], start_ms, end_ms))
                .collect(),
            Source::Stored {
                stretches,
                lasts,
                gaps,
            } => {
                let read = stretches.recv().map_err(|_| {
                    BacktestError::Data("the stored candles' reader stopped".into())
                })??;
                read.into_iter()
                    .zip(gaps.iter_mut().zip(lasts.iter()))
                    .map(|(stored, (gaps, &last))| filled(stored, gaps, last, start_ms, end_ms))
                    .collect()
            }
        };
        self.next_ms = end_ms;
        let signals = self.rate(&candles, start_ms, minutes, end_ms);
        Ok(Some(Chunk {
            start_ms,
            minutes,
            candles,
            signals,
        }))
    }

    /// The signals known by `end_ms`: the ratings of the interval candles these minutes
    /// complete (at each minute, the symbols in order), or the given ones due by then.
    fn rate(
        &mut self,
        parts: &[Part],
        start_ms: i64,
        minutes: usize,
        end_ms: i64,
    ) -> Vec<ScriptedSignal> {
        match &mut self.rating {
            Rating::Scripted { signals, next } => {
                let first = *next;
                while *next < signals.len() && signals[*next].at_ms < end_ms {
                    *next += 1;
                }
                signals[first..*next].to_vec()
            }
            Rating::Engines(buckets) => {
                let mut due = Vec::new();
                for step in 0..minutes {
                    let minute_ms = start_ms + step as i64 * MINUTE_MS;
                    for ((symbol, part), bucket) in
                        self.symbols.iter().zip(parts).zip(buckets.iter_mut())
                    {
                        let Some(candle) = part.at(minute_ms) else {
                            continue;
                        };
                        if let Some((rated, rating)) = bucket.add(candle) {
                            due.push(ScriptedSignal {
                                at_ms: minute_ms + MINUTE_MS,
                                candle_ms: rated.open_time_ms,
                                symbol: symbol.clone(),
                                rating,
                                stored: None,
                            });
                        }
                    }
                }
                due
            }
        }
    }
}

/// A symbol's minutes in `[from_ms, to_ms)` from its `stored` ones: every minute from its
/// first stored one to its `last`, those missing flat at the close before, as
/// [`crate::data::fill_gaps`] makes them over the whole history (`gaps` goes on from the
/// stretch before).
fn filled(stored: Vec<Candle>, gaps: &mut GapFiller, last: i64, from_ms: i64, to_ms: i64) -> Part {
    let mut candles = Vec::with_capacity(CHUNK_MINUTES);
    for candle in stored {
        gaps.push(candle, &mut candles);
    }
    if last >= to_ms {
        gaps.flat_until(to_ms, &mut candles);
    }
    Part {
        first_ms: candles.first().map_or(from_ms, |c| c.open_time_ms),
        candles,
    }
}

/// `candles`' minutes in `[from_ms, to_ms)`.
fn slice(candles: &[Candle], from_ms: i64, to_ms: i64) -> Part {
    let Some(first) = candles.first().map(|c| c.open_time_ms) else {
        return Part::default();
    };
    let index = |ms: i64| {
        usize::try_from((ms - first) / MINUTE_MS)
            .unwrap_or(0)
            .min(candles.len())
    };
    let (a, b) = (index(from_ms.max(first)), index(to_ms.max(first)));
    Part {
        first_ms: first + a as i64 * MINUTE_MS,
        candles: candles[a..b].to_vec(),
    }
}
