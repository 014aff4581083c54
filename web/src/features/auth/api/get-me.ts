import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { api } from '@/lib/api-client'
import { clearSession, getToken, subscribeSession } from '@/lib/session'
import type { User } from '@/types/api'

/** GET /api/auth/me/: the logged-in user. */
export function getMe({ signal }: { signal?: AbortSignal } = {}): Promise<User> {
  return api.get<User>('auth/me/', { signal })
}

export const meQueryKey = ['auth', 'me'] as const

/**
 * The session check of spec section 4: with a stored token the current user is fetched; on any
 * failure the token is removed and the user is logged out.
 */
export function meQueryOptions() {
  return queryOptions({
    queryKey: meQueryKey,
    queryFn: async ({ signal }) => {
      try {
        return await getMe({ signal })
      } catch (error) {
        if (!signal.aborted) clearSession()
        throw error
      }
    },
    retry: false,
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
  if (token === null || me.isError) return { status: 'unauthenticated', user: null, isAuthenticated: false }
  if (me.data) return { status: 'authenticated', user: me.data, isAuthenticated: true }
  return { status: 'loading', user: null, isAuthenticated: false }
}
