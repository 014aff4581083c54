import { queryOptions, useQuery } from '@tanstack/react-query'
import { customDates, type StatsFilter } from '@/features/stats/api/get-stats'
import { api } from '@/lib/api-client'
import type { Chain, ChainsResponse, ChainTrade } from '@/types/api'

export type { Chain, ChainsResponse, ChainTrade }

/** A local date as YYYY-MM-DD. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

const DAYS_BACK = { '24h': 1, '3d': 3, '7d': 7 } as const

/**
 * The chains' dates (spec section 7): Custom, the chosen dates (both set); 24h, 3d and 7d, today
 * minus 1, 3 or 7 days up to today (local dates); All and This month, none.
 */
export function chainDates(
  filter: StatsFilter,
  now: Date = new Date(),
): { date_from?: string; date_to?: string } {
  if (filter.period === 'custom') return customDates(filter)
  if (filter.period === '24h' || filter.period === '3d' || filter.period === '7d') {
    const from = new Date(now)
    from.setDate(from.getDate() - DAYS_BACK[filter.period])
    return { date_from: localDate(from), date_to: localDate(now) }
  }
  return {}
}

/** GET /api/martingale_chains/ with optional date_from and date_to. */
export function getMartingaleChains({
  dates,
  signal,
}: {
  dates: { date_from?: string; date_to?: string }
  signal?: AbortSignal
}) {
  return api.get<ChainsResponse>('martingale_chains/', { signal, params: dates })
}

export function martingaleChainsQueryOptions(filter: StatsFilter) {
  const dates = chainDates(filter)
  return queryOptions({
    queryKey: ['martingale-chains', dates.date_from ?? null, dates.date_to ?? null],
    queryFn: ({ signal }) => getMartingaleChains({ dates, signal }),
  })
}

export function useMartingaleChains(filter: StatsFilter) {
  return useQuery(martingaleChainsQueryOptions(filter))
}
