import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { ApiKey } from '@/types/api'
import { invalidateApiKeys } from '@/features/api-keys/api/get-api-keys'
import { invalidateBotStatus } from '@/features/dashboard/api/get-bot-status'

/**
 * POST /api/api-keys/{id}/deactivate with no body: 200 with the key, now inactive; the user trades
 * on their paper account again. 409 while the bot runs, and while the user has open trades.
 */
export function deactivateApiKey(id: number): Promise<ApiKey> {
  return call(client.POST('/api/api-keys/{id}/deactivate/', { params: { path: { id } } }))
}

export function useDeactivateApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deactivateApiKey,
    // The venue follows the active key: the bot status is read again with the list.
    onSuccess: () => Promise.all([invalidateApiKeys(queryClient), invalidateBotStatus(queryClient)]),
  })
}
