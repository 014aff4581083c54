import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { SIGNALS_CAP } from '@/lib/live/constants'
import type { Signal } from '@/types/api'

/**
 * GET /api/signals/: every symbol's latest signal, ordered by weight (STRONG_BUY, STRONG_SELL,
 * NEUTRAL) then symbol. This file owns the signals list in the cache; the live feed changes it
 * through `replaceSignals` (a `signals_update`) and `putSignalFirst` (a `signal`).
 */
export function getSignals({ signal }: { signal?: AbortSignal } = {}): Promise<Signal[]> {
  return call(client.GET('/api/signals/', { signal }))
}

export const signalsQueryKey = ['signals'] as const

/** The list, capped at 50 entries (spec section 9); the dashboard card shows the first 5. */
export function signalsQueryOptions() {
  return queryOptions({
    queryKey: [...signalsQueryKey, 'list'],
    queryFn: async ({ signal }) => (await getSignals({ signal })).slice(0, SIGNALS_CAP),
  })
}

export function useSignals() {
  return useQuery(signalsQueryOptions())
}

/**
 * Spec section 4: a `signal` removes any entry with the same symbol and puts the new one first,
 * capped at the limit (default 50).
 */
export function withSignalFirst(
  list: readonly Signal[],
  signal: Signal,
  cap: number = SIGNALS_CAP,
): Signal[] {
  return [signal, ...list.filter((entry) => entry.symbol !== signal.symbol)].slice(0, cap)
}

/** A `signals_update` replaces the whole list. */
export function replaceSignals(queryClient: QueryClient, signals: readonly Signal[]) {
  queryClient.setQueryData(signalsQueryOptions().queryKey, signals.slice(0, SIGNALS_CAP))
}

/**
 * A `signal` moves its symbol to the front. Before the list was ever loaded there is nothing to
 * change: the first fetch (or the next `signals_update`) brings the whole list.
 */
export function putSignalFirst(queryClient: QueryClient, signal: Signal) {
  queryClient.setQueryData(signalsQueryOptions().queryKey, (old) =>
    old ? withSignalFirst(old, signal) : undefined,
  )
}
