import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateSessions } from '@/features/security/api/get-sessions'
import type { PasswordChange, Revoked } from '@/types/api'

/** POST /api/auth/password/: needs the current password; ends every other session. */
export function changePassword(change: PasswordChange): Promise<Revoked> {
  return call(client.POST('/api/auth/password/', { body: change }))
}

export function useChangePassword() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: changePassword, onSuccess: () => invalidateSessions(queryClient) })
}
