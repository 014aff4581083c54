import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateNotificationChannels } from '@/features/settings/api/get-notification-channels'

/** DELETE /api/notification-channels/{id}/: 204. */
export function deleteNotificationChannel(id: number): Promise<void> {
  return call(client.DELETE('/api/notification-channels/{id}/', { params: { path: { id } } }))
}

export function useDeleteNotificationChannel() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteNotificationChannel,
    onSettled: () => invalidateNotificationChannels(queryClient),
  })
}
