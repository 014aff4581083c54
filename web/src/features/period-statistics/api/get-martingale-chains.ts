import { queryOptions, useQuery } from '@tanstack/react-query'
import { useBotSettings } from '@/features/settings/api/get-bot-settings'
import { customDates, type StatsFilter } from '@/features/period-statistics/api/get-stats'
import { call, client } from '@/lib/api-client'
import type { Chain, ChainsResponse, ChainTrade } from '@/types/api'

export type { Chain, ChainsResponse, ChainTrade }

/** The date (YYYY-MM-DD) it is at `instant` in the IANA `timeZone`. */
export function zonedDate(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(instant)
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ''
  return `${part('year')}-${part('month')}-${part('day')}`
}

/** A YYYY-MM-DD date `days` calendar days earlier. */
export function daysBefore(date: string, days: number): string {
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number)
  return new Date(Date.UTC(year, month - 1, day - days)).toISOString().slice(0, 10)
}

const DAYS_BACK = { '24h': 1, '3d': 3, '7d': 7 } as const

/** Whether the period's chain dates depend on "today" (and so on the user's time zone). */
export function needsToday(filter: StatsFilter): boolean {
  return filter.period in DAYS_BACK
}

/**
 * The chains' dates (spec section 7): Custom, the chosen dates (both set); 24h, 3d and 7d, today
 * minus 1, 3 or 7 days up to today; All and This month, none. "Today" is the date in the user's
 * time zone (`user_timezone`), the zone the server reads the dates in, not the browser's.
 */
export function chainDates(
  filter: StatsFilter,
  timeZone: string,
  now: Date = new Date(),
): { date_from?: string; date_to?: string } {
  if (filter.period === 'custom') return customDates(filter)
  if (filter.period === '24h' || filter.period === '3d' || filter.period === '7d') {
    const today = zonedDate(now, timeZone)
    return { date_from: daysBefore(today, DAYS_BACK[filter.period]), date_to: today }
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
  return call(client.GET('/api/martingale_chains/', { params: { query: dates }, signal }))
}

export function martingaleChainsQueryOptions(filter: StatsFilter, timeZone: string) {
  const dates = chainDates(filter, timeZone)
  return queryOptions({
    queryKey: ['martingale-chains', dates.date_from ?? null, dates.date_to ?? null],
    queryFn: ({ signal }) => getMartingaleChains({ dates, signal }),
  })
}

/** The browser's zone: only when the settings record (and so `user_timezone`) cannot be read. */
function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

/**
 * The chains of the period. 24h, 3d and 7d wait for the settings record, whose `user_timezone`
 * says which day it is; if it cannot be read, the browser's zone is used.
 */
export function useMartingaleChains(filter: StatsFilter) {
  const settings = useBotSettings()
  const zone = settings.data?.user_timezone ?? (settings.isError ? browserTimeZone() : null)
  const waiting = needsToday(filter) && zone === null
  return useQuery({
    ...martingaleChainsQueryOptions(filter, zone ?? browserTimeZone()),
    enabled: !waiting,
  })
}
