import { VenueBadge } from '@/components/venue-badge'
import { formatPrice } from '@/lib/format-number'
import type { Venue } from '@/types/api'

/*
 * What the trade tables (a backtest's trades, Open Positions, the Trades page) show the same way.
 */

/** The symbol with the trade's venue badge under it; reads "BTCUSDT Paper". */
export function TradeSymbol({ symbol, venue }: { symbol: string; venue: Venue | null | undefined }) {
  return (
    <span className="inline-flex flex-col items-start gap-1">
      {symbol}
      {/* A space, so the row reads "BTCUSDT Paper" (not rendered between flex items). */}
      {venue ? ' ' : null}
      <VenueBadge venue={venue} />
    </span>
  )
}

/** A price in the language's digits, "—" when there is none (not entered or not closed yet). */
export function TradePrice({ value }: { value: number | null | undefined }) {
  return <>{value === null || value === undefined ? '—' : formatPrice(value)}</>
}
