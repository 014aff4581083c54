import { QueryClient } from '@tanstack/react-query'
import { ApiError } from '@/lib/api-client'
import { liveQueryKey } from '@/lib/live/live-cache'

/** Spec sections 8 and 9: queries retry once, never refetch on window focus, cache kept 5 minutes. */
export const QUERY_GC_TIME_MS = 5 * 60 * 1000
export const QUERY_RETRY_COUNT = 1

/**
 * Retry once, except answers the server gave on purpose (4xx: bad input, not logged in, not found,
 * rate limited), which a second identical request would only repeat.
 */
export function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false
  return failureCount < QUERY_RETRY_COUNT
}

export function createQueryClient() {
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetryQuery,
        refetchOnWindowFocus: false,
        gcTime: QUERY_GC_TIME_MS,
      },
      mutations: {
        retry: false,
      },
    },
  })
  // Only the live feed writes the ['live', …] entries (lib/live/live-cache.ts); nothing could
  // fetch them again, so they are neither stale nor collected while the app runs.
  queryClient.setQueryDefaults(liveQueryKey, { staleTime: Infinity, gcTime: Infinity })
  return queryClient
}
