import type { EquitySample } from '@/features/stats/api/get-stats'

/** A point of the equity curve: epoch milliseconds and the cumulative pnl. */
export type EquityPoint = { time: number; value: number }

/**
 * The curve of the period's cumulative pnl: it starts at 0 at the first sample's time (before the
 * first close nothing was won or lost), then follows the samples; one whose time does not parse is
 * left out.
 */
export function equityPoints(samples: readonly EquitySample[]): EquityPoint[] {
  const points = samples.flatMap((sample) => {
    const time = new Date(sample.time).getTime()
    return Number.isNaN(time) ? [] : [{ time, value: sample.pnl }]
  })
  const first = points[0]
  return first ? [{ time: first.time, value: 0 }, ...points] : []
}

/** Value -> height in a box of `height` (y grows downwards), from the lowest to the highest value, zero always inside. */
function yScale(points: readonly EquityPoint[], height: number) {
  const values = points.map((point) => point.value)
  const [min, max] = [Math.min(0, ...values), Math.max(0, ...values)]
  const span = max - min || 1
  return (value: number) => height - ((value - min) / span) * height
}

/** The points scaled into a `width` x `height` box as an SVG polyline: x by time, y by value. */
export function polylinePoints(points: readonly EquityPoint[], width: number, height: number): string {
  const y = yScale(points, height)
  const start = points[0]?.time ?? 0
  const duration = (points.at(-1)?.time ?? start) - start
  const x = (time: number, i: number) => {
    if (duration > 0) return ((time - start) / duration) * width
    return points.length > 1 ? (i / (points.length - 1)) * width : 0
  }
  return points.map((point, i) => `${x(point.time, i).toFixed(2)},${y(point.value).toFixed(2)}`).join(' ')
}

/** The height of zero in the same box, for the zero line. */
export function zeroLineY(points: readonly EquityPoint[], height: number): number {
  return yScale(points, height)(0)
}
