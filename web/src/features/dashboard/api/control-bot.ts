import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import type { BotControlResponse } from '@/types/api'
import { invalidateBotSettings, patchBotSettingsData } from '@/features/settings/api/get-bot-settings'

/**
 * POST /api/bot-settings/{id}/{action}/ with an empty body: one endpoint per action, all of the same
 * shape, so one file. `start_trading_worker` starts signal fetching first when it is off (the server
 * does it) and answers 400 "No active API key" without an active key.
 */
export type BotControlAction = 'start_trading_worker' | 'stop_bot' | 'start_signals' | 'stop_signals'

export type { BotControlResponse }

export type BotControlInput = { id: number; action: BotControlAction }

export function controlBot({ id, action }: BotControlInput): Promise<BotControlResponse> {
  return api.post<BotControlResponse>(`bot-settings/${id}/${action}/`)
}

export function useControlBot() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: controlBot,
    // The flags live on the settings record: show the answer at once, then refetch it whatever happened.
    onSuccess: ({ status }) => {
      if (
        typeof status.is_bot_running === 'boolean' &&
        typeof status.is_signals_fetching_active === 'boolean'
      ) {
        patchBotSettingsData(queryClient, {
          is_bot_running: status.is_bot_running,
          is_signals_fetching_active: status.is_signals_fetching_active,
        })
      }
    },
    onSettled: () => invalidateBotSettings(queryClient),
  })
}
