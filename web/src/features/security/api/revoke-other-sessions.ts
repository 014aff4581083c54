import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateSessions } from '@/features/security/api/get-sessions'
import type { Revoked } from '@/types/api'

/** POST /api/auth/sessions/revoke-others/: ends every session but this one. */
export function revokeOtherSessions(): Promise<Revoked> {
  return call(client.POST('/api/auth/sessions/revoke-others/'))
}

export function useRevokeOtherSessions() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: revokeOtherSessions, onSettled: () => invalidateSessions(queryClient) })
}
