import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { BotControlResponse } from '@/types/api'
import { invalidateBotSettings, patchBotSettingsData } from '@/features/settings/api/get-bot-settings'
import { invalidateBotStatus } from '@/features/dashboard/api/get-bot-status'

/**
 * POST /api/bot-settings/{id}/{action}/ with an empty body: one endpoint per action, all of the same
 * shape, so one file. `start_trading_worker` trades on the venue of the active API key, or on the
 * user's paper account when no key is active.
 *
 * Start Bot follows spec section 4 in the client: the settings record is read first
 * (GET /api/bot-settings/{id}/); if signal fetching is inactive, start_signals is posted and only
 * then start_trading_worker. (The server would start the signals itself too; DESIGN.md section 5.)
 */
export type BotControlAction = 'start_trading_worker' | 'stop_bot' | 'start_signals' | 'stop_signals'

export type { BotControlResponse }

export type BotControlInput = { id: number; action: BotControlAction }

function postAction({ id, action }: BotControlInput): Promise<BotControlResponse> {
  const init = { params: { path: { id } } }
  switch (action) {
    case 'start_trading_worker':
      return call(client.POST('/api/bot-settings/{id}/start_trading_worker/', init))
    case 'stop_bot':
      return call(client.POST('/api/bot-settings/{id}/stop_bot/', init))
    case 'start_signals':
      return call(client.POST('/api/bot-settings/{id}/start_signals/', init))
    case 'stop_signals':
      return call(client.POST('/api/bot-settings/{id}/stop_signals/', init))
  }
}

export async function controlBot({ id, action }: BotControlInput): Promise<BotControlResponse> {
  if (action === 'start_trading_worker') {
    const record = await call(client.GET('/api/bot-settings/{id}/', { params: { path: { id } } }))
    if (!record.is_signals_fetching_active) await postAction({ id, action: 'start_signals' })
  }
  return postAction({ id, action })
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
    // The status (and its venue) is read again too.
    onSettled: () => Promise.all([invalidateBotSettings(queryClient), invalidateBotStatus(queryClient)]),
  })
}
