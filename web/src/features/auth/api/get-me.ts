import { queryOptions, useQuery } from '@tanstack/react-query'
import { useEffect, useSyncExternalStore } from 'react'
import { call, client } from '@/lib/api-client'
import { shouldRetryQuery } from '@/lib/query-client'
import { clearSession, getToken, subscribeSession } from '@/lib/session'
import type { User } from '@/types/api'

/** GET /api/auth/me/: the logged-in user. */
export function getMe({ signal }: { signal?: AbortSignal } = {}): Promise<User> {
  return call(client.GET('/api/auth/me/', { signal }))
}

export const meQueryKey = ['auth', 'me'] as const

/**
 * The session check of spec section 4: with a stored token the current user is fetched; on
 * failure the token is removed and the user is logged out. Like every query (spec section 8) it
 * retries once first, so one network blip on load does not log the trader out; a 4xx is not
 * retried (a 401 has already cleared the session in the API client, spec section 6).
 */
export function meQueryOptions() {
  return queryOptions({
    queryKey: meQueryKey,
    queryFn: ({ signal }) => getMe({ signal }),
    retry: shouldRetryQuery,
    staleTime: Infinity,
  })
}

export type Session =
  | { status: 'loading'; user: null; isAuthenticated: false }
  | { status: 'authenticated'; user: User; isAuthenticated: true }
  | { status: 'unauthenticated'; user: null; isAuthenticated: false }

function useStoredToken() {
  return useSyncExternalStore(subscribeSession, getToken, () => null)
}

export function useSession(): Session {
  const token = useStoredToken()
  const me = useQuery({ ...meQueryOptions(), enabled: token !== null })
  // The check failed for good (after its retry): drop the stored token, i.e. log out.
  const failed = token !== null && me.isError
  useEffect(() => {
    if (failed) clearSession()
  }, [failed])
  if (token === null || me.isError) return { status: 'unauthenticated', user: null, isAuthenticated: false }
  if (me.data) return { status: 'authenticated', user: me.data, isAuthenticated: true }
  return { status: 'loading', user: null, isAuthenticated: false }
}
