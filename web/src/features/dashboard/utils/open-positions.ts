import type { Position, Trade } from '@/types/api'

/** One row of the Open Positions card: an open trade and what the live feed says about it. */
export type OpenPositionRow = {
  trade: Trade
  /** From the latest `orders` message; null until one lists the trade's symbol. */
  markPrice: number | null
  unrealizedPnl: number | null
  /** The venue's stop (it moves to break-even and trails), else the one the trade recorded. */
  stopLoss: number | null
  /** From the live feed: where the venue would liquidate, and the next take profit's price. */
  liquidationPrice: number | null
  takeProfit: number | null
  /** The position's margin (the live feed's, else the trade's), and the pnl as a percent of it. */
  margin: number
  pnlPct: number | null
  /** When the position opened (RFC 3339): the trade's fill, else the venue's, else the order's. */
  openedAt: string
}

/**
 * The open trades (newest first, as the server lists them) with the live positions matched by
 * symbol: the bot holds at most one open trade per symbol, and a venue position per symbol.
 * Positions with no open trade are left out: the `orders` message that brought them also
 * refetches the trades.
 */
export function mergeOpenPositions(trades: Trade[], live: Position[] | undefined): OpenPositionRow[] {
  const bySymbol = new Map((live ?? []).map((position) => [position.symbol, position]))
  return trades.map((trade) => {
    const position = bySymbol.get(trade.symbol)
    const unrealizedPnl = position?.unrealized_pnl ?? null
    const margin = position?.margin ?? trade.margin
    return {
      trade,
      markPrice: position?.mark_price ?? null,
      unrealizedPnl,
      stopLoss: position?.stop_loss ?? trade.stop_loss,
      liquidationPrice: position?.liquidation_price ?? null,
      takeProfit: position?.take_profit ?? null,
      margin,
      pnlPct: unrealizedPnl !== null && margin > 0 ? (unrealizedPnl / margin) * 100 : null,
      openedAt: trade.opened_at ?? position?.opened_at ?? trade.created_at,
    }
  })
}

/** How long since `since` (RFC 3339) at `now` (ms): "3d 4h", "2h 15m", "45m", "<1m". */
export function openFor(since: string, now: number): string {
  const start = Date.parse(since)
  if (Number.isNaN(start)) return '—'
  const minutes = Math.max(0, Math.floor((now - start) / 60_000))
  if (minutes < 1) return '<1m'
  const days = Math.floor(minutes / 1440)
  const hours = Math.floor((minutes % 1440) / 60)
  const rest = minutes % 60
  if (days > 0) return `${String(days)}d ${String(hours)}h`
  if (hours > 0) return `${String(hours)}h ${String(rest)}m`
  return `${String(rest)}m`
}
