import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { NotificationChannel } from '@/types/api'

/**
 * GET /api/notification-channels/: the user's channels, URLs masked and secrets never included,
 * each with its delivery failures.
 */
export function getNotificationChannels({ signal }: { signal?: AbortSignal } = {}): Promise<
  NotificationChannel[]
> {
  return call(client.GET('/api/notification-channels/', { signal }))
}

export const notificationChannelsQueryKey = ['notification-channels'] as const

export function notificationChannelsQueryOptions() {
  return queryOptions({
    queryKey: notificationChannelsQueryKey,
    queryFn: ({ signal }) => getNotificationChannels({ signal }),
  })
}

export function useNotificationChannels() {
  return useQuery(notificationChannelsQueryOptions())
}

export function invalidateNotificationChannels(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: notificationChannelsQueryKey })
}
