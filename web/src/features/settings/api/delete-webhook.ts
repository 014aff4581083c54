import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateWebhook, setWebhookStatusData } from '@/features/settings/api/get-webhook'

/** DELETE /api/webhook/: 204; 404 when the user has no webhook URL. */
export function deleteWebhook(): Promise<void> {
  return call(client.DELETE('/api/webhook/'))
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteWebhook,
    onSuccess: () => {
      setWebhookStatusData(queryClient, { configured: false, created_at: null })
    },
    // A 404 means the URL was already gone (removed in another tab): refetch either way.
    onSettled: () => invalidateWebhook(queryClient),
  })
}
