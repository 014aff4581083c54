import { queryOptions, useQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { TradeChart } from '@/types/api'

/**
 * GET /api/trades/{id}/chart/: a live trade drawn like a backtest's, on its market's candles
 * around the trade, with its entry and exit; 409 for a trade that never opened.
 */
export function liveTradeChartQueryOptions(tradeId: number) {
  return queryOptions({
    queryKey: ['trades', 'chart', tradeId],
    queryFn: ({ signal }) =>
      // The document types a marker's kind as a string; the server sends one of TradeChart's.
      call(
        client.GET('/api/trades/{id}/chart/', { params: { path: { id: tradeId } }, signal }),
      ) as Promise<TradeChart>,
    // An open trade's window grows with the market; a minute is fresh enough for a glance.
    staleTime: 60_000,
  })
}

export function useLiveTradeChart(tradeId: number) {
  return useQuery(liveTradeChartQueryOptions(tradeId))
}
