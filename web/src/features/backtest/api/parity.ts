import { useQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { ParityReport, ParityRow, ParitySide } from '@/types/api'

export type { ParityReport, ParityRow, ParitySide }

/** The period asked for: days (YYYY-MM-DD) in the user's zone, or RFC 3339 times. */
export type ParityPeriod = { from: string; to: string }

/**
 * GET /api/parity/?from=&to=: the signals the bot acted on in the period replayed through a
 * backtest of the current settings, side by side with the live trades. Runs only once a period
 * is asked for; the same period is not run again while its answer is fresh.
 */
export function useParity(period: ParityPeriod | null) {
  return useQuery({
    queryKey: ['parity', period?.from, period?.to],
    queryFn: ({ signal }) =>
      call(
        client.GET('/api/parity/', {
          params: { query: { from: period?.from ?? '', to: period?.to ?? '' } },
          signal,
        }),
      ),
    enabled: period !== null,
    retry: false,
    staleTime: 60_000,
  })
}
