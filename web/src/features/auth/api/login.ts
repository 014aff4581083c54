import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { setSession } from '@/lib/session'
import type { AuthResponse, Credentials } from '@/types/api'
import { meQueryKey } from '@/features/auth/api/get-me'

export type { AuthResponse, Credentials }

/** POST /api/auth/login/. */
export function login(credentials: Credentials): Promise<AuthResponse> {
  return call(client.POST('/api/auth/login/', { body: credentials }))
}

/** Logs in and stores token and user (spec section 4); the caller navigates. */
export function useLogin() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: login,
    onSuccess: ({ token, user }) => {
      // Seed the session check first so enabling it (by storing the token) fetches nothing.
      queryClient.setQueryData(meQueryKey, user)
      setSession(token, user)
    },
  })
}
