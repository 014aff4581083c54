import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { Trade } from '@/types/api'

/** The bot holds at most one open trade per symbol; 100 is far above any max_trades in use. */
export const OPEN_TRADES_PAGE_SIZE = 100

/**
 * GET /api/trades/?status=open&page_size=100: the user's open trades, newest first. This file owns
 * their cache entry; the live feed refetches it on every `orders` message (the worker sends one
 * after each fill and close) and the close mutations after they succeed, through
 * `invalidateOpenTrades`.
 */
export async function getOpenTrades({ signal }: { signal?: AbortSignal } = {}): Promise<Trade[]> {
  const page = await call(
    client.GET('/api/trades/', {
      params: { query: { status: 'open', page_size: OPEN_TRADES_PAGE_SIZE } },
      signal,
    }),
  )
  return page.results
}

export const openTradesQueryKey = ['trades', 'open'] as const

export function openTradesQueryOptions() {
  return queryOptions({
    queryKey: openTradesQueryKey,
    queryFn: ({ signal }) => getOpenTrades({ signal }),
  })
}

export function useOpenTrades() {
  return useQuery(openTradesQueryOptions())
}

/** Drops a trade from the cached list at once (it was closed), before the refetch. */
export function removeOpenTrade(queryClient: QueryClient, id: number) {
  queryClient.setQueryData(openTradesQueryOptions().queryKey, (old) =>
    old ? old.filter((trade) => trade.id !== id) : old,
  )
}

export function invalidateOpenTrades(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: openTradesQueryKey })
}
