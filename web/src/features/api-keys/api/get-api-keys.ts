import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { ApiKey } from '@/types/api'

/** GET /api/api-keys/: the user's keys, newest first, each key fully masked. */
export function getApiKeys({ signal }: { signal?: AbortSignal } = {}): Promise<ApiKey[]> {
  return call(client.GET('/api/api-keys/', { signal }))
}

export const apiKeysQueryKey = ['api-keys'] as const

export function apiKeysQueryOptions() {
  return queryOptions({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => getApiKeys({ signal }) })
}

export function useApiKeys() {
  return useQuery(apiKeysQueryOptions())
}

/** Spec section 4: after any successful key change the list is refetched. */
export function invalidateApiKeys(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: apiKeysQueryKey })
}
