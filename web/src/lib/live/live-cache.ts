import { queryOptions, skipToken, useQuery, type QueryClient } from '@tanstack/react-query'
import type { Balance, LiveBotStatus, Position } from '@/types/api'

/**
 * The latest `balance`, `orders` and `bot_status` data of the live feed, each under a
 * query key of its own. Nothing fetches these entries: only the live feed writes them (through the
 * setters below), and they stay in the cache while the app runs (`createQueryClient` gives the
 * `['live']` keys an infinite gcTime and staleTime). A hook answers undefined until the first
 * message of its type.
 */
export const liveQueryKey = ['live'] as const

export const liveBalanceQueryOptions = () =>
  queryOptions<Balance>({ queryKey: [...liveQueryKey, 'balance'], queryFn: skipToken })

export const liveOrdersQueryOptions = () =>
  queryOptions<Position[]>({ queryKey: [...liveQueryKey, 'orders'], queryFn: skipToken })

export const liveBotStatusQueryOptions = () =>
  queryOptions<LiveBotStatus>({ queryKey: [...liveQueryKey, 'bot-status'], queryFn: skipToken })

/** The latest `balance` message's data: equity, available_balance, margin_balance. */
export function useLiveBalance(): Balance | undefined {
  return useQuery(liveBalanceQueryOptions()).data
}

/** The open positions of the latest `orders` message (the answer to `get_trades`). */
export function useLiveOrders(): Position[] | undefined {
  return useQuery(liveOrdersQueryOptions()).data
}

/** The latest `bot_status` message's data (spec section 4: "stopped initially": undefined here). */
export function useLiveBotStatus(): LiveBotStatus | undefined {
  return useQuery(liveBotStatusQueryOptions()).data
}

export function setLiveBalance(queryClient: QueryClient, data: Balance) {
  queryClient.setQueryData(liveBalanceQueryOptions().queryKey, data)
}

export function setLiveOrders(queryClient: QueryClient, data: Position[]) {
  queryClient.setQueryData(liveOrdersQueryOptions().queryKey, data)
}

export function setLiveBotStatus(queryClient: QueryClient, data: LiveBotStatus) {
  queryClient.setQueryData(liveBotStatusQueryOptions().queryKey, data)
}
