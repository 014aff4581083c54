import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateNotificationChannels } from '@/features/settings/api/get-notification-channels'
import type { NewNotificationChannel, NotificationChannel } from '@/types/api'

/** POST /api/notification-channels/: 201 with the channel (and, once, a secret the server made). */
export function createNotificationChannel(input: NewNotificationChannel): Promise<NotificationChannel> {
  return call(client.POST('/api/notification-channels/', { body: input }))
}

export function useCreateNotificationChannel() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createNotificationChannel,
    // The answer may hold a secret: not kept in the mutation cache.
    gcTime: 0,
    onSettled: () => invalidateNotificationChannels(queryClient),
  })
}
