import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { BotSettings, BotSettingsPayload } from '@/types/api'
import { invalidateBotSettings, setBotSettingsData } from '@/features/settings/api/get-bot-settings'

/**
 * POST /api/bot-settings/ creates the record (409 if the user has one). The server creates it on
 * the first list already; this covers a list that came back empty.
 */
export function createBotSettings(payload: BotSettingsPayload): Promise<BotSettings> {
  // The document types hour ranges as arrays; the server sends pairs.
  return call(client.POST('/api/bot-settings/', { body: payload })) as Promise<BotSettings>
}

export function useCreateBotSettings() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createBotSettings,
    onSuccess: (record) => {
      setBotSettingsData(queryClient, record)
      void invalidateBotSettings(queryClient)
    },
  })
}
