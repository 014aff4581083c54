import { createContext } from 'react'
import type { LiveStatus } from '@/lib/live/live-socket'

export type LiveContextValue = {
  status: LiveStatus
  /** When the connection was lost (ms since the epoch); null while it is open. */
  lostSince: number | null
  /** Tries to connect now instead of at the next scheduled try. */
  retryNow: () => void
  /** Sends `{"action":"get_signals"}` (answered by `signals_update`); false when not connected. */
  requestSignals: () => boolean
  /** Sends `{"action":"get_trades"}` (answered by `orders`); false when not connected. */
  requestTrades: () => boolean
}

/** Outside <LiveProvider> (the login page, component tests) there is no connection. */
export const LiveContext = createContext<LiveContextValue>({
  status: 'disconnected',
  lostSince: null,
  retryNow: () => undefined,
  requestSignals: () => false,
  requestTrades: () => false,
})
