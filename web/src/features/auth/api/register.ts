import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { setSession } from '@/lib/session'
import { meQueryKey } from '@/features/auth/api/get-me'
import type { AuthResponse, Credentials } from '@/features/auth/api/login'

/** POST /api/auth/register/ (answers 403 unless the server allows registration). */
export function register(credentials: Credentials): Promise<AuthResponse> {
  return call(client.POST('/api/auth/register/', { body: credentials }))
}

/** Registers and stores token and user, like login (spec section 4). No screen uses it yet. */
export function useRegister() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: register,
    onSuccess: ({ token, user }) => {
      queryClient.setQueryData(meQueryKey, user)
      setSession(token, user)
    },
  })
}
