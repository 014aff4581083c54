import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { WebhookStatus } from '@/types/api'

/**
 * GET /api/webhook/: whether the user has a TradingView webhook URL, and since when. The answer
 * never holds the URL, so this entry is the only webhook data the query cache ever keeps.
 */
export function getWebhookStatus({ signal }: { signal?: AbortSignal } = {}): Promise<WebhookStatus> {
  return call(client.GET('/api/webhook/', { signal }))
}

export const webhookQueryKey = ['webhook'] as const

export function webhookQueryOptions() {
  return queryOptions({ queryKey: webhookQueryKey, queryFn: ({ signal }) => getWebhookStatus({ signal }) })
}

export function useWebhookStatus() {
  return useQuery(webhookQueryOptions())
}

/** Puts a status into the cache at once (after a create or a delete), before the refetch. */
export function setWebhookStatusData(queryClient: QueryClient, status: WebhookStatus) {
  queryClient.setQueryData(webhookQueryOptions().queryKey, status)
}

export function invalidateWebhook(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: webhookQueryKey })
}
