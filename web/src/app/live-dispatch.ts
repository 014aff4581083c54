import type { QueryClient } from '@tanstack/react-query'
import { setLiveBalance, setLiveBotStatus, setLiveOrders } from '@/lib/live/live-cache'
import { signalOf, type ServerMessage } from '@/lib/live/messages'
import { applyLiveAlert } from '@/features/alerts/api/get-alerts'
import { setBotStatusData } from '@/features/dashboard/api/get-bot-status'
import { invalidateDashboard, patchDashboardBalance } from '@/features/dashboard/api/get-dashboard'
import { prependLog } from '@/features/logs/api/get-logs'
import { invalidateBotSettings, patchBotSettingsData } from '@/features/settings/api/get-bot-settings'
import { putSignalFirst, replaceSignals } from '@/features/signals/api/get-signals'
import { applyLiveStatistics } from '@/features/live-statistics/api/get-statistics'
import { invalidateOpenTrades } from '@/features/trades/api/get-open-trades'

/**
 * Live event -> query cache. Each cache entry is changed through the file that owns it:
 *
 * | message          | cache                                                                     |
 * | ---------------- | ------------------------------------------------------------------------- |
 * | `signals_update` | the signals list is replaced (capped at 50)                               |
 * | `signal`         | its symbol's entry is removed and the new one put first (capped at 50)    |
 * | `new_log`        | prepended to the 'all' logs list and to its level's list (capped at 1000) |
 * | `balance`        | ['live', 'balance'] and the cached dashboard answer's balance             |
 * | `orders`         | ['live', 'orders']; the open trades and the dashboard's counts and 24h    |
 * |                  | volume are refetched (a fill or close)                                    |
 * | `bot_status`     | ['live', 'bot-status'] and GET /api/bot/status/'s entry (the venue); the  |
 * |                  | settings record's flags, then it is refetched                             |
 * | `statistics`     | (all time) the 'all' statistics entry; the other periods are refetched    |
 * | `alert`          | ['alerts']: a raised alert first, a cleared one replaces its raised entry |
 * | `error`          | console.warn only (spec section 8: nothing shown)                         |
 */
export function dispatchLiveMessage(queryClient: QueryClient, message: ServerMessage): void {
  switch (message.type) {
    case 'signals_update':
      replaceSignals(queryClient, message.signals)
      return
    case 'signal':
      putSignalFirst(queryClient, signalOf(message))
      return
    case 'new_log':
      prependLog(queryClient, message.data)
      return
    case 'balance':
      setLiveBalance(queryClient, message.data)
      patchDashboardBalance(queryClient, message.data)
      return
    case 'orders':
      setLiveOrders(queryClient, message.data)
      // Sent after every fill and close: the open trades, counts and volume changed too.
      void invalidateOpenTrades(queryClient)
      void invalidateDashboard(queryClient)
      return
    case 'bot_status': {
      const { is_bot_running, is_signals_fetching_active, bot_mode } = message.data
      setLiveBotStatus(queryClient, message.data)
      setBotStatusData(queryClient, message.data)
      // The Bot Status card shows the new flags at once, then reads the record again.
      patchBotSettingsData(queryClient, { is_bot_running, is_signals_fetching_active, bot_mode })
      void invalidateBotSettings(queryClient)
      return
    }
    case 'statistics':
      void applyLiveStatistics(queryClient, message.data)
      return
    case 'alert':
      applyLiveAlert(queryClient, message.data)
      return
    case 'error':
      console.warn('Live feed: the server answered an error:', message.error)
      return
    case 'authenticated':
    case 'pong':
      return
    default: {
      const unhandled: never = message
      console.warn('Live feed: unhandled message', unhandled)
    }
  }
}
