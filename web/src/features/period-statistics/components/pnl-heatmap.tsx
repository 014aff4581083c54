import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { cn } from '@/lib/utils'
import { useStats, type HeatmapCell, type StatsFilter } from '@/features/period-statistics/api/get-stats'
import { statsStrings as s } from '@/features/period-statistics/strings'
import {
  cellColor,
  heatmapRows,
  HOURS_PER_DAY,
  maxAbsPnl,
} from '@/features/period-statistics/utils/heatmap-grid'
import { hourLabel } from '@/features/period-statistics/utils/stats-format'

const HOURS = Array.from({ length: HOURS_PER_DAY }, (_, hour) => hour)

/**
 * Not in the spec: the period's pnl by weekday (rows Monday..Sunday, the spec's Russian labels)
 * and hour (columns 0..23) in the user's time zone, from `heatmap` in GET /api/stats/. Green for
 * profit, red for loss, stronger with the amount; cells without trades are neutral. Each cell's
 * title gives its pnl and trade count. Nothing while the period loads, fails or has no trades.
 */
export function PnlHeatmap({ filter }: { filter: StatsFilter }) {
  const stats = useStats(filter)
  if (!stats.data || stats.data.total_trades === 0) return null
  return <PnlHeatmapCard cells={stats.data.heatmap} />
}

/** The weekday x hour heatmap card of `cells` (GET /api/stats/, a backtest's result). */
export function PnlHeatmapCard({ cells }: { cells: HeatmapCell[] }) {
  const maxAbs = maxAbsPnl(cells)

  return (
    <Card role="region" aria-label={s.heatmap}>
      <CardHeader>
        <CardTitle>{s.heatmap}</CardTitle>
        <CardDescription>{s.heatmapDescription}</CardDescription>
      </CardHeader>
      <CardContent className="overflow-x-auto">
        <table
          aria-label={s.heatmap}
          className="w-full min-w-[40rem] border-separate border-spacing-0.5 text-xs"
        >
          <thead>
            <tr>
              <td />
              {HOURS.map((hour) => (
                <th
                  key={hour}
                  scope="col"
                  abbr={hourLabel(hour)}
                  className="font-normal text-muted-foreground tabular-nums"
                >
                  {hour}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {heatmapRows(cells).map((row) => (
              <tr key={row.weekday}>
                <th
                  scope="row"
                  className="pr-2 text-left font-normal whitespace-nowrap text-muted-foreground"
                >
                  {row.label}
                </th>
                {row.cells.map((cell, hour) => {
                  const title = cell
                    ? s.heatmapCell(row.label, hourLabel(hour), cell.pnl.toFixed(2), cell.total)
                    : s.heatmapEmptyCell(row.label, hourLabel(hour))
                  return (
                    <td
                      key={hour}
                      title={title}
                      aria-label={title}
                      className={cn('h-6 min-w-5 rounded-sm', cellColor(cell, maxAbs))}
                    />
                  )
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </CardContent>
    </Card>
  )
}
