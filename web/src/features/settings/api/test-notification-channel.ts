import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateNotificationChannels } from '@/features/settings/api/get-notification-channels'
import type { ChannelTestResult } from '@/types/api'

/** POST /api/notification-channels/{id}/test/: sends a test message now; whether it went through. */
export function testNotificationChannel(id: number): Promise<ChannelTestResult> {
  return call(client.POST('/api/notification-channels/{id}/test/', { params: { path: { id } } }))
}

export function useTestNotificationChannel() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: testNotificationChannel,
    // The outcome is written on the channel (failures, last error).
    onSettled: () => invalidateNotificationChannels(queryClient),
  })
}
