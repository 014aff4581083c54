import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { SessionInfo } from '@/types/api'

/** GET /api/auth/sessions/: the user's sessions, the most recently used first. */
export function getSessions({ signal }: { signal?: AbortSignal } = {}): Promise<SessionInfo[]> {
  return call(client.GET('/api/auth/sessions/', { signal }))
}

export const sessionsQueryKey = ['auth', 'sessions'] as const

export function sessionsQueryOptions() {
  return queryOptions({ queryKey: sessionsQueryKey, queryFn: ({ signal }) => getSessions({ signal }) })
}

export function useSessions() {
  return useQuery(sessionsQueryOptions())
}

export function invalidateSessions(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: sessionsQueryKey })
}
