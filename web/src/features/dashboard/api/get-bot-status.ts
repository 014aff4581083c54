import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { BotStatus } from '@/types/api'

export type { BotStatus }

/**
 * GET /api/bot/status/: the bot's flags and counts, and `venue`, where the user's bot trades
 * (`{exchange, environment}`: the active API key's, the paper account without one).
 *
 * This file owns that cache entry. The live feed's `bot_status` messages (the same object plus
 * `status`) replace it through `setBotStatusData`; a key change (Set Active, Deactivate, Delete)
 * and every bot control refetch it through `invalidateBotStatus`.
 */
export function getBotStatus({ signal }: { signal?: AbortSignal } = {}): Promise<BotStatus> {
  return call(client.GET('/api/bot/status/', { signal }))
}

export const botStatusQueryKey = ['bot-status'] as const

export function botStatusQueryOptions() {
  return queryOptions({ queryKey: botStatusQueryKey, queryFn: ({ signal }) => getBotStatus({ signal }) })
}

export function useBotStatus() {
  return useQuery(botStatusQueryOptions())
}

export function setBotStatusData(queryClient: QueryClient, status: BotStatus) {
  queryClient.setQueryData(botStatusQueryOptions().queryKey, status)
}

export function invalidateBotStatus(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: botStatusQueryKey })
}
