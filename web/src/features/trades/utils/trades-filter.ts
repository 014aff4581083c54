import { formatDateTime } from '@/lib/user-time'
import type { StatsPeriod } from '@/features/period-statistics/api/get-stats'

export const TRADE_SORTS = [
  'opened_desc',
  'opened_asc',
  'closed_desc',
  'closed_asc',
  'pnl_desc',
  'pnl_asc',
] as const
export type TradeSort = (typeof TRADE_SORTS)[number]

export const TRADE_SIDES = ['long', 'short'] as const
export const TRADE_STATUSES = ['open', 'closed', 'pending', 'cancelled'] as const
/** The close reasons the bot writes (docs/trading.md); imported trades may carry others. */
export const CLOSE_REASONS = [
  'stop_loss',
  'take_profit',
  'trailing',
  'manual',
  'liquidation',
  'reconciled',
  'not_filled',
  'rejected',
] as const

export const PAGE_SIZES = [25, 50, 100, 200] as const

/** The Trades page's filter; '' is "any" for the choices, and the dates of Custom. */
export type TradesFilter = {
  period: StatsPeriod
  dateFrom: string
  dateTo: string
  symbol: string
  side: '' | (typeof TRADE_SIDES)[number]
  status: '' | (typeof TRADE_STATUSES)[number]
  closeReason: '' | (typeof CLOSE_REASONS)[number]
  sort: TradeSort
}

export const DEFAULT_FILTER: TradesFilter = {
  period: 'all',
  dateFrom: '',
  dateTo: '',
  symbol: '',
  side: '',
  status: '',
  closeReason: '',
  sort: 'opened_desc',
}

/** `value` when it is one of `options`, else undefined (a select's value, typed). */
export function oneOf<T extends string>(options: readonly T[], value: string): T | undefined {
  return (options as readonly string[]).includes(value) ? (value as T) : undefined
}

/** `at` (RFC 3339) in `timeZone`, or '—' for none. */
export function formatInZone(at: string | null | undefined, timeZone: string): string {
  return at ? formatDateTime(at, timeZone) : '—'
}
