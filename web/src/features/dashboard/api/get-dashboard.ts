import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import type { Balance } from '@/types/api'

/** GET /api/dashboard/ (spec section 3, Dashboard response). Money in USDT. */
export type DashboardResponse = {
  balance: { totalEquity: number; availableBalance: number; marginBalance: number }
  /** Equity 24 hours ago (5-minute snapshots); null when the account has no snapshot that old. */
  balance_24h_ago: number | null
  /** Notional of the fills in the last 24 hours, and in the 24 hours before that. */
  volume24h: number
  volume24h_ago: number
  summary: {
    open_trades: number
    total_trades: number
    open_trades_24h_ago: number
    total_trades_24h_ago: number
  }
}

/**
 * This file owns the dashboard's cache entry. The live feed's `balance` messages are written into
 * it through `patchDashboardBalance`, so the Total Balance and Balance cards follow the wallet.
 */
export function getDashboard({ signal }: { signal?: AbortSignal } = {}) {
  return api.get<DashboardResponse>('dashboard/', { signal })
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
