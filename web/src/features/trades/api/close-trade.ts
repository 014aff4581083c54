import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { Trade } from '@/types/api'
import { invalidateOpenTrades, removeOpenTrade } from '@/features/trades/api/get-open-trades'

/**
 * POST /api/trades/{id}/close/ with no body: closes an open trade at market and answers it closed.
 * 404 when the trade is not the user's; 409 "This trade is not open".
 */
export function closeTrade(id: number): Promise<Trade> {
  return call(client.POST('/api/trades/{id}/close/', { params: { path: { id } } }))
}

export function useCloseTrade() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: closeTrade,
    onSuccess: (_, id) => {
      removeOpenTrade(queryClient, id)
    },
    // A 409 means it was closed already (a stop, another tab): refetch either way.
    onSettled: () => invalidateOpenTrades(queryClient),
  })
}
