import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import type { ApiKey } from '@/types/api'
import { invalidateApiKeys } from '@/features/api-keys/api/get-api-keys'
import { invalidateBotStatus } from '@/features/dashboard/api/get-bot-status'

/** POST /api/api-keys/{id}/set_active/ with no body: that key becomes the only active one (409 while the bot runs). */
export function setActiveApiKey(id: number): Promise<ApiKey> {
  return api.post<ApiKey>(`api-keys/${id}/set_active/`)
}

export function useSetActiveApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setActiveApiKey,
    // The venue follows the active key: the bot status is read again with the list.
    onSuccess: () => Promise.all([invalidateApiKeys(queryClient), invalidateBotStatus(queryClient)]),
  })
}
