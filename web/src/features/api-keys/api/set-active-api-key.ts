import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { ActivatedApiKey } from '@/types/api'
import { invalidateApiKeys } from '@/features/api-keys/api/get-api-keys'
import { invalidateBotStatus } from '@/features/dashboard/api/get-bot-status'

/**
 * POST /api/api-keys/{id}/set_active/ with no body: that key becomes the only active one (409 while
 * the bot runs; 400 when the exchange refuses it or it can withdraw or transfer funds). The answer's
 * `warning` is set when the key is accepted but bound to no IP address.
 */
export function setActiveApiKey(id: number): Promise<ActivatedApiKey> {
  return call(client.POST('/api/api-keys/{id}/set_active/', { params: { path: { id } } }))
}

export function useSetActiveApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setActiveApiKey,
    // The venue follows the active key: the bot status is read again with the list.
    onSuccess: () => Promise.all([invalidateApiKeys(queryClient), invalidateBotStatus(queryClient)]),
  })
}
