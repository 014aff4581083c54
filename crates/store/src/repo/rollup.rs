//! The statistics rollup: each user's closed trades on each account summed per UTC quarter
//! hour (the triggers of migrations 0007 and 0010, keyed by (user, account venue) since 0025,
//! keep it), read for the statistics pages. Statistics follow the account (docs/accounts.md):
//! a reader asks for the user's current account; trades without a venue are in no rollup.
//!
//! A user with a long history has one row per quarter hour with closes (70,000 over two busy
//! years), and summing them in SQL for every page load costs tens of milliseconds. So the
//! store keeps each (user, account)'s rollup in memory and brings it up to date on every read
//! with the rows changed since its copy: the triggers stamp each changed row with the next
//! change number (`seq`). A read is then one indexed query that usually returns nothing, and
//! the copy is never stale, whichever process wrote the change. The copies are bounded in
//! total rows; the least recently read go first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use signaldesk_core::account::AccountVenue;
use signaldesk_core::stats::{
    constant_offset_spans, equity_curve, period_stats, ClosedTally, Period, PeriodStats,
    MAX_EQUITY_POINTS, QUARTERS_PER_WEEK,
};
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Store, StoreError};

/// A UTC quarter hour in milliseconds: the rollup's bucket.
pub const QUARTER_MS: i64 = 15 * 60 * 1000;

/// Rows kept in memory over all users (about 40 bytes each).
const CACHED_ROWS: usize = 2_000_000;

/// One user's rollup on one account at one moment: quarter hours with closes, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Rollup {
    /// One tally per quarter hour with closes, timed at the quarter's start.
    quarters: Arc<Vec<ClosedTally>>,
}

impl Rollup {
    /// The quarter hours of `[from_ms, to_ms)`. Both bounds are taken to whole quarter hours (a
    /// period starting at a local midnight always is one; an end at "now" takes the current
    /// quarter, which holds no later close).
    pub fn quarters_between(&self, from_ms: i64, to_ms: i64) -> &[ClosedTally] {
        let from = from_ms.div_euclid(QUARTER_MS).saturating_mul(QUARTER_MS);
        let to = to_ms
            .saturating_add(QUARTER_MS - 1)
            .div_euclid(QUARTER_MS)
            .saturating_mul(QUARTER_MS);
        let start = self.quarters.partition_point(|t| t.at_ms < from);
        let end = self.quarters.partition_point(|t| t.at_ms < to);
        &self.quarters[start..end.max(start)]
    }

    /// The first and last quarter hour (as UTC ms) with closes in `[from_ms, to_ms)`.
    pub fn bounds(&self, from_ms: i64, to_ms: i64) -> Option<(i64, i64)> {
        let quarters = self.quarters_between(from_ms, to_ms);
        Some((quarters.first()?.at_ms, quarters.last()?.at_ms))
    }

    /// The `/api/stats/` figures of `period` at `now` in zone `tz`: weekday and hour sums from
    /// at most 672 slots per span of one UTC offset, and an equity curve of at most
    /// [`MAX_EQUITY_POINTS`] runs.
    pub fn period_stats(&self, period: Period, now: DateTime<Utc>, tz: Tz) -> PeriodStats {
        let (from, to) = period.range(now, tz);
        let Some((first, last)) = self.bounds(from, to) else {
            return PeriodStats::default();
        };
        let end = last + QUARTER_MS;
        let slots: Vec<ClosedTally> = constant_offset_spans(tz, first, end)
            .into_iter()
            .flat_map(|(a, b)| self.week_slots(a, b))
            .collect();
        // Runs aligned to the epoch can split one more time than they fit: 499 parts, 500
        // points.
        let parts = MAX_EQUITY_POINTS as i64 - 1;
        let run = ((end - first) / QUARTER_MS + parts - 1) / parts;
        let mut stats = period_stats(&slots, tz);
        stats.equity = equity_curve(&self.runs(first, end, run));
        stats
    }

    /// The closes in `[from_ms, to_ms)` summed per slot of the week (`quarter % 672`), each sum
    /// timed at its earliest quarter hour, oldest first. Only meaningful over a span where the
    /// user's zone keeps one UTC offset: there a slot is one local weekday and hour.
    pub fn week_slots(&self, from_ms: i64, to_ms: i64) -> Vec<ClosedTally> {
        grouped(self.quarters_between(from_ms, to_ms), |quarter| {
            quarter.rem_euclid(QUARTERS_PER_WEEK)
        })
    }

