//! Statistics over closed trades. Pure functions of plain values, so every figure the
//! dashboard shows can be checked by hand.

use std::collections::BTreeMap;

use chrono::{
    DateTime, Datelike, Days, Months, NaiveDate, NaiveTime, Offset, TimeZone, Timelike, Utc,
};
use chrono_tz::Tz;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::Serialize;

/// The live statistics card and the `statistics` websocket message (spec section 3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LiveStatistics {
    pub total_trades: u64,
    /// Trades closed with pnl > 0.
    pub winning_trades: u64,
    /// Trades closed with pnl <= 0.
    pub losing_trades: u64,
    /// Percent of trades that won, 0 when there are none.
    pub win_rate: f64,
    pub total_profit: f64,
    pub average_profit: f64,
    /// Largest peak-to-trough fall of the equity curve, in percent of the peak.
    pub max_drawdown: f64,
}

/// Win/loss counts and profit of `pnls` (one per closed trade), and the drawdown of
/// `equity_curve` (account equity over time, oldest first).
pub fn live_statistics(pnls: &[Decimal], equity_curve: &[Decimal]) -> LiveStatistics {
    let total_trades = pnls.len() as u64;
    let winning_trades = pnls.iter().filter(|p| **p > Decimal::ZERO).count() as u64;
    let total: Decimal = pnls.iter().sum();
    let as_f64 = |d: Decimal| d.to_f64().unwrap_or(0.0);
    LiveStatistics {
        total_trades,
        winning_trades,
        losing_trades: total_trades - winning_trades,
        win_rate: if total_trades == 0 {
            0.0
        } else {
            winning_trades as f64 * 100.0 / total_trades as f64
        },
        total_profit: as_f64(total),
        average_profit: if total_trades == 0 {
            0.0
        } else {
            as_f64(total / Decimal::from(total_trades))
        },
        max_drawdown: as_f64(max_drawdown_pct(equity_curve)),
    }
}

/// The largest fall from a running peak to a later trough, in percent of that peak; zero
/// for a curve that never falls (or never rises above zero).
pub fn max_drawdown_pct(equity_curve: &[Decimal]) -> Decimal {
    let mut peak: Option<Decimal> = None;
    let mut worst = Decimal::ZERO;
    for &equity in equity_curve {
        let top = match peak {
            Some(p) if p >= equity => p,
            _ => {
                peak = Some(equity);
                equity
            }
        };
        if top > Decimal::ZERO {
            let fall = (top - equity) * Decimal::ONE_HUNDRED / top;
            worst = worst.max(fall);
        }
    }
    worst
}

/// A period of the `/stats` page (spec section 2, DESIGN.md section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    All,
    /// From the start of yesterday (local) to now.
    Day,
    /// From the start of the day 3 days ago to now.
    ThreeDays,
    /// From the start of the day 7 days ago to now.
    Week,
    /// From the start of the day 30 days ago to now (the /statistics page's "30d").
    ThirtyDays,
    /// From the first day of this calendar month, 00:00 local, to now.
    Month,
    /// `from` 00:00 to the end of `to`, both local and inclusive.
    Custom {
        from: NaiveDate,
        to: NaiveDate,
    },
    /// A custom period with only `date_from`: from that day's 00:00 (local) to now.
    Since(NaiveDate),
    /// A custom period with only `date_to`: everything up to the end of that day (local).
    Until(NaiveDate),
}

/// Why a period query was refused; each reads as a sentence for a 400 answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeriodError {
    #[error("period must be all, 24h, 3d, 7d, month or custom.")]
    UnknownPeriod,
    #[error("period must be 24h, 7d, 30d or all.")]
    UnknownLivePeriod,
    #[error("{0} must be a date written YYYY-MM-DD.")]
    BadDate(&'static str),
    #[error("date_from must not be after date_to.")]
    Reversed,
}

/// A query value, or `None` when it is absent or only spaces, tabs and line breaks (a form
/// sends an unfilled field empty). The OpenAPI document's blank pattern, `^[ \t\r\n]*$`,
/// is this set exactly: Unicode's wider whitespace (U+0085, U+00A0) is a malformed value.
pub fn blank(v: Option<&str>) -> Option<&str> {
    v.map(|v| v.trim_matches([' ', '\t', '\r', '\n']))
        .filter(|v| !v.is_empty())
}

/// A `YYYY-MM-DD` query value; `field` names it in the error.
pub fn parse_date(field: &'static str, value: &str) -> Result<NaiveDate, PeriodError> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| PeriodError::BadDate(field))
}

