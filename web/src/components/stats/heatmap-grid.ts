import type { HeatmapCell } from '@/types/api'
import { weekdayLabel } from '@/components/stats/stats-format'

export const HOURS_PER_DAY = 24

/** One row of the heatmap: a weekday, Monday first, and its 24 hours (null: no trades). */
export type HeatmapRow = { weekday: number; label: string; cells: (HeatmapCell | null)[] }

/**
 * The API weekday (1 = Sunday ... 7 = Saturday) of row `row`, Monday (0) to Sunday (6): the
 * inverse of the labels' shift by 2 modulo 7.
 */
export function weekdayOfRow(row: number): number {
  return ((row + 1) % 7) + 1
}

/** Seven rows Monday..Sunday of 24 hours; cells outside 1-7 x 0-23 are ignored. */
export function heatmapRows(cells: readonly HeatmapCell[]): HeatmapRow[] {
  return Array.from({ length: 7 }, (_, row) => {
    const weekday = weekdayOfRow(row)
    const hours: (HeatmapCell | null)[] = Array.from({ length: HOURS_PER_DAY }, () => null)
    for (const cell of cells) {
      if (cell.weekday === weekday && cell.hour >= 0 && cell.hour < HOURS_PER_DAY) hours[cell.hour] = cell
    }
    return { weekday, label: weekdayLabel(weekday), cells: hours }
  })
}

/** One row of the heatmap turned on its side (phones): an hour and its cell on each weekday. */
export type HeatmapHourRow = { hour: number; cells: { label: string; cell: HeatmapCell | null }[] }

/** The weekday rows as 24 hour rows of seven weekdays, Monday first (a phone's narrow grid). */
export function hourRows(rows: readonly HeatmapRow[]): HeatmapHourRow[] {
  return Array.from({ length: HOURS_PER_DAY }, (_, hour) => ({
    hour,
    cells: rows.map((row) => ({ label: row.label, cell: row.cells[hour] ?? null })),
  }))
}

/** Colour steps from faint to full, for profit (green) and loss (red). */
const PROFIT_STEPS = ['bg-success/20', 'bg-success/40', 'bg-success/70', 'bg-success'] as const
const LOSS_STEPS = ['bg-destructive/20', 'bg-destructive/40', 'bg-destructive/70', 'bg-destructive'] as const
export const EMPTY_CELL = 'bg-muted'
/** A cell with trades and a pnl of exactly zero. */
export const FLAT_CELL = 'bg-muted-foreground/30'

/**
 * The cell's colour: neutral without trades or with a zero pnl, else green for profit and red for
 * loss, stronger the nearer |pnl| is to the largest |pnl| of the grid (`maxAbs`).
 */
export function cellColor(cell: HeatmapCell | null, maxAbs: number): string {
  if (!cell) return EMPTY_CELL
  if (cell.pnl === 0 || maxAbs <= 0) return FLAT_CELL
  const steps = cell.pnl > 0 ? PROFIT_STEPS : LOSS_STEPS
  const share = Math.min(1, Math.abs(cell.pnl) / maxAbs)
  const index = Math.min(steps.length - 1, Math.max(0, Math.ceil(share * steps.length) - 1))
  return steps[index] ?? steps[0]
}

/** The largest |pnl| among the cells (0 without cells). */
export function maxAbsPnl(cells: readonly HeatmapCell[]): number {
  return cells.reduce((max, cell) => Math.max(max, Math.abs(cell.pnl)), 0)
}
