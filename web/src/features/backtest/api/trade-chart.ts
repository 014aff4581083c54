import { queryOptions, useQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'

/*
 * GET /api/backtests/{id}/trades/{trade_id}/chart/: the candles of a backtest trade's symbol
 * around the trade, with its entry, take profits and exit. Written by hand until the endpoint is
 * in docs/openapi.json; then these become aliases of the generated schemas in src/types/api.ts.
 */

/** One candle; `time` is its opening, Unix milliseconds. */
export type TradeChartCandle = {
  time: number
  open: number
  high: number
  low: number
  close: number
}

export type TradeChartMarkerKind = 'entry' | 'take_profit' | 'exit'

/** Where the trade did something: `time` in Unix milliseconds, at `price`. */
export type TradeChartMarker = {
  time: number
  kind: TradeChartMarkerKind
  price: number
  /** E.g. "Entry 95000". */
  label: string
}

/** The answer: candles oldest first; 404 when the run or the trade is not the user's. */
export type TradeChart = {
  symbol: string
  interval_minutes: number
  candles: TradeChartCandle[]
  markers: TradeChartMarker[]
}

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
