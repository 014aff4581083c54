import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { Me } from '@/types/api'

/**
 * GET /api/auth/me/ for the Security section: whether two-factor login is on and how many
 * recovery codes are left. A key of its own, since the session's entry is seeded by the login
 * answer, which does not say.
 */
export function getTwoFactorStatus({ signal }: { signal?: AbortSignal } = {}): Promise<Me> {
  return call(client.GET('/api/auth/me/', { signal }))
}

export const twoFactorQueryKey = ['auth', 'two-factor'] as const

export function twoFactorQueryOptions() {
  return queryOptions({
    queryKey: twoFactorQueryKey,
    queryFn: ({ signal }) => getTwoFactorStatus({ signal }),
  })
}

export function useTwoFactorStatus() {
  return useQuery(twoFactorQueryOptions())
}

export function invalidateTwoFactor(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: twoFactorQueryKey })
}
