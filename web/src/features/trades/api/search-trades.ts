import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { call, client, pathUrl } from '@/lib/api-client'
import type { operations } from '@/types/openapi.gen'
import type { TradeSearchPage } from '@/types/api'
import type { TradesFilter } from '@/features/trades/utils/trades-filter'

/** The filter's part of the search's query; the export reads the same. */
type TradesQuery = Omit<NonNullable<operations['trades_search']['parameters']['query']>, 'limit' | 'cursor'>

/**
 * The filter as the server reads it (GET /api/trades/search/ and /api/trades/export.csv): empty
 * choices left out, and a custom period's dates only when both are set, as on /stats.
 */
export function filterParams(filter: TradesFilter): TradesQuery {
  const custom = filter.period === 'custom' && filter.dateFrom && filter.dateTo
  return {
    period: filter.period,
    date_from: custom ? filter.dateFrom : undefined,
    date_to: custom ? filter.dateTo : undefined,
    symbol: filter.symbol.trim() || undefined,
    side: filter.side || undefined,
    status: filter.status || undefined,
    close_reason: filter.closeReason || undefined,
    sort: filter.sort,
  }
}

/** GET /api/trades/search/: one page of the filter after `cursor` (the first page without one). */
export function searchTrades({
  filter,
  limit,
  cursor,
  signal,
}: {
  filter: TradesFilter
  limit: number
  cursor: string | null
  signal?: AbortSignal
}): Promise<TradeSearchPage> {
  return call(
    client.GET('/api/trades/search/', {
      params: { query: { ...filterParams(filter), limit, cursor: cursor ?? undefined } },
      signal,
    }),
  )
}

export function searchTradesQueryOptions(filter: TradesFilter, limit: number, cursor: string | null) {
  return queryOptions({
    // Under ['trades'], so closing a trade anywhere refreshes the list too.
    queryKey: ['trades', 'search', filterParams(filter), limit, cursor],
    queryFn: ({ signal }) => searchTrades({ filter, limit, cursor, signal }),
    // The previous page stays on screen while the next loads: no jump to a spinner.
    placeholderData: keepPreviousData,
  })
}

export function useSearchTrades(filter: TradesFilter, limit: number, cursor: string | null) {
  return useQuery(searchTradesQueryOptions(filter, limit, cursor))
}

/**
 * The CSV of every trade the filter matches (GET /api/trades/export.csv), downloaded by the
 * browser with the session cookie: no page limit, streamed by the server.
 */
export function exportUrl(filter: TradesFilter): string {
  return pathUrl('/api/trades/export.csv', filterParams(filter))
}
