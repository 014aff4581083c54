import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import type { BotSettings, BotSettingsPayload } from '@/types/api'
import { invalidateBotSettings, setBotSettingsData } from '@/features/settings/api/get-bot-settings'

export type UpdateBotSettingsInput = { id: number; payload: BotSettingsPayload }

/** PUT /api/bot-settings/{id}/ with the whole form, or with `{bot_mode}` alone. 400 with `fields` on bad input. */
export function updateBotSettings({ id, payload }: UpdateBotSettingsInput): Promise<BotSettings> {
  return api.put<BotSettings>(`bot-settings/${id}/`, payload)
}

export function useUpdateBotSettings() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: updateBotSettings,
    onSuccess: (record) => {
      setBotSettingsData(queryClient, record)
      void invalidateBotSettings(queryClient)
    },
  })
}
