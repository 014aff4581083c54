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

/** The connection's loss, if it is lost: since when, and a way to try again now. */
export function useLiveConnection() {
  const { status, lostSince, retryNow } = useContext(LiveContext)
  return { status, lostSince, retryNow }
}
