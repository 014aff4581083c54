import type { Position, Trade } from '@/types/api'

/** One row of the Open Positions card: an open trade and what the live feed says about it. */
export type OpenPositionRow = {
  trade: Trade
  /** From the latest `orders` message; null until one lists the trade's symbol. */
  markPrice: number | null
  unrealizedPnl: number | null
  /** The venue's stop (it moves to break-even and trails), else the one the trade recorded. */
  stopLoss: number | null
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
    return {
      trade,
      markPrice: position?.mark_price ?? null,
      unrealizedPnl: position?.unrealized_pnl ?? null,
      stopLoss: position?.stop_loss ?? trade.stop_loss,
    }
  })
}
