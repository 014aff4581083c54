import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { BotSettings, BotSettingsPayload } from '@/types/api'
import { invalidateBotSettings, setBotSettingsData } from '@/features/settings/api/get-bot-settings'

export type UpdateBotSettingsInput = { id: number; payload: BotSettingsPayload }

/** PUT /api/bot-settings/{id}/ with the whole form, or with `{bot_mode}` alone. 400 with `fields` on bad input. */
export function updateBotSettings({ id, payload }: UpdateBotSettingsInput): Promise<BotSettings> {
  // The document types hour ranges as arrays; the server sends pairs.
  return call(
    client.PUT('/api/bot-settings/{id}/', { params: { path: { id } }, body: payload }),
  ) as Promise<BotSettings>
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
