import type { UTCTimestamp } from 'lightweight-charts'
import type { EquitySample } from '@/types/api'
import { toChartTime } from '@/lib/charts/chart-time'

/** A point of the equity curve as lightweight-charts takes it: UTC seconds and the cumulative pnl. */
export type EquityPoint = { time: UTCTimestamp; value: number }

/**
 * The series of the period's cumulative pnl for lightweight-charts, whose times must rise
 * strictly: samples whose time does not parse are left out; the rest are put in time order
 * (samples of one instant keep their order) and in whole seconds; of the samples of one second
 * the last one stays (the cumulative pnl after every close of that second). The curve starts
 * at 0 one second before the first sample (before the first close nothing was won or lost).
 */
export function equitySeries(samples: readonly EquitySample[]): EquityPoint[] {
  const timed = samples
    .flatMap((sample) => {
      const milliseconds = new Date(sample.time).getTime()
      return Number.isNaN(milliseconds) ? [] : [{ time: toChartTime(milliseconds), value: sample.pnl }]
    })
    .sort((a, b) => a.time - b.time)
  const points: EquityPoint[] = []
  for (const point of timed) {
    if (points.at(-1)?.time === point.time) points[points.length - 1] = point
    else points.push(point)
  }
  const first = points[0]
  return first ? [{ time: (first.time - 1) as UTCTimestamp, value: 0 }, ...points] : []
}
