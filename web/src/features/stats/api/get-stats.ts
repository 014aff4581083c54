import { queryOptions, useQuery } from '@tanstack/react-query'
import { api } from '@/lib/api-client'

/** The periods of the /stats selector (spec section 7). */
export type StatsPeriod = 'all' | '24h' | '3d' | '7d' | 'month' | 'custom'

export const STATS_PERIODS = [
  'all',
  '24h',
  '3d',
  '7d',
  'month',
  'custom',
] as const satisfies readonly StatsPeriod[]

/** The period filter: the period, and the two dates (YYYY-MM-DD, '' when empty) of Custom. */
export type StatsFilter = { period: StatsPeriod; dateFrom: string; dateTo: string }

/** One row of `weekday` (1 = Sunday ... 7 = Saturday) or `hour` (0-23). */
export type StatsBucket = { pnl: number; success: number; fail: number; total: number }
export type WeekdayRow = StatsBucket & { weekday: number }
export type HourRow = StatsBucket & { hour: number }

/** A weekday x hour cell that has trades: weekday 1 = Sunday ... 7 = Saturday, hour 0-23. */
export type HeatmapCell = { weekday: number; hour: number; pnl: number; total: number }

/** The period's cumulative pnl after a close (`time` RFC 3339, UTC). */
export type EquitySample = { time: string; pnl: number }

/**
 * GET /api/stats/ (spec section 3, Stats response). `win_rate` is a percent. Not in the spec:
 * `heatmap` (only cells with trades) and `equity` (oldest first, at most 500 samples).
 */
export type StatsResponse = {
  total_trades: number
  win_trades: number
  lose_trades: number
  win_rate: number
  total_pnl: number
  avg_pnl: number
  weekday: WeekdayRow[]
  hour: HourRow[]
  heatmap: HeatmapCell[]
  equity: EquitySample[]
}

/** The dates of Custom, only when it is chosen and both dates are set (spec section 7). */
export function customDates({ period, dateFrom, dateTo }: StatsFilter) {
  return period === 'custom' && dateFrom && dateTo ? { date_from: dateFrom, date_to: dateTo } : {}
}

/** GET /api/stats/?period=…, plus date_from and date_to when Custom has both dates. */
export function getStats({ filter, signal }: { filter: StatsFilter; signal?: AbortSignal }) {
  return api.get<StatsResponse>('stats/', {
    signal,
    params: { period: filter.period, ...customDates(filter) },
  })
}

export function statsQueryOptions(filter: StatsFilter) {
  const dates = customDates(filter)
  return queryOptions({
    queryKey: ['stats', filter.period, dates.date_from ?? null, dates.date_to ?? null],
    queryFn: ({ signal }) => getStats({ filter, signal }),
  })
}

export function useStats(filter: StatsFilter) {
  return useQuery(statsQueryOptions(filter))
}
