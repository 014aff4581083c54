//! Candles and the checks a candle must pass before it moves the engine.

use serde::{Deserialize, Serialize};

/// One closed candle (kline). `time` is its open time in unix milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candle {
    pub time: i64,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
    pub volume: f64,
}

/// Why a candle was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CandleError {
    #[error("{field} is not a finite number")]
    NotFinite { field: &'static str },
    #[error("low {low} is above high {high}")]
    LowAboveHigh { low: f64, high: f64 },
    #[error("volume {volume} is negative")]
    NegativeVolume { volume: f64 },
    #[error("time {time} is not after the previous candle's time {previous}")]
    NotAfterPrevious { time: i64, previous: i64 },
}

impl Candle {
    /// Checks the candle on its own: every price and the volume finite,
    /// `low <= high`, volume not negative. (Open and close are not required to
    /// lie inside `[low, high]`; the indicators stay defined either way.)
    pub fn validate(&self) -> Result<(), CandleError> {
        let finite = self.open.is_finite()
            & self.high.is_finite()
            & self.low.is_finite()
            & self.close.is_finite()
            & self.volume.is_finite();
        // With every field finite, these are the negations of the refusals.
        if finite && self.low <= self.high && self.volume >= 0.0 {
            return Ok(());
        }
        self.refusal()
    }

    /// The first reason [`validate`](Self::validate) refuses the candle
    /// for (kept off its fast path, which a cold start takes per candle).
    #[cold]
    fn refusal(&self) -> Result<(), CandleError> {
        for (field, v) in [
            ("open", self.open),
            ("high", self.high),
            ("low", self.low),
            ("close", self.close),
            ("volume", self.volume),
        ] {
            if !v.is_finite() {
                return Err(CandleError::NotFinite { field });
            }
        }
        if self.low > self.high {
            return Err(CandleError::LowAboveHigh {
                low: self.low,
                high: self.high,
            });
        }
        if self.volume < 0.0 {
            return Err(CandleError::NegativeVolume {
                volume: self.volume,
            });
        }
        Ok(())
    }
}