impl Period {
    /// The `period` query value (default `month`) with its dates; the dates only count
    /// for `custom`. The page sends them only when both are filled, so `custom` without
    /// dates is the whole history (like `all`); one date alone bounds that side only.
    /// Refused: a malformed date, or a range that ends before it starts.
    pub fn parse(
        period: Option<&str>,
        date_from: Option<&str>,
        date_to: Option<&str>,
    ) -> Result<Period, PeriodError> {
        // A date given is checked whatever the period, so a typo never passes unseen; an
        // empty one is no date (the app sends them only with Custom, both filled).
        let from = blank(date_from)
            .map(|v| parse_date("date_from", v))
            .transpose()?;
        let to = blank(date_to)
            .map(|v| parse_date("date_to", v))
            .transpose()?;
        Ok(match blank(period).unwrap_or("month") {
            "all" => Period::All,
            "24h" => Period::Day,
            "3d" => Period::ThreeDays,
            "7d" => Period::Week,
            "month" => Period::Month,
            "custom" => match (from, to) {
                (Some(from), Some(to)) if from > to => return Err(PeriodError::Reversed),
                (Some(from), Some(to)) => Period::Custom { from, to },
                (Some(from), None) => Period::Since(from),
                (None, Some(to)) => Period::Until(to),
                (None, None) => Period::All,
            },
            _ => return Err(PeriodError::UnknownPeriod),
        })
    }

    /// The /statistics page's `period` value: `24h`, `7d`, `30d` or `all` (the default).
    pub fn parse_live(period: Option<&str>) -> Result<Period, PeriodError> {
        Ok(match blank(period).unwrap_or("all") {
            "all" => Period::All,
            "24h" => Period::Day,
            "7d" => Period::Week,
            "30d" => Period::ThirtyDays,
            _ => return Err(PeriodError::UnknownLivePeriod),
        })
    }

    /// The period as a UTC range `[from_ms, to_ms)` of close times, at `now` in `tz`.
    /// Open-ended periods end just after `now`.
    pub fn range(self, now: DateTime<Utc>, tz: Tz) -> (i64, i64) {
        let today = now.with_timezone(&tz).date_naive();
        let end = now.timestamp_millis() + 1;
        let days_back = |n: u64| local_day_start(today - Days::new(n), tz);
        match self {
            Period::All => (i64::MIN, end),
            Period::Day => (days_back(1), end),
            Period::ThreeDays => (days_back(3), end),
            Period::Week => (days_back(7), end),
            Period::ThirtyDays => (days_back(30), end),
            Period::Month => (local_day_start(today.with_day(1).unwrap_or(today), tz), end),
            Period::Custom { from, to } => local_dates_range(from, to, tz),
            Period::Since(from) => (local_day_start(from, tz), end),
            Period::Until(to) => (i64::MIN, local_dates_range(to, to, tz).1),
        }
    }
}

/// `[start of from, start of the day after to)` in `tz`, as UTC ms: both dates inclusive.
pub fn local_dates_range(from: NaiveDate, to: NaiveDate, tz: Tz) -> (i64, i64) {
    let after = to.succ_opt().unwrap_or(to);
    (local_day_start(from, tz), local_day_start(after, tz))
}

/// The first instant of `date` in `tz`, as UTC ms. DST-safe: an ambiguous midnight takes
/// its earlier instant; a midnight skipped by a clock change takes the first local time
/// that exists that day.
pub fn local_day_start(date: NaiveDate, tz: Tz) -> i64 {
    let mut time = date.and_time(NaiveTime::MIN);
    // Gaps are at most a few hours; step in quarter hours until the wall time exists.
    for _ in 0..(4 * 24) {
        if let Some(t) = tz.from_local_datetime(&time).earliest() {
            return t.timestamp_millis();
        }
        time += chrono::Duration::minutes(15);
    }
    date.and_time(NaiveTime::MIN).and_utc().timestamp_millis()
}

