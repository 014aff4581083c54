import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { Balance, DashboardResponse } from '@/types/api'

export type { DashboardResponse }

/**
 * This file owns the dashboard's cache entry. The live feed's `balance` messages are written into
 * it through `patchDashboardBalance`, so the Total Balance and Balance cards follow the wallet; an
 * `orders` message (a fill or a close) refetches it through `invalidateDashboard`, so Open Trades,
 * Total Trades and 24h Volume follow the trades (issue 33).
 */
export function getDashboard({ signal }: { signal?: AbortSignal } = {}) {
  return call(client.GET('/api/dashboard/', { signal }))
}

export const dashboardQueryKey = ['dashboard'] as const

export function dashboardQueryOptions() {
  return queryOptions({
    queryKey: dashboardQueryKey,
    queryFn: ({ signal }) => getDashboard({ signal }),
  })
}

export function useDashboard() {
  return useQuery(dashboardQueryOptions())
}

/**
 * A live `balance` message (equity, available_balance, margin_balance) replaces the balance of the
 * cached dashboard answer; nothing is written before the first answer.
 */
export function patchDashboardBalance(queryClient: QueryClient, balance: Balance) {
  queryClient.setQueryData(dashboardQueryOptions().queryKey, (old) =>
    old
      ? {
          ...old,
          balance: {
            totalEquity: balance.equity,
            availableBalance: balance.available_balance,
            marginBalance: balance.margin_balance,
          },
        }
      : old,
  )
}

export function invalidateDashboard(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: dashboardQueryKey })
}
