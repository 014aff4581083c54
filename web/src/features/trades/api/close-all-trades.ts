import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { CloseAllTradesAnswer } from '@/types/api'
import { invalidateOpenTrades } from '@/features/trades/api/get-open-trades'

export type { CloseAllTradesAnswer }

/** POST /api/trades/close-all/ with no body: closes every open trade at market; answers how many. */
export function closeAllTrades(): Promise<CloseAllTradesAnswer> {
  return call(client.POST('/api/trades/close-all/'))
}

export function useCloseAllTrades() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: closeAllTrades,
    onSettled: () => invalidateOpenTrades(queryClient),
  })
}
