import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from 'react-router'
import { call, client } from '@/lib/api-client'
import { clearSession } from '@/lib/session'

/** POST /api/auth/logout/ with an empty body. */
export function logout(): Promise<unknown> {
  return call(client.POST('/api/auth/logout/'))
}

/** Calls the server, then always clears token and user and goes to /login (spec section 4). */
export function useLogout() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  return useMutation({
    mutationFn: logout,
    onSettled: () => {
      clearSession()
      queryClient.removeQueries()
      void navigate('/login', { replace: true })
    },
  })
}
