import { queryOptions, useQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { TradeChart } from '@/types/api'

/** GET /api/backtests/{id}/trades/{trade_id}/chart/: a backtest trade's chart (src/types/api.ts). */
export function tradeChartQueryOptions(runId: number, tradeId: number) {
  return queryOptions({
    // Not under ['backtests']: starting or deleting a run refreshes that key, and a finished
    // run's trade never changes (runs are deterministic).
    queryKey: ['backtest-trade-chart', runId, tradeId],
    queryFn: ({ signal }) =>
      call(
        client.GET('/api/backtests/{id}/trades/{trade_id}/chart/', {
          params: { path: { id: runId, trade_id: tradeId } },
          signal,
        }),
      ) as Promise<TradeChart>,
    staleTime: Infinity,
  })
}

export function useTradeChart(runId: number, tradeId: number) {
  return useQuery(tradeChartQueryOptions(runId, tradeId))
}
