import { liveSection } from '@/i18n/catalogue'
import type { Trade } from '@/types/api'

/*
 * A trade's status and close reason in the current language, the same on every page that lists
 * trades (the Trades page, a backtest's trades). The words are the trades catalogue's.
 */

const s = liveSection('trades')

/** "CLOSED" as "Closed" (or "Закрыта"). */
export function tradeStatusLabel(status: Trade['status']): string {
  return s.statuses[status.toLowerCase() as Lowercase<Trade['status']>]
}

/** "stop_loss" as "Stop loss"; a reason the catalogue does not know (an imported one) as written. */
export function closeReasonLabel(reason: string): string {
  return s.closeReasons[reason] ?? reason
}
