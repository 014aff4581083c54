import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import type { BotSettings, BotSettingsPayload } from '@/types/api'
import { invalidateBotSettings, setBotSettingsData } from '@/features/settings/api/get-bot-settings'

/**
 * POST /api/bot-settings/ creates the record (409 if the user has one). The server creates it on
 * the first list already; this covers a list that came back empty.
 */
export function createBotSettings(payload: BotSettingsPayload): Promise<BotSettings> {
  return api.post<BotSettings>('bot-settings/', payload)
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
