//! The compact binary form of one symbol's day of 1-minute candles (a `candle_days` row,
//! migration 0029; docs/backtesting.md, "How candles are stored").
//!
//! Exact, including each decimal's scale: every value is kept as the integer mantissa at the
//! day's common scale (the largest scale among the day's prices, and among its volumes), so a
//! price that is not a whole number of ticks is stored as exactly as one that is. Layout:
//!
//! ```text
//! version (1) | price scale | volume scale | flags | presence bitmap (180 bytes, minute i = bit i)
//! then for each present minute, oldest first:
//!   [if flags & SCALE_MASKS: a byte whose bits 0..5 mark which of o,h,l,c,v keep a scale of
//!    their own (smaller than the common one), then one byte per marked value: that scale]
//!   zigzag varints: open - previous close, high - open, low - open, close - open,
//!                   volume - previous volume
//! ```
//!
//! A day whose values cannot all be brought to one scale inside an `i128` (only possible for
//! scales far past any exchange's, e.g. 1e-28 beside 1e28) is written with the scales set to
//! [`OWN_SCALES`]: each mantissa at its own scale, every value's scale byte written.

use rust_decimal::Decimal;
use signaldesk_core::market::Candle;

pub(crate) const DAY_MS: i64 = 86_400_000;
pub(crate) const MINUTE_MS: i64 = 60_000;
pub(crate) const MINUTES_A_DAY: usize = 1_440;
const VERSION: u8 = 1;
const HEADER: usize = 4;
const BITMAP: usize = MINUTES_A_DAY / 8;
/// The flag: each minute carries a byte saying which values keep a scale of their own.
const SCALE_MASKS: u8 = 1;
/// The common scales' value when every value carries its own.
const OWN_SCALES: u8 = 255;

/// The day (days since the Unix epoch, UTC) that `ms` falls in.
pub(crate) fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// A day's 1,440 minutes, `None` where no candle is stored.
pub(crate) type Slots = Vec<Option<Candle>>;

pub(crate) fn empty_day() -> Slots {
    vec![None; MINUTES_A_DAY]
}

/// The slot of a candle opened at `open_time_ms` in `day`, if it opened on a whole minute of it.
pub(crate) fn slot_of(day: i64, open_time_ms: i64) -> Option<usize> {
    let offset = open_time_ms - day * DAY_MS;
    (offset.rem_euclid(MINUTE_MS) == 0 && (0..DAY_MS).contains(&offset))
        .then_some((offset / MINUTE_MS) as usize)
}

fn values(c: &Candle) -> [Decimal; 5] {
    [c.open, c.high, c.low, c.close, c.volume]
}

/// `m` (at scale `from`) at the larger scale `to`, if it fits.
fn rescaled(m: i128, from: u32, to: u32) -> Option<i128> {
    10i128.checked_pow(to - from)?.checked_mul(m)
}

fn push_varint(out: &mut Vec<u8>, v: i128) {
    let mut z = ((v << 1) ^ (v >> 127)) as u128;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// The day's present candles in the binary form (the encoder never fails: see the module doc).
pub(crate) fn encode(slots: &[Option<Candle>]) -> Vec<u8> {
    let present: Vec<&Candle> = slots.iter().flatten().collect();
    let max_scale = |pick: &dyn Fn(&Candle) -> [Decimal; 4]| {
        present
            .iter()
            .flat_map(|c| pick(c))
            .map(|d| d.scale())
            .max()
            .unwrap_or(0)
    };
    let price_scale = max_scale(&|c| [c.open, c.high, c.low, c.close]);
    let volume_scale = max_scale(&|c| [c.volume; 4]);
    let common = |i: usize| if i == 4 { volume_scale } else { price_scale };
    let fits = present.iter().all(|c| {
        values(c)
            .iter()
            .enumerate()
            .all(|(i, d)| rescaled(d.mantissa(), d.scale(), common(i)).is_some())
    });
    let own = !fits;
    let masks = own
        || present.iter().any(|c| {
            values(c)
                .iter()
                .enumerate()
                .any(|(i, d)| d.scale() != common(i))
        });

    let mut out = Vec::with_capacity(HEADER + BITMAP + present.len() * 8);
    let scale_byte = |s: u32| if own { OWN_SCALES } else { s as u8 };
    out.extend([
        VERSION,
        scale_byte(price_scale),
        scale_byte(volume_scale),
        if masks { SCALE_MASKS } else { 0 },
    ]);
    let mut bitmap = [0u8; BITMAP];
    for (i, slot) in slots.iter().enumerate().take(MINUTES_A_DAY) {
        if slot.is_some() {
            bitmap[i / 8] |= 1 << (i % 8);
        }
    }
    out.extend(bitmap);
    let (mut prev_close, mut prev_volume) = (0i128, 0i128);
    for c in present {
        let vals = values(c);
        if masks {
            let mask = (0..5)
                .filter(|&i| own || vals[i].scale() != common(i))
                .fold(0u8, |m, i| m | 1 << i);
            out.push(mask);
            for (i, d) in vals.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    out.push(d.scale() as u8);
                }
            }
        }
        let m: Vec<i128> = vals
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if own {
                    d.mantissa()
                } else {
                    rescaled(d.mantissa(), d.scale(), common(i)).unwrap_or_default()
                }
            })
            .collect();
        push_varint(&mut out, m[0].wrapping_sub(prev_close));
        push_varint(&mut out, m[1].wrapping_sub(m[0]));
        push_varint(&mut out, m[2].wrapping_sub(m[0]));
        push_varint(&mut out, m[3].wrapping_sub(m[0]));
        push_varint(&mut out, m[4].wrapping_sub(prev_volume));
        (prev_close, prev_volume) = (m[3], m[4]);
    }
    out
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.data.get(self.at).ok_or("ends early")?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<i128, String> {
        // Most deltas fit a u64: read those without 128-bit shifts.
        let mut z: u64 = 0;
        for shift in (0..63).step_by(7) {
            let b = self.byte()?;
            z |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(((z >> 1) as i128) ^ -((z & 1) as i128));
            }
        }
        let mut z = u128::from(z);
        for shift in (63..128).step_by(7) {
            let b = self.byte()?;
            z |= u128::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(((z >> 1) as i128) ^ -((z & 1) as i128));
            }
        }
        Err("a varint runs past 128 bits".into())
    }
}