/// One weekday or hour bucket of the Stats response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BucketStats {
    pub pnl: f64,
    /// Trades won (pnl > 0).
    pub success: u64,
    /// Trades lost (pnl <= 0).
    pub fail: u64,
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeekdayRow {
    /// 1 = Sunday ... 7 = Saturday, in the user's zone.
    pub weekday: u32,
    #[serde(flatten)]
    pub stats: BucketStats,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HourRow {
    /// 0 to 23, in the user's zone.
    pub hour: u32,
    #[serde(flatten)]
    pub stats: BucketStats,
}

/// The `/api/stats/` answer (spec section 3, Stats response).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PeriodStats {
    pub total_trades: u64,
    pub win_trades: u64,
    pub lose_trades: u64,
    /// Percent, 0 when there are no trades.
    pub win_rate: f64,
    pub total_pnl: f64,
    pub avg_pnl: f64,
    /// Only weekdays with trades, by weekday number.
    pub weekday: Vec<WeekdayRow>,
    /// Only hours with trades, by hour.
    pub hour: Vec<HourRow>,
    /// Only weekday x hour cells with trades, by weekday then hour.
    pub heatmap: Vec<HeatmapCell>,
    /// The period's cumulative pnl, oldest first.
    pub equity: Vec<EquityPoint>,
}

/// Closed trades that share one local weekday and hour: one trade, or every trade one user
/// closed in one UTC quarter hour (the store's rollup). All figures are computed from these,
/// so a rollup of a million trades and the trades one by one give the same answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClosedTally {
    /// The close time (or the start of the quarter hour), UTC milliseconds.
    pub at_ms: i64,
    pub trades: u64,
    /// Trades with pnl > 0.
    pub wins: u64,
    /// Sum of net pnl.
    pub pnl: Decimal,
}

impl ClosedTally {
    /// One closed trade.
    pub fn trade(closed_at_ms: i64, pnl: Decimal) -> ClosedTally {
        ClosedTally {
            at_ms: closed_at_ms,
            trades: 1,
            wins: u64::from(pnl > Decimal::ZERO),
            pnl,
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    pnl: Decimal,
    wins: u64,
    total: u64,
}

impl Tally {
    fn add(&mut self, t: &ClosedTally) {
        self.pnl += t.pnl;
        self.total += t.trades;
        self.wins += t.wins;
    }

    fn win_rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.wins as f64 * 100.0 / self.total as f64
        }
    }

    fn bucket(&self) -> BucketStats {
        BucketStats {
            pnl: to_f64(self.pnl),
            success: self.wins,
            fail: self.total - self.wins,
            total: self.total,
        }
    }
}

fn to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// Every UTC offset in use is a whole number of quarter hours, so all instants of one UTC
/// quarter hour share a local weekday and hour; sorted input reuses the last conversion.
const QUARTER_HOUR_MS: i64 = 15 * 60 * 1000;

/// Converts close times to local time, once per UTC quarter hour for sorted input.
struct LocalClock {
    tz: Tz,
    cached: Option<(i64, DateTime<Tz>)>,
}

impl LocalClock {
    fn new(tz: Tz) -> LocalClock {
        LocalClock { tz, cached: None }
    }

    /// The local time of the start of `at_ms`'s quarter hour (same date, weekday and hour).
    fn local(&mut self, at_ms: i64) -> DateTime<Tz> {
        let quarter = at_ms.div_euclid(QUARTER_HOUR_MS);
        match self.cached {
            Some((q, local)) if q == quarter => local,
            _ => {
                let local = DateTime::from_timestamp_millis(quarter * QUARTER_HOUR_MS)
                    .unwrap_or_default()
                    .with_timezone(&self.tz);
                self.cached = Some((quarter, local));
                local
            }
        }
    }
}

/// Quarter hours in a week: a UTC quarter hour's slot of the week is `quarter % 672`.
pub const QUARTERS_PER_WEEK: i64 = 7 * 24 * 4;

