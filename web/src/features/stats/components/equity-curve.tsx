import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { pnlClass } from '@/lib/pnl-class'
import { useStats, type EquitySample, type StatsFilter } from '@/features/stats/api/get-stats'
import { statsStrings as s } from '@/features/stats/strings'
import { equityPoints, polylinePoints, zeroLineY } from '@/features/stats/utils/equity-points'

const WIDTH = 600
const HEIGHT = 160

/** The browser's local date and time of an epoch time. */
function formatTime(time: number): string {
  return new Date(time).toLocaleString()
}

/**
 * Not in the spec: the equity curve of the period, the cumulative pnl of `equity` in
 * GET /api/stats/ from zero, with its last value (2 decimals, green or red) and the first and last
 * times. Nothing while the period loads, fails or has no trades (the tiles show those states).
 */
export function EquityCurve({ filter }: { filter: StatsFilter }) {
  const stats = useStats(filter)
  if (!stats.data || stats.data.total_trades === 0) return null
  return <EquityCurveCard equity={stats.data.equity} />
}

/** The equity curve card of `equity` (GET /api/stats/, a backtest's result); nothing when empty. */
export function EquityCurveCard({ equity }: { equity: EquitySample[] }) {
  const points = equityPoints(equity)
  const first = points[0]
  const last = points.at(-1)
  if (!first || !last) return null

  return (
    <Card role="region" aria-label={s.equityCurve}>
      <CardHeader className="flex-row items-baseline justify-between gap-4">
        <CardTitle>{s.equityCurve}</CardTitle>
        <span className={pnlClass(last.value)} data-testid="equity-last">
          <span className="sr-only">{s.equityLast} </span>
          <span className="text-lg font-semibold tabular-nums">{last.value.toFixed(2)}</span>
        </span>
      </CardHeader>
      <CardContent className="space-y-2">
        <svg
          role="img"
          aria-label={s.equityCurveImage(points.length - 1)}
          viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`}
          preserveAspectRatio="none"
          className="h-40 w-full rounded-md border bg-muted/30"
        >
          <line
            x1={0}
            x2={WIDTH}
            y1={zeroLineY(points, HEIGHT)}
            y2={zeroLineY(points, HEIGHT)}
            stroke="currentColor"
            strokeDasharray="4 4"
            vectorEffect="non-scaling-stroke"
            className="text-muted-foreground/50"
          />
          <polyline
            fill="none"
            stroke="currentColor"
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
            className={last.value < 0 ? 'text-destructive' : 'text-success'}
            points={polylinePoints(points, WIDTH, HEIGHT)}
          />
        </svg>
        <div className="flex justify-between text-xs text-muted-foreground tabular-nums">
          <time dateTime={new Date(first.time).toISOString()}>{formatTime(first.time)}</time>
          <time dateTime={new Date(last.time).toISOString()}>{formatTime(last.time)}</time>
        </div>
      </CardContent>
    </Card>
  )
}
