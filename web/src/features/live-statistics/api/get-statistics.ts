import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { LiveStatistics } from '@/types/api'
import type { LivePeriod } from '@/features/live-statistics/strings'

/**
 * GET /api/statistics/?period=24h|7d|30d|all: the seven live statistics figures over that period.
 * This file owns their cache entries, one per period. The live `statistics` message (all time)
 * reaches them through `applyLiveStatistics`.
 */
export function getStatistics({ period, signal }: { period: LivePeriod; signal?: AbortSignal }) {
  return call(client.GET('/api/statistics/', { params: { query: { period } }, signal }))
}

export const statisticsQueryKey = ['statistics'] as const

export function statisticsQueryOptions(period: LivePeriod) {
  return queryOptions({
    queryKey: [...statisticsQueryKey, period],
    queryFn: ({ signal }) => getStatistics({ period, signal }),
  })
}

export function useStatistics(period: LivePeriod) {
  return useQuery(statisticsQueryOptions(period))
}

/**
 * A live `statistics` message covers all time: it becomes the "all" entry as it is, and the other
 * periods (whose figures it cannot give) are read again when shown.
 */
export function applyLiveStatistics(queryClient: QueryClient, statistics: LiveStatistics) {
  queryClient.setQueryData(statisticsQueryOptions('all').queryKey, statistics)
  return queryClient.invalidateQueries({
    queryKey: statisticsQueryKey,
    predicate: (query) => query.queryKey[1] !== 'all',
  })
}