/// `[from_ms, to_ms)` cut where `tz`'s UTC offset changes, as quarter-hour-aligned spans of
/// constant offset (DST changes happen on a quarter hour). Within one span a UTC quarter
/// hour's slot of the week fixes its local weekday and hour, so a period's weekday and hour
/// figures can be summed per slot and span instead of per quarter hour.
pub fn constant_offset_spans(tz: Tz, from_ms: i64, to_ms: i64) -> Vec<(i64, i64)> {
    const DAY_MS: i64 = 24 * 60 * 60 * 1000;
    let offset = |ms: i64| {
        DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .with_timezone(&tz)
            .offset()
            .fix()
            .local_minus_utc()
    };
    let mut spans = Vec::new();
    if from_ms >= to_ms {
        return spans;
    }
    let mut start = from_ms.div_euclid(QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
    let mut probe = start;
    while probe < to_ms {
        let next = (probe + DAY_MS).min(to_ms);
        let current = offset(probe);
        if offset(next) == current || next == to_ms && offset(to_ms - 1) == current {
            probe = next;
            continue;
        }
        // The offset changes in (probe, next]: find its first quarter hour.
        let (mut low, mut high) = (probe, next.div_euclid(QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
        while high - low > QUARTER_HOUR_MS {
            let mid = low + (high - low) / 2 / QUARTER_HOUR_MS * QUARTER_HOUR_MS;
            if offset(mid) == current {
                low = mid;
            } else {
                high = mid;
            }
        }
        spans.push((start, high));
        start = high;
        probe = high;
    }
    if start < to_ms {
        spans.push((start, to_ms));
    }
    spans
}

/// One cell of the weekday x hour heatmap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeatmapCell {
    /// 1 = Sunday ... 7 = Saturday, in the user's zone.
    pub weekday: u32,
    /// 0 to 23, in the user's zone.
    pub hour: u32,
    pub pnl: f64,
    pub total: u64,
}

/// A point of the equity curve: the period's cumulative pnl up to `at_ms`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EquityPoint {
    pub at_ms: i64,
    pub pnl: f64,
}

/// The most points the equity curve has, whatever the number of trades.
pub const MAX_EQUITY_POINTS: usize = 500;

/// The Stats response over closed trades (spec section 3) plus the heatmap of the /stats
/// page; the equity curve is left empty for [`equity_curve`]. Any order of `tallies` works;
/// time order reuses local-time conversions.
pub fn period_stats(tallies: &[ClosedTally], tz: Tz) -> PeriodStats {
    let mut clock = LocalClock::new(tz);
    let mut all = Tally::default();
    let mut cells = [[Tally::default(); 24]; 7];
    for t in tallies {
        let local = clock.local(t.at_ms);
        let weekday = local.weekday().num_days_from_sunday() as usize;
        all.add(t);
        cells[weekday][local.hour() as usize].add(t);
    }
    let weekday_total = |w: usize| {
        cells[w].iter().fold(Tally::default(), |mut sum, c| {
            sum.pnl += c.pnl;
            sum.wins += c.wins;
            sum.total += c.total;
            sum
        })
    };
    let hour_total = |h: usize| {
        (0..7).fold(Tally::default(), |mut sum, w| {
            sum.pnl += cells[w][h].pnl;
            sum.wins += cells[w][h].wins;
            sum.total += cells[w][h].total;
            sum
        })
    };
    PeriodStats {
        total_trades: all.total,
        win_trades: all.wins,
        lose_trades: all.total - all.wins,
        win_rate: all.win_rate(),
        total_pnl: to_f64(all.pnl),
        avg_pnl: if all.total == 0 {
            0.0
        } else {
            to_f64(all.pnl / Decimal::from(all.total))
        },
        weekday: (0..7)
            .map(|w| (w, weekday_total(w)))
            .filter(|(_, t)| t.total > 0)
            .map(|(w, t)| WeekdayRow {
                weekday: w as u32 + 1,
                stats: t.bucket(),
            })
            .collect(),
        hour: (0..24)
            .map(|h| (h, hour_total(h)))
            .filter(|(_, t)| t.total > 0)
            .map(|(h, t)| HourRow {
                hour: h as u32,
                stats: t.bucket(),
            })
            .collect(),
        heatmap: (0..7)
            .flat_map(|w| (0..24).map(move |h| (w, h)))
            .filter(|&(w, h)| cells[w][h].total > 0)
            .map(|(w, h)| HeatmapCell {
                weekday: w as u32 + 1,
                hour: h as u32,
                pnl: to_f64(cells[w][h].pnl),
                total: cells[w][h].total,
            })
            .collect(),
        equity: Vec::new(),
    }
}

/// Cumulative pnl after each tally, thinned to at most [`MAX_EQUITY_POINTS`] by keeping the
/// last point of every run of equal length (so the final point is always the period's total).
pub fn equity_curve(tallies: &[ClosedTally]) -> Vec<EquityPoint> {
    let chunk = tallies.len().div_ceil(MAX_EQUITY_POINTS).max(1);
    let mut level = Decimal::ZERO;
    let mut points = Vec::with_capacity(tallies.len().min(MAX_EQUITY_POINTS));
    for run in tallies.chunks(chunk) {
        level += run.iter().map(|t| t.pnl).sum::<Decimal>();
        if let Some(last) = run.last() {
            points.push(EquityPoint {
                at_ms: last.at_ms,
                pnl: to_f64(level),
            });
        }
    }
    points
}

/// How `/api/stats/daily/`, `/weekly/` and `/monthly/` group trades.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    /// `2026-11-23`
    Day,
    /// ISO week, `2026-W48`
    IsoWeek,
    /// `2026-11`
    Month,
}