    /// The closes in `[from_ms, to_ms)` summed per run of `quarters` consecutive quarter hours
    /// (aligned to the epoch), each sum timed at its last quarter hour with closes, oldest
    /// first: the equity curve's points.
    pub fn runs(&self, from_ms: i64, to_ms: i64, quarters: i64) -> Vec<ClosedTally> {
        let quarters = quarters.max(1);
        let mut runs: Vec<ClosedTally> = Vec::new();
        for t in self.quarters_between(from_ms, to_ms) {
            let run = t.at_ms.div_euclid(QUARTER_MS).div_euclid(quarters);
            match runs.last_mut() {
                Some(last) if last.at_ms.div_euclid(QUARTER_MS).div_euclid(quarters) == run => {
                    add(last, t);
                    last.at_ms = t.at_ms;
                }
                _ => runs.push(*t),
            }
        }
        runs
    }
}

/// `quarters` summed by `key` of their quarter number, each sum timed at its earliest quarter,
/// ordered by that time.
fn grouped(quarters: &[ClosedTally], key: impl Fn(i64) -> i64) -> Vec<ClosedTally> {
    let mut groups: HashMap<i64, ClosedTally> = HashMap::new();
    for t in quarters {
        groups
            .entry(key(t.at_ms.div_euclid(QUARTER_MS)))
            .and_modify(|sum| add(sum, t))
            .or_insert(*t);
    }
    let mut sums: Vec<ClosedTally> = groups.into_values().collect();
    sums.sort_by_key(|t| t.at_ms);
    sums
}

fn add(sum: &mut ClosedTally, t: &ClosedTally) {
    sum.trades += t.trades;
    sum.wins += t.wins;
    sum.pnl += t.pnl;
}

/// A rollup's key: the user and their account.
type RollupKey = (i64, AccountVenue);

/// Each (user, account)'s rollup as last read, with the change number it is up to date with.
#[derive(Debug, Default)]
pub(crate) struct RollupCache {
    users: Mutex<HashMap<RollupKey, CachedRollup>>,
}

#[derive(Debug)]
struct CachedRollup {
    seq: i64,
    rollup: Rollup,
    last_read: u64,
}

/// A changed rollup row.
struct Change {
    seq: i64,
    tally: ClosedTally,
}

fn change(row: &AnyRow) -> Result<Change, StoreError> {
    let count = |c: &str| -> Result<u64, StoreError> {
        let n: i64 = row.try_get(c)?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("rollup {c} {n}")))
    };
    Ok(Change {
        seq: row.try_get("seq")?,
        tally: ClosedTally {
            at_ms: row.try_get::<i64, _>("quarter")? * QUARTER_MS,
            trades: count("trades")?,
            wins: count("wins")?,
            pnl: Decimal::new(row.try_get("pnl_e8")?, 8),
        },
    })
}

/// `quarters` with each changed quarter replaced (or removed when it holds no close any more).
fn merged(quarters: &[ClosedTally], mut changes: Vec<ClosedTally>) -> Vec<ClosedTally> {
    changes.sort_by_key(|t| t.at_ms);
    let mut out = Vec::with_capacity(quarters.len() + changes.len());
    let mut old = quarters.iter().peekable();
    for new in changes {
        while let Some(t) = old.next_if(|t| t.at_ms < new.at_ms) {
            out.push(*t);
        }
        old.next_if(|t| t.at_ms == new.at_ms);
        if new.trades > 0 {
            out.push(new);
        }
    }
    out.extend(old.copied());
    out
}

impl RollupCache {
    fn get(&self, key: RollupKey) -> Option<(i64, Rollup)> {
        let users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        users.get(&key).map(|c| (c.seq, c.rollup.clone()))
    }

