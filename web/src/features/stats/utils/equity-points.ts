import type { Chain } from '@/features/stats/api/get-martingale-chains'

export type EquityPoint = { time: number; value: number }

/**
 * The cumulative pnl over the chains' trades by creation time; trades without a pnl (still open)
 * are left out.
 */
export function equityPoints(chains: readonly Chain[]): EquityPoint[] {
  const trades = chains
    .flatMap((chain) => chain.trades)
    .flatMap((trade) => {
      const time = new Date(trade.created_at).getTime()
      return trade.pnl === null || Number.isNaN(time) ? [] : [{ time, pnl: trade.pnl }]
    })
    .sort((a, b) => a.time - b.time)
  let total = 0
  return trades.map(({ time, pnl }) => {
    total += pnl
    return { time, value: total }
  })
}

/** The points scaled into a `width` x `height` box (y grows downwards), as an SVG polyline. */
export function polylinePoints(points: readonly EquityPoint[], width: number, height: number): string {
  const values = points.map((point) => point.value)
  const [min, max] = [Math.min(0, ...values), Math.max(0, ...values)]
  const span = max - min || 1
  const step = points.length > 1 ? width / (points.length - 1) : 0
  return points
    .map(
      (point, i) => `${(i * step).toFixed(2)},${(height - ((point.value - min) / span) * height).toFixed(2)}`,
    )
    .join(' ')
}