impl Granularity {
    fn label(self, date: NaiveDate) -> String {
        match self {
            Granularity::Day => date.format("%Y-%m-%d").to_string(),
            Granularity::IsoWeek => {
                let week = date.iso_week();
                format!("{}-W{:02}", week.year(), week.week())
            }
            Granularity::Month => date.format("%Y-%m").to_string(),
        }
    }

    /// The default first day shown: the last 30 days, 12 ISO weeks or 12 months,
    /// `today`'s one included.
    pub fn default_start(self, today: NaiveDate) -> NaiveDate {
        match self {
            Granularity::Day => today - Days::new(29),
            Granularity::IsoWeek => {
                let monday = today - Days::new(u64::from(today.weekday().num_days_from_monday()));
                monday - Days::new(7 * 11)
            }
            Granularity::Month => {
                let first = today.with_day(1).unwrap_or(today);
                first.checked_sub_months(Months::new(11)).unwrap_or(first)
            }
        }
    }
}

/// One row of the daily, weekly or monthly statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeriodRow {
    /// The day, ISO week or month, in the user's zone.
    pub period: String,
    pub pnl: f64,
    pub trades: u64,
    /// Percent of the period's trades that won.
    pub win_rate: f64,
}

/// Closed trades grouped by local day, ISO week or month; only periods with trades, oldest
/// first. `tallies` must be in time order.
pub fn grouped_stats(tallies: &[ClosedTally], tz: Tz, by: Granularity) -> Vec<PeriodRow> {
    let mut clock = LocalClock::new(tz);
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    let mut last: Option<(NaiveDate, String)> = None;
    for t in tallies {
        let date = clock.local(t.at_ms).date_naive();
        let label = match &last {
            Some((d, l)) if *d == date => l.clone(),
            _ => {
                let l = by.label(date);
                last = Some((date, l.clone()));
                l
            }
        };
        groups.entry(label).or_default().add(t);
    }
    groups
        .into_iter()
        .map(|(period, t)| PeriodRow {
            period,
            pnl: to_f64(t.pnl),
            trades: t.total,
            win_rate: t.win_rate(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn no_trades_is_all_zero() {
        assert_eq!(live_statistics(&[], &[]), LiveStatistics::default());
    }

    #[test]
    fn zero_pnl_counts_as_a_loss() {
        let s = live_statistics(&[dec!(10), dec!(0), dec!(-4), dec!(2)], &[]);
        assert_eq!(s.total_trades, 4);
        assert_eq!(s.winning_trades, 2);
        assert_eq!(s.losing_trades, 2);
        assert_eq!(s.win_rate, 50.0);
        assert_eq!(s.total_profit, 8.0);
        assert_eq!(s.average_profit, 2.0);
    }

    #[test]
    fn drawdown_is_the_deepest_fall_from_a_running_peak() {
        // Peak 120, trough 90: 25 %; the later fall from 150 to 135 is only 10 %.
        let curve = [
            dec!(100),
            dec!(120),
            dec!(90),
            dec!(110),
            dec!(150),
            dec!(135),
        ];
        assert_eq!(max_drawdown_pct(&curve), dec!(25));
        assert_eq!(max_drawdown_pct(&[dec!(1), dec!(2), dec!(3)]), dec!(0));
        assert_eq!(max_drawdown_pct(&[]), dec!(0));
    }

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn ms(s: &str) -> i64 {
        utc(s).timestamp_millis()
    }

    #[test]
    fn periods_parse_with_month_by_default_and_custom_refusing_only_bad_dates() {
        assert_eq!(Period::parse(None, None, None), Ok(Period::Month));
        assert_eq!(Period::parse(Some("24h"), None, None), Ok(Period::Day));
        assert_eq!(
            Period::parse(Some("year"), None, None),
            Err(PeriodError::UnknownPeriod)
        );
        // Custom without dates is the whole history; one date bounds one side.
        assert_eq!(Period::parse(Some("custom"), None, None), Ok(Period::All));
        assert_eq!(
            Period::parse(Some("custom"), Some(""), Some(" ")),
            Ok(Period::All)
        );
        assert_eq!(
            Period::parse(Some("month"), None, Some("soon")),
            Err(PeriodError::BadDate("date_to"))
        );
        let nov = |d| NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
        assert_eq!(
            Period::parse(Some("custom"), Some("2026-11-01"), None),
            Ok(Period::Since(nov(1)))
        );
        assert_eq!(
            Period::parse(Some("custom"), None, Some("2026-11-05")),
            Ok(Period::Until(nov(5)))
        );
        assert_eq!(
            Period::parse(Some("custom"), None, Some("05.11.2026")),
            Err(PeriodError::BadDate("date_to"))
        );
        assert_eq!(
            Period::parse(Some("custom"), Some("2026-11-31"), Some("2026-12-01")),
            Err(PeriodError::BadDate("date_from"))
        );
        assert_eq!(
            Period::parse(Some("custom"), Some("2026-11-05"), Some("2026-11-01")),
            Err(PeriodError::Reversed)
        );
    }

    #[test]
    fn whole_days_back_start_at_local_midnight() {
        let tz = chrono_tz::Asia::Tokyo;
        // 2026-11-23 10:00 in Tokyo.
        let now = utc("2026-11-23T01:00:00Z");
        let end = now.timestamp_millis() + 1;
        assert_eq!(
            Period::Day.range(now, tz),
            (ms("2026-11-21T15:00:00Z"), end)
        );
        assert_eq!(
            Period::ThreeDays.range(now, tz).0,
            ms("2026-11-19T15:00:00Z")
        );
        assert_eq!(Period::Week.range(now, tz).0, ms("2026-11-15T15:00:00Z"));
        assert_eq!(Period::Month.range(now, tz).0, ms("2026-10-31T15:00:00Z"));
        let custom = Period::Custom {
            from: NaiveDate::from_ymd_opt(2026, 11, 2).unwrap(),
            to: NaiveDate::from_ymd_opt(2026, 11, 3).unwrap(),
        };
        assert_eq!(
            custom.range(now, tz),
            (ms("2026-11-01T15:00:00Z"), ms("2026-11-03T15:00:00Z"))
        );
        let nov2 = NaiveDate::from_ymd_opt(2026, 11, 2).unwrap();
        assert_eq!(
            Period::Since(nov2).range(now, tz),
            (ms("2026-11-01T15:00:00Z"), end)
        );
        assert_eq!(
            Period::Until(nov2).range(now, tz),
            (i64::MIN, ms("2026-11-02T15:00:00Z"))
        );
    }

    #[test]
    fn period_start_across_a_dst_change_in_berlin() {
        let tz = chrono_tz::Europe::Berlin;
        // Clocks went back on 2026-10-25: the 24 h period on the 26th starts at midnight
        // CEST (UTC+2) of the 25th, the day itself lasting 25 hours.
        let now = utc("2026-10-26T09:00:00Z");
        assert_eq!(Period::Day.range(now, tz).0, ms("2026-10-24T22:00:00Z"));
        // The 3 days back start on the 23rd, still summer time; "this month" too.
        assert_eq!(
            Period::ThreeDays.range(now, tz).0,
            ms("2026-10-22T22:00:00Z")
        );
        assert_eq!(Period::Month.range(now, tz).0, ms("2026-09-30T22:00:00Z"));
        // Spring forward on 2026-03-29: the 30th starts at midnight CEST.
        let d = |m, day| NaiveDate::from_ymd_opt(2026, m, day).unwrap();
        assert_eq!(local_day_start(d(3, 29), tz), ms("2026-03-28T23:00:00Z"));
        assert_eq!(local_day_start(d(3, 30), tz), ms("2026-03-29T22:00:00Z"));
    }

    #[test]
    fn a_skipped_midnight_starts_the_day_at_its_first_existing_minute() {
        // Santiago skipped 00:00 to 01:00 on 2026-09-06.
        let tz = chrono_tz::America::Santiago;
        let day = NaiveDate::from_ymd_opt(2026, 9, 6).unwrap();
        assert_eq!(local_day_start(day, tz), ms("2026-09-06T04:00:00Z"));
    }

    #[test]
    fn weekday_and_hour_buckets_are_local_and_zero_pnl_is_a_loss() {
        let tz = chrono_tz::Asia::Tokyo;
        let trades = [
            // Saturday 2026-11-21 23:30 in Tokyo.
            (ms("2026-11-21T14:30:00Z"), dec!(5)),
            // Sunday 2026-11-22 00:10 in Tokyo (still Saturday in UTC).
            (ms("2026-11-21T15:10:00Z"), dec!(-2)),
            (ms("2026-11-21T15:20:00Z"), dec!(0)),
            (ms("2026-11-21T15:40:00Z"), dec!(3)),
        ];
        let trades: Vec<_> = trades.map(|(at, pnl)| ClosedTally::trade(at, pnl)).to_vec();
        let s = period_stats(&trades, tz);
        assert_eq!((s.total_trades, s.win_trades, s.lose_trades), (4, 2, 2));
        assert_eq!(s.win_rate, 50.0);
        assert_eq!(s.total_pnl, 6.0);
        assert_eq!(s.avg_pnl, 1.5);
        let weekdays: Vec<_> = s
            .weekday
            .iter()
            .map(|r| (r.weekday, r.stats.pnl, r.stats.success, r.stats.fail))
            .collect();
        assert_eq!(weekdays, vec![(1, 1.0, 1, 2), (7, 5.0, 1, 0)]);
        let hours: Vec<_> = s.hour.iter().map(|r| (r.hour, r.stats.total)).collect();
        assert_eq!(hours, vec![(0, 3), (23, 1)]);
        let cells: Vec<_> = s
            .heatmap
            .iter()
            .map(|c| (c.weekday, c.hour, c.pnl, c.total))
            .collect();
        assert_eq!(cells, vec![(1, 0, 1.0, 3), (7, 23, 5.0, 1)]);
        assert!(s.equity.is_empty(), "the curve is equity_curve's");
        let curve: Vec<_> = equity_curve(&trades)
            .iter()
            .map(|p| (p.at_ms, p.pnl))
            .collect();
        assert_eq!(
            curve,
            vec![
                (ms("2026-11-21T14:30:00Z"), 5.0),
                (ms("2026-11-21T15:10:00Z"), 3.0),
                (ms("2026-11-21T15:20:00Z"), 3.0),
                (ms("2026-11-21T15:40:00Z"), 6.0),
            ]
        );
        assert_eq!(period_stats(&[], tz), PeriodStats::default());
    }

    #[test]
    fn a_quarter_hour_rollup_gives_the_same_figures_as_its_trades() {
        // Kathmandu is UTC+5:45: its hours start at a quarter past a UTC hour.
        let tz = chrono_tz::Asia::Kathmandu;
        let trades: Vec<_> = (0..400)
            .map(|i| {
                let pnl = Decimal::new((i * 37 % 23) - 11, 1);
                ClosedTally::trade(ms("2026-11-20T00:00:00Z") + i * 7 * 60 * 1000, pnl)
            })
            .collect();
        let mut rollup: Vec<ClosedTally> = Vec::new();
        for t in &trades {
            let start = t.at_ms.div_euclid(QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
            match rollup.last_mut() {
                Some(r) if r.at_ms == start => {
                    r.trades += t.trades;
                    r.wins += t.wins;
                    r.pnl += t.pnl;
                }
                _ => rollup.push(ClosedTally { at_ms: start, ..*t }),
            }
        }
        assert!(rollup.len() < trades.len());
        let (by_trade, by_quarter) = (period_stats(&trades, tz), period_stats(&rollup, tz));
        assert_eq!(by_trade.weekday, by_quarter.weekday);
        assert_eq!(by_trade.hour, by_quarter.hour);
        assert_eq!(by_trade.heatmap, by_quarter.heatmap);
        assert_eq!(by_trade.total_pnl, by_quarter.total_pnl);
        assert_eq!(by_trade.win_trades, by_quarter.win_trades);
        assert_eq!(
            grouped_stats(&trades, tz, Granularity::Day),
            grouped_stats(&rollup, tz, Granularity::Day)
        );
    }

    #[test]
    fn spans_of_constant_offset_cut_at_each_dst_change() {
        let berlin = chrono_tz::Europe::Berlin;
        // 2026: summer time from 29 March 01:00 UTC to 25 October 01:00 UTC.
        let spans = constant_offset_spans(
            berlin,
            ms("2026-01-01T00:00:00Z"),
            ms("2027-01-01T00:00:00Z"),
        );
        assert_eq!(
            spans,
            vec![
                (ms("2026-01-01T00:00:00Z"), ms("2026-03-29T01:00:00Z")),
                (ms("2026-03-29T01:00:00Z"), ms("2026-10-25T01:00:00Z")),
                (ms("2026-10-25T01:00:00Z"), ms("2027-01-01T00:00:00Z")),
            ]
        );
        let tokyo = constant_offset_spans(chrono_tz::Asia::Tokyo, 0, ms("2026-01-01T00:00:00Z"));
        assert_eq!(tokyo, vec![(0, ms("2026-01-01T00:00:00Z"))]);
        assert!(constant_offset_spans(berlin, 5, 5).is_empty());
    }

    #[test]
    fn summing_by_slot_of_the_week_within_a_span_keeps_local_weekdays_and_hours() {
        let tz = chrono_tz::Europe::Berlin;
        let trades: Vec<_> = (0..3000)
            .map(|i| {
                ClosedTally::trade(
                    ms("2026-03-01T00:00:00Z") + i * 47 * 60 * 1000,
                    Decimal::new(i % 7 - 3, 0),
                )
            })
            .collect();
        let (from, to) = (trades[0].at_ms, trades[2999].at_ms + 1);
        let mut slots: Vec<ClosedTally> = Vec::new();
        for (a, b) in constant_offset_spans(tz, from, to) {
            let mut by_slot: BTreeMap<i64, ClosedTally> = BTreeMap::new();
            for t in trades.iter().filter(|t| t.at_ms >= a && t.at_ms < b) {
                let quarter = t.at_ms.div_euclid(QUARTER_HOUR_MS);
                let entry = by_slot
                    .entry(quarter % QUARTERS_PER_WEEK)
                    .or_insert(ClosedTally {
                        trades: 0,
                        wins: 0,
                        pnl: Decimal::ZERO,
                        ..*t
                    });
                entry.trades += t.trades;
                entry.wins += t.wins;
                entry.pnl += t.pnl;
            }
            slots.extend(by_slot.into_values());
        }
        assert!(slots.len() < trades.len());
        let (by_trade, by_slot) = (period_stats(&trades, tz), period_stats(&slots, tz));
        assert_eq!(by_trade, by_slot);
    }

    #[test]
    fn the_equity_curve_is_thinned_to_its_cap_and_ends_at_the_total() {
        let tallies: Vec<_> = (0..1234)
            .map(|i| ClosedTally::trade(i * 1000, Decimal::ONE))
            .collect();
        let curve = equity_curve(&tallies);
        assert!(curve.len() <= MAX_EQUITY_POINTS, "{} points", curve.len());
        assert!(curve.len() > MAX_EQUITY_POINTS / 2);
        assert!(curve.windows(2).all(|w| w[0].at_ms < w[1].at_ms));
        let last = curve.last().unwrap();
        assert_eq!((last.at_ms, last.pnl), (1233 * 1000, 1234.0));
    }

    #[test]
    fn grouped_by_local_day_iso_week_and_month() {
        let tz = chrono_tz::Asia::Tokyo;
        let trades = [
            (ms("2026-11-29T14:00:00Z"), dec!(1)), // Sun 29th 23:00, week 48
            (ms("2026-11-29T15:00:00Z"), dec!(-1)), // Mon 30th 00:00, week 49
            (ms("2026-11-30T16:00:00Z"), dec!(2)), // Tue Dec 1st 01:00, week 49
        ];
        let trades: Vec<_> = trades.map(|(at, pnl)| ClosedTally::trade(at, pnl)).to_vec();
        let rows = |by| -> Vec<(String, f64, u64, f64)> {
            grouped_stats(&trades, tz, by)
                .into_iter()
                .map(|r| (r.period, r.pnl, r.trades, r.win_rate))
                .collect()
        };
        assert_eq!(
            rows(Granularity::Day),
            vec![
                ("2026-11-29".into(), 1.0, 1, 100.0),
                ("2026-11-30".into(), -1.0, 1, 0.0),
                ("2026-12-01".into(), 2.0, 1, 100.0),
            ]
        );
        assert_eq!(
            rows(Granularity::IsoWeek),
            vec![
                ("2026-W48".into(), 1.0, 1, 100.0),
                ("2026-W49".into(), 1.0, 2, 50.0)
            ]
        );
        assert_eq!(
            rows(Granularity::Month),
            vec![
                ("2026-11".into(), 0.0, 2, 50.0),
                ("2026-12".into(), 2.0, 1, 100.0)
            ]
        );
        let today = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day).unwrap();
        assert_eq!(Granularity::Day.default_start(today), d(2026, 10, 28));
        assert_eq!(Granularity::IsoWeek.default_start(today), d(2026, 9, 7));
        assert_eq!(Granularity::Month.default_start(today), d(2025, 12, 1));
    }
}
