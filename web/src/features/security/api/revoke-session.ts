import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateSessions } from '@/features/security/api/get-sessions'

/** DELETE /api/auth/sessions/{id}/: 204; that session's token and cookie stop working at once. */
export function revokeSession(id: number): Promise<void> {
  return call(client.DELETE('/api/auth/sessions/{id}/', { params: { path: { id } } }))
}

export function useRevokeSession() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: revokeSession, onSettled: () => invalidateSessions(queryClient) })
}