    /// Keeps `rollup` as the copy of `key` at `seq` unless a newer one is kept already, then
    /// drops the least recently read copies beyond the row budget.
    fn put(&self, key: RollupKey, seq: i64, rollup: Rollup) {
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        let tick = users.values().map(|c| c.last_read).max().unwrap_or(0) + 1;
        let entry = users.entry(key).or_insert(CachedRollup {
            seq: i64::MIN,
            rollup: Rollup::default(),
            last_read: tick,
        });
        entry.last_read = tick;
        if seq > entry.seq {
            entry.seq = seq;
            entry.rollup = rollup;
        }
        let mut rows: usize = users.values().map(|c| c.rollup.quarters.len()).sum();
        while rows > CACHED_ROWS && users.len() > 1 {
            let Some((&oldest, _)) = users
                .iter()
                .filter(|(&k, _)| k != key)
                .min_by_key(|(_, c)| c.last_read)
            else {
                break;
            };
            if let Some(gone) = users.remove(&oldest) {
                rows -= gone.rollup.quarters.len();
            }
        }
    }
}

impl Store {
    /// The rollup of the user's trades on account `venue` as it is now in the database: the
    /// kept copy brought up to date with the rows changed since it was read.
    pub async fn closed_rollup(
        &self,
        user_id: i64,
        venue: AccountVenue,
    ) -> Result<Rollup, StoreError> {
        let key = (user_id, venue);
        let (seq, rollup) = self.rollups.get(key).unwrap_or((-1, Rollup::default()));
        let rows = sqlx::query(
            "SELECT quarter, trades, wins, pnl_e8, seq FROM trade_rollup
             WHERE user_id = $1 AND venue = $2 AND seq > $3",
        )
        .bind(user_id)
        .bind(venue.as_str())
        .bind(seq)
        .fetch_all(&self.pool)
        .await?;
        if rows.is_empty() && seq >= 0 {
            return Ok(rollup);
        }
        let changes = rows.iter().map(change).collect::<Result<Vec<_>, _>>()?;
        let latest = changes.iter().map(|c| c.seq).max().unwrap_or(0).max(seq);
        let rollup = Rollup {
            quarters: Arc::new(merged(
                &rollup.quarters,
                changes.into_iter().map(|c| c.tally).collect(),
            )),
        };
        self.rollups.put(key, latest, rollup.clone());
        Ok(rollup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn q(quarter: i64, trades: u64, pnl: Decimal) -> ClosedTally {
        ClosedTally {
            at_ms: quarter * QUARTER_MS,
            trades,
            wins: trades,
            pnl,
        }
    }

    #[test]
    fn a_change_replaces_its_quarter_and_an_emptied_quarter_goes() {
        let old = [q(1, 1, dec!(1)), q(3, 2, dec!(2)), q(5, 1, dec!(5))];
        let new = merged(
            &old,
            vec![
                q(6, 1, dec!(6)),
                q(3, 0, dec!(0)),
                q(0, 1, dec!(-1)),
                q(5, 2, dec!(7)),
            ],
        );
        let shape: Vec<(i64, u64)> = new
            .iter()
            .map(|t| (t.at_ms / QUARTER_MS, t.trades))
            .collect();
        assert_eq!(shape, [(0, 1), (1, 1), (5, 2), (6, 1)]);
    }

    #[test]
    fn a_window_takes_whole_quarters() {
        let rollup = Rollup {
            quarters: Arc::new(vec![q(1, 1, dec!(1)), q(2, 1, dec!(2)), q(3, 1, dec!(3))]),
        };
        let window = rollup.quarters_between(QUARTER_MS + 1, 3 * QUARTER_MS - 1);
        assert_eq!(window.len(), 2);
        assert_eq!(rollup.bounds(0, 1), None);
        assert_eq!(
            rollup.bounds(i64::MIN, i64::MAX),
            Some((QUARTER_MS, 3 * QUARTER_MS))
        );
    }

    #[test]
    fn the_budget_drops_the_least_recently_read_copy() {
        let cache = RollupCache::default();
        let big = Rollup {
            quarters: Arc::new(vec![q(1, 1, dec!(1)); CACHED_ROWS / 2 + 1]),
        };
        let (one, two) = (
            (1, AccountVenue::Paper),
            (1, AccountVenue::Bybit { demo: true }),
        );
        cache.put(one, 0, big.clone());
        cache.put(two, 0, big.clone());
        assert!(cache.get(one).is_none());
        assert!(cache.get(two).is_some());
        cache.put(two, 0, Rollup::default());
        assert_eq!(
            cache.get(two).map(|(_, r)| r.quarters.len()),
            Some(CACHED_ROWS / 2 + 1)
        );
    }
}
