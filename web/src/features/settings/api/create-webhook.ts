import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { NewWebhook } from '@/types/api'
import { invalidateWebhook, setWebhookStatusData } from '@/features/settings/api/get-webhook'

/** POST /api/webhook/ with no body: 201 with a new secret URL path; the previous URL stops working at once. */
export function createWebhook(): Promise<NewWebhook> {
  return call(client.POST('/api/webhook/'))
}

/**
 * Only the status (configured, created_at) goes into the query cache, never the path. gcTime 0:
 * the mutation, whose data holds the path, leaves the cache as soon as the card resets it after
 * copying the path into its own state.
 */
export function useCreateWebhook() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createWebhook,
    gcTime: 0,
    onSuccess: ({ created_at }) => {
      setWebhookStatusData(queryClient, { configured: true, created_at })
      void invalidateWebhook(queryClient)
    },
  })
}