/// The decimal `m` x 10^-`scale`, built from its parts (`Decimal::try_from_i128_with_scale`
/// checks the same, several times slower).
fn decimal(m: i128, scale: u32) -> Result<Decimal, String> {
    let a = m.unsigned_abs();
    if scale > 28 || a >> 96 != 0 {
        return Err(format!("{m} at scale {scale} is no decimal"));
    }
    Ok(Decimal::from_parts(
        a as u32,
        (a >> 32) as u32,
        (a >> 64) as u32,
        m < 0,
        scale,
    ))
}

/// `m` divided by 10^`shift`, which must leave no remainder (in u64 when it fits).
fn unscaled(m: i128, shift: u32) -> Result<i128, String> {
    let a = m.unsigned_abs();
    let q = match (u64::try_from(a), 10u64.checked_pow(shift)) {
        (Ok(a), Some(div)) if a.is_multiple_of(div) => u128::from(a / div),
        (Ok(_), Some(_)) => return Err("a value finer than its own scale".into()),
        _ => {
            let div = 10u128.checked_pow(shift).ok_or("a scale out of range")?;
            if !a.is_multiple_of(div) {
                return Err("a value finer than its own scale".into());
            }
            a / div
        }
    };
    Ok(if m < 0 { -(q as i128) } else { q as i128 })
}

/// Calls `each` with every candle of a day (starting `day * DAY_MS`) in `data`, oldest first.
pub(crate) fn decode_each(
    day: i64,
    data: &[u8],
    mut each: impl FnMut(Candle),
) -> Result<(), String> {
    if data.len() < HEADER + BITMAP || data[0] != VERSION {
        return Err(format!(
            "a day of {} bytes, version {:?}",
            data.len(),
            data.first()
        ));
    }
    let (price_scale, volume_scale, flags) = (data[1], data[2], data[3]);
    let own = price_scale == OWN_SCALES;
    let bitmap = &data[HEADER..HEADER + BITMAP];
    let mut r = Reader {
        data,
        at: HEADER + BITMAP,
    };
    let (mut prev_close, mut prev_volume) = (0i128, 0i128);
    let day_ms = day * DAY_MS;
    for minute in (0..MINUTES_A_DAY).filter(|i| bitmap[i / 8] & (1 << (i % 8)) != 0) {
        let common = |i: usize| u32::from(if i == 4 { volume_scale } else { price_scale });
        let mut scales = [0u32; 5];
        let mask = if flags & SCALE_MASKS != 0 {
            r.byte()?
        } else {
            0
        };
        for (i, s) in scales.iter_mut().enumerate() {
            *s = if mask & (1 << i) != 0 {
                u32::from(r.byte()?)
            } else if own {
                return Err("a value without its scale".into());
            } else {
                common(i)
            };
        }
        let open = prev_close.wrapping_add(r.varint()?);
        let high = open.wrapping_add(r.varint()?);
        let low = open.wrapping_add(r.varint()?);
        let close = open.wrapping_add(r.varint()?);
        let volume = prev_volume.wrapping_add(r.varint()?);
        (prev_close, prev_volume) = (close, volume);
        let dec = |i: usize, m: i128| -> Result<Decimal, String> {
            if own || scales[i] == common(i) {
                return decimal(m, scales[i]);
            }
            let shift = common(i)
                .checked_sub(scales[i])
                .ok_or("an own scale above the common one")?;
            decimal(unscaled(m, shift)?, scales[i])
        };
        each(Candle {
            open_time_ms: day_ms + minute as i64 * MINUTE_MS,
            open: dec(0, open)?,
            high: dec(1, high)?,
            low: dec(2, low)?,
            close: dec(3, close)?,
            volume: dec(4, volume)?,
        });
    }
    if r.at != data.len() {
        return Err("bytes left after the last minute".into());
    }
    Ok(())
}

