import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { cn } from '@/lib/utils'
import { liveSection } from '@/i18n/catalogue'
import type { HeatmapCell } from '@/types/api'
import {
  cellColor,
  heatmapRows,
  hourRows,
  HOURS_PER_DAY,
  maxAbsPnl,
  type HeatmapRow,
} from '@/components/stats/heatmap-grid'
import { DESKTOP_QUERY, useMediaQuery } from '@/lib/use-media-query'
import { hourLabel } from '@/components/stats/stats-format'
import { formatNumber } from '@/lib/format-number'

const s = liveSection('periodStatistics')

const HOURS = Array.from({ length: HOURS_PER_DAY }, (_, hour) => hour)

/**
 * Not in the spec: the period's pnl by weekday (rows Monday..Sunday, the spec's Russian labels)
 * and hour (columns 0..23) in the user's time zone, from `heatmap` in GET /api/stats/. Green for
 * profit, red for loss, stronger with the amount; cells without trades are neutral. Each cell's
 * title gives its pnl and trade count. Under 768 px the grid turns on its side (rows 0..23,
 * columns Monday..Sunday), so all 24 hours fit a phone's width. Used by /stats and a backtest's result.
 */
export function PnlHeatmapCard({ cells }: { cells: HeatmapCell[] }) {
  const maxAbs = maxAbsPnl(cells)
  const desktop = useMediaQuery(DESKTOP_QUERY)
  const rows = heatmapRows(cells)

  return (
    <Card role="region" aria-label={s.heatmap}>
      <CardHeader>
        <CardTitle>{s.heatmap}</CardTitle>
        <CardDescription>{s.heatmapDescription}</CardDescription>
      </CardHeader>
      <CardContent className="overflow-x-auto">
        {desktop ? <WeekdayGrid rows={rows} maxAbs={maxAbs} /> : <HourGrid rows={rows} maxAbs={maxAbs} />}
      </CardContent>
    </Card>
  )
}

type GridProps = { rows: HeatmapRow[]; maxAbs: number }

/** One hour of one weekday: its colour, and its pnl and trades as its name. */
function GridCell({
  weekday,
  hour,
  cell,
  maxAbs,
}: {
  weekday: string
  hour: number
  cell: HeatmapCell | null
  maxAbs: number
}) {
  const title = cell
    ? s.heatmapCell(weekday, hourLabel(hour), formatNumber(cell.pnl, 2), cell.total)
    : s.heatmapEmptyCell(weekday, hourLabel(hour))
  return (
    <td title={title} aria-label={title} className={cn('h-6 min-w-5 rounded-sm', cellColor(cell, maxAbs))} />
  )
}

/** Rows Monday..Sunday, columns 0..23 (wide screens). */
function WeekdayGrid({ rows, maxAbs }: GridProps) {
  return (
    <table aria-label={s.heatmap} className="w-full min-w-[40rem] border-separate border-spacing-0.5 text-xs">
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
        {rows.map((row) => (
          <tr key={row.weekday}>
            <th scope="row" className="pr-2 text-left font-normal whitespace-nowrap text-muted-foreground">
              {row.label}
            </th>
            {row.cells.map((cell, hour) => (
              <GridCell key={hour} weekday={row.label} hour={hour} cell={cell} maxAbs={maxAbs} />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** Rows 0..23, columns Monday..Sunday, their names written upwards (phones). */
function HourGrid({ rows, maxAbs }: GridProps) {
  return (
    <table aria-label={s.heatmap} className="w-full table-fixed border-separate border-spacing-0.5 text-xs">
      <thead>
        <tr>
          <td className="w-8" />
          {rows.map((row) => (
            <th
              key={row.weekday}
              scope="col"
              className="h-24 rotate-180 align-bottom font-normal text-muted-foreground [writing-mode:vertical-rl]"
            >
              {row.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {hourRows(rows).map((row) => (
          <tr key={row.hour}>
            <th
              scope="row"
              abbr={hourLabel(row.hour)}
              className="pr-1 text-right font-normal text-muted-foreground tabular-nums"
            >
              {row.hour}
            </th>
            {row.cells.map(({ label, cell }) => (
              <GridCell key={label} weekday={label} hour={row.hour} cell={cell} maxAbs={maxAbs} />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
