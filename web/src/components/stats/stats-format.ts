import { liveSection } from '@/i18n/catalogue'
import type { WeekdayRow } from '@/types/api'
import { formatNumber } from '@/lib/format-number'

const statsStrings = liveSection('periodStatistics')

/** What a weekday row and an hour row share. */
export type StatsBucket = Omit<WeekdayRow, 'weekday'>

/**
 * The Russian label of an API weekday (1 = Sunday ... 7 = Saturday): the weekday number shifted
 * by 2 modulo 7 indexes Monday to Sunday, so 2 is Понедельник and 1 is Воскресенье.
 */
export function weekdayLabel(weekday: number): string {
  return statsStrings.weekdays[(((weekday - 2) % 7) + 7) % 7] ?? String(weekday)
}

/** An hour bucket as "H:00". */
export function hourLabel(hour: number): string {
  return `${String(hour)}:00`
}

/**
 * The best list takes the `count` rows that earned most, highest first, from the rows that
 * earned (pnl above 0); the worst list the `count` that lost most, lowest first, from the rows
 * that lost (pnl below 0). A row is never in both, and a row that broke even is in neither: a
 * losing day is not a "best" day because it is the only one.
 */
export function bestAndWorst<T extends StatsBucket>(rows: readonly T[], count: number) {
  const byPnl = [...rows].sort((a, b) => b.pnl - a.pnl)
  return {
    best: byPnl.filter((row) => row.pnl > 0).slice(0, count),
    worst: byPnl
      .filter((row) => row.pnl < 0)
      .reverse()
      .slice(0, count),
  }
}

/** A share of `total` in percent, 1 decimal ("0.0" for an empty bucket). */
export function percentOf(part: number, total: number): string {
  return formatNumber(total > 0 ? (part / total) * 100 : 0, 1)
}
