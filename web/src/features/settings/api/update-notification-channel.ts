import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateNotificationChannels } from '@/features/settings/api/get-notification-channels'
import type { NewNotificationChannel, NotificationChannel } from '@/types/api'

export type ChannelChange = { id: number; input: Omit<NewNotificationChannel, 'kind'> }

/**
 * PUT /api/notification-channels/{id}/: the fields given change, those left out (the URL and the
 * secret, which are never shown) keep their value; the kind cannot change.
 */
export function updateNotificationChannel({ id, input }: ChannelChange): Promise<NotificationChannel> {
  return call(client.PUT('/api/notification-channels/{id}/', { params: { path: { id } }, body: input }))
}

export function useUpdateNotificationChannel() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: updateNotificationChannel,
    // The variables hold the new URL and secret: not kept in the mutation cache.
    gcTime: 0,
    onSettled: () => invalidateNotificationChannels(queryClient),
  })
}
