import { useContext } from 'react'
import { LiveContext } from '@/lib/live/live-context'
import type { LiveStatus } from '@/lib/live/live-socket'

/** 'connected' while the live feed is open, else 'disconnected'. */
export function useLiveStatus(): LiveStatus {
  return useContext(LiveContext).status
}

/** Requests to the live feed: `requestSignals()` (get_signals) and `requestTrades()` (get_trades). */
export function useLiveActions() {
  const { requestSignals, requestTrades } = useContext(LiveContext)
  return { requestSignals, requestTrades }
}
