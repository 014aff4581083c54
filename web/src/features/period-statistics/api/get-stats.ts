import { queryOptions, useQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { EquitySample, HeatmapCell, HourRow, StatsResponse, WeekdayRow } from '@/types/api'

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

export type { EquitySample, HeatmapCell, HourRow, StatsResponse, WeekdayRow }

/** The dates of Custom, only when it is chosen and both dates are set (spec section 7). */
export function customDates({ period, dateFrom, dateTo }: StatsFilter) {
  return period === 'custom' && dateFrom && dateTo ? { date_from: dateFrom, date_to: dateTo } : {}
}

/** GET /api/stats/?period=…, plus date_from and date_to when Custom has both dates. */
export function getStats({ filter, signal }: { filter: StatsFilter; signal?: AbortSignal }) {
  return call(
    client.GET('/api/stats/', {
      params: { query: { period: filter.period, ...customDates(filter) } },
      signal,
    }),
  )
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
