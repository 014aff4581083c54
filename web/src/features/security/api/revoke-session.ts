import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { invalidateSessions } from '@/features/security/api/get-sessions'

/** DELETE /api/auth/sessions/{id}/: 204; that session's token and cookie stop working at once. */
export function revokeSession(id: number): Promise<void> {
  return api.delete<undefined>(`auth/sessions/${id}/`)
}

export function useRevokeSession() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: revokeSession, onSettled: () => invalidateSessions(queryClient) })
}
