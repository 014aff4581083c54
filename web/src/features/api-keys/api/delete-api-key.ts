import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateApiKeys } from '@/features/api-keys/api/get-api-keys'
import { invalidateBotStatus } from '@/features/dashboard/api/get-bot-status'

/** DELETE /api/api-keys/{id}/: 204; 409 for the active key while the bot runs. */
export function deleteApiKey(id: number): Promise<void> {
  return call(client.DELETE('/api/api-keys/{id}/', { params: { path: { id } } }))
}

export function useDeleteApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteApiKey,
    // The venue follows the active key: the bot status is read again with the list.
    onSuccess: () => Promise.all([invalidateApiKeys(queryClient), invalidateBotStatus(queryClient)]),
  })
}
