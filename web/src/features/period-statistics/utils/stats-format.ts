import type { Chain, ChainTrade } from '@/features/period-statistics/api/get-martingale-chains'
import type { StatsBucket } from '@/features/period-statistics/api/get-stats'
import { statsStrings } from '@/features/period-statistics/strings'
import { formatNumber } from '@/lib/format-number'

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

function firstCreated(chain: Chain): number {
  const times = chain.trades
    .map((trade) => new Date(trade.created_at).getTime())
    .filter((t) => !Number.isNaN(t))
  return times.length > 0 ? Math.min(...times) : Number.POSITIVE_INFINITY
}

/** Chains sorted by their first trade's creation time, ascending (chains without trades last). */
export function sortChains(chains: readonly Chain[]): Chain[] {
  return [...chains].sort((a, b) => {
    const [x, y] = [firstCreated(a), firstCreated(b)]
    return x === y ? 0 : x < y ? -1 : 1
  })
}

/** A chain trade's pnl with 4 decimals, "-" when null. */
export function tradePnl(trade: ChainTrade): string {
  return trade.pnl === null ? '-' : formatNumber(trade.pnl, 4)
}