/// The day's slots from its binary form.
pub(crate) fn decode(day: i64, data: &[u8]) -> Result<Slots, String> {
    let mut slots = empty_day();
    decode_each(day, data, |c| {
        let i = ((c.open_time_ms - day * DAY_MS) / MINUTE_MS) as usize;
        slots[i] = Some(c);
    })?;
    Ok(slots)
}

/// The first and last present minutes of the slots (open times), if any.
pub(crate) fn first_and_last(day: i64, slots: &[Option<Candle>]) -> Option<(i64, i64)> {
    let at = |i: usize| day * DAY_MS + i as i64 * MINUTE_MS;
    let first = slots.iter().position(Option::is_some)?;
    let last = slots.iter().rposition(Option::is_some)?;
    Some((at(first), at(last)))
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn candle(day: i64, minute: i64, o: &str, h: &str, l: &str, c: &str, v: &str) -> Candle {
        Candle {
            open_time_ms: day * DAY_MS + minute * MINUTE_MS,
            open: d(o),
            high: d(h),
            low: d(l),
            close: d(c),
            volume: d(v),
        }
    }

    /// Equal values and equal text: the scale is kept too.
    fn assert_same(a: &[Option<Candle>], b: &[Option<Candle>]) {
        assert_eq!(a, b);
        for (x, y) in a
            .iter()
            .zip(b)
            .filter_map(|(x, y)| x.as_ref().zip(y.as_ref()))
        {
            assert_eq!(
                [x.open, x.high, x.low, x.close, x.volume].map(|v| v.to_string()),
                [y.open, y.high, y.low, y.close, y.volume].map(|v| v.to_string())
            );
        }
    }

    fn round_trip(day: i64, candles: Vec<Candle>) -> Vec<u8> {
        let mut slots = empty_day();
        for c in candles {
            let slot = slot_of(day, c.open_time_ms).unwrap();
            slots[slot] = Some(c);
        }
        let data = encode(&slots);
        assert_same(&decode(day, &data).unwrap(), &slots);
        data
    }

    #[test]
    fn odd_ticks_scales_gaps_and_signs_come_back_exactly() {
        let day = 20_000;
        round_trip(
            day,
            vec![
                candle(day, 0, "0.3152", "0.3160", "0.3150", "0.31505", "1200"),
                // a gap of two minutes, then text with a scale of its own
                candle(day, 3, "0.3", "0.31", "0.2999999999", "0.3", "0.001"),
                candle(
                    day,
                    4,
                    "-1.5",
                    "0",
                    "-2",
                    "1e-8",
                    "79228162514264337593543950335",
                ),
                candle(day, 1439, "100000", "100000.5", "99999.25", "100000", "0"),
            ],
        );
        // values that cannot share one scale inside an i128
        let data = round_trip(
            day,
            vec![
                candle(day, 10, "79228162514264337593543950335", "1", "1", "1", "1"),
                candle(
                    day,
                    11,
                    "0.0000000000000000000000000001",
                    "1",
                    "1",
                    "1",
                    "1",
                ),
            ],
        );
        assert_eq!(data[1], OWN_SCALES);
        round_trip(day, Vec::new());
        round_trip(-3, vec![candle(-3, 7, "1", "1", "1", "1", "1")]);
    }

    #[test]
    fn a_full_day_of_ticks_is_small() {
        let day = 20_000;
        let candles: Vec<Candle> = (0..1440)
            .map(|m| {
                let p = format!("{}.{:02}", 60_000 + m % 37, m % 100);
                candle(day, m, &p, &p, &p, &p, &format!("{}.{}", m * 3, m % 10))
            })
            .collect();
        let data = round_trip(day, candles);
        // about 12 bytes a minute against about 60 as text
        assert!(data.len() < 1440 * 14, "{}", data.len());
    }

    #[test]
    fn a_broken_day_is_an_error_not_a_panic() {
        let day = 20_000;
        let mut slots = empty_day();
        slots[5] = Some(candle(day, 5, "1.5", "2", "1", "1.25", "3"));
        let data = encode(&slots);
        for cut in 0..data.len() {
            assert!(decode(day, &data[..cut]).is_err(), "{cut}");
        }
        let mut longer = data.clone();
        longer.push(0);
        assert!(decode(day, &longer).is_err());
        let mut other_version = data;
        other_version[0] = 9;
        assert!(decode(day, &other_version).is_err());
    }

    #[test]
    fn only_whole_minutes_of_the_day_have_a_slot() {
        assert_eq!(slot_of(1, DAY_MS), Some(0));
        assert_eq!(slot_of(1, 2 * DAY_MS - MINUTE_MS), Some(1439));
        assert_eq!(slot_of(1, DAY_MS + 1), None);
        assert_eq!(slot_of(1, 2 * DAY_MS), None);
        assert_eq!(day_of(-1), -1);
    }
}
