//! When the daily summary is due: the next 00:00 on the user's wall clock.

use chrono::{DateTime, Days, LocalResult, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;

/// The first instant strictly after `now_utc` at which the clock in `tz` shows 00:00.
///
/// Days that are 23 or 25 hours long (daylight saving changes) are counted on the local
/// calendar, not as 24 hours from the previous midnight. Where midnight happens twice (the
/// clock goes back over it) the first one counts; where it does not happen at all (the clock
/// jumps from 23:59:59 to 01:00, as in Asia/Beirut or America/Santiago) the answer is the
/// instant of the jump, the first moment of that local day.
pub fn next_local_midnight(now_utc: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
    let mut date = now_utc.with_timezone(&tz).date_naive();
    // Normally the first pass answers; the loop only guards against a zone whose midnight
    // resolves to an instant not after `now_utc`.
    for _ in 0..3 {
        date = match date.checked_add_days(Days::new(1)) {
            Some(next) => next,
            None => break,
        };
        let midnight = date.and_time(NaiveTime::MIN);
        if let Some(at) = first_instant_at_or_after(tz, midnight) {
            if at > now_utc {
                return at;
            }
        }
    }
    // Out of chrono's calendar range, or a zone without a midnight in three days: a day on.
    now_utc + TimeDelta::days(1)
}

/// The earliest instant whose local time in `tz` is `local` or, if `local` falls in a gap,
/// the end of that gap.
fn first_instant_at_or_after(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
        LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
        LocalResult::None => {
            // The gap starts at `local` or before it and lasts at most a day (Samoa skipped
            // one). The answer is the instant of the jump, the first one whose local reading
            // is past `local`: find it by bisection over whole seconds (zone changes happen
            // on whole seconds) between an instant before the gap and one after it.
            let reads_before = |ts: i64| match DateTime::from_timestamp(ts, 0) {
                Some(at) => at.with_timezone(&tz).naive_local() < local,
                None => false,
            };
            let target = local.and_utc().timestamp();
            let (mut before, mut after) = (target - SECONDS_PER_DAY, target + SECONDS_PER_DAY);
            if !reads_before(before) || reads_before(after) {
                return None;
            }
            // Invariant: local(before) < local <= local(after).
            while after - before > 1 {
                let mid = before + (after - before) / 2;
                if reads_before(mid) {
                    before = mid;
                } else {
                    after = mid;
                }
            }
            DateTime::from_timestamp(after, 0)
        }
    }
}

const SECONDS_PER_DAY: i64 = 24 * 60 * 60;

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn utc_midnight_is_the_next_day() {
        let tz: Tz = "UTC".parse().unwrap();
        assert_eq!(
            next_local_midnight(utc("2025-06-01T12:00:00Z"), tz),
            utc("2025-06-02T00:00:00Z")
        );
        assert_eq!(
            next_local_midnight(utc("2025-06-01T00:00:00Z"), tz),
            utc("2025-06-02T00:00:00Z")
        );
    }

    #[test]
    fn a_midnight_gap_starts_the_day_at_the_jump() {
        // Chile moves its clocks from 24:00 to 01:00 on the first Saturday night of September.
        let tz: Tz = "America/Santiago".parse().unwrap();
        assert_eq!(
            next_local_midnight(utc("2025-09-06T12:00:00Z"), tz),
            utc("2025-09-07T04:00:00Z")
        );
    }
}
