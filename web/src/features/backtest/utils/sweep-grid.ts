import type { BacktestRequest, SweepAxis, SweepCell, SweepResult } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'
import { overrideLabel } from '@/features/backtest/utils/overrides'
import { formatNumber } from '@/lib/format-number'

/** One cell of the grid: its values (one per axis), name, outcome and accessible label. */
export type GridCell = {
  values: number[]
  /** E.g. "Stop loss % 1, First take profit % 2". */
  name: string
  /** `summary.stats.total_pnl`; null without a summary. */
  pnl: number | null
  /** `summary.max_drawdown_pct`; null without a summary. */
  drawdown: number | null
  error: string | null
  /** The name with the outcome, for screen readers and tooltips. */
  label: string
}

/** Rows are the first axis' values, columns the second's (one column for a single axis). */
export type SweepGrid = {
  rowAxis: SweepAxis
  columnAxis: SweepAxis | null
  rows: { value: number; cells: GridCell[] }[]
}

function gridCell(axes: readonly SweepAxis[], values: number[], cell: SweepCell | undefined): GridCell {
  const name = s.sweepCellName(axes.map((axis, i) => `${overrideLabel(axis.field)} ${String(values[i])}`))
  const summary = cell?.summary ?? null
  const error = cell?.error ?? null
  const pnl = summary ? summary.stats.total_pnl : null
  const drawdown = summary ? summary.max_drawdown_pct : null
  const label =
    error !== null
      ? s.sweepCellFailed(name, error)
      : pnl !== null && drawdown !== null
        ? s.sweepCellLabel(name, formatNumber(pnl, 2), formatNumber(drawdown, 2))
        : s.sweepCellEmpty(name)
  return { values, name, pnl, drawdown, error, label }
}

/**
 * A finished sweep as a grid: the cells come in order with the last axis fastest, so row r,
 * column c is cell r × columns + c; a missing cell is shown as having no result. Null without axes.
 */
export function sweepGrid({ sweep }: SweepResult): SweepGrid | null {
  const [rowAxis, columnAxis] = sweep.axes
  if (!rowAxis) return null
  const axes = columnAxis ? [rowAxis, columnAxis] : [rowAxis]
  const columns = columnAxis ? columnAxis.values : [null]
  return {
    rowAxis,
    columnAxis: columnAxis ?? null,
    rows: rowAxis.values.map((rowValue, r) => ({
      value: rowValue,
      cells: columns.map((columnValue, c) => {
        const values = columnValue === null ? [rowValue] : [rowValue, columnValue]
        return gridCell(axes, values, sweep.cells[r * columns.length + c])
      }),
    })),
  }
}

/**
 * The single run that reproduces a cell: the sweep's period, symbols, signal source and data, and
 * its overrides with the cell's values on top; no `sweep`.
 */
export function cellRequest(
  request: BacktestRequest,
  axes: readonly SweepAxis[],
  values: readonly number[],
): BacktestRequest {
  const overrides: Record<string, unknown> = { ...(request.overrides ?? {}) }
  axes.forEach((axis, i) => {
    const value = values[i]
    if (value !== undefined) overrides[axis.field] = value
  })
  const single: BacktestRequest = {
    date_from: request.date_from,
    date_to: request.date_to,
    overrides,
  }
  if (request.symbols != null) single.symbols = request.symbols
  if (request.source != null) single.source = request.source
  if (request.data != null) single.data = request.data
  return single
}

/** The grid's cells, row by row. */
export function gridCells(grid: SweepGrid): GridCell[] {
  return grid.rows.flatMap((row) => row.cells)
}

const PROFIT_STEPS = ['bg-success/20', 'bg-success/40', 'bg-success/70', 'bg-success'] as const
const LOSS_STEPS = ['bg-destructive/20', 'bg-destructive/40', 'bg-destructive/70', 'bg-destructive'] as const
const DRAWDOWN_STEPS = [
  'bg-destructive/15',
  'bg-destructive/35',
  'bg-destructive/60',
  'bg-destructive/85',
] as const
export const NO_RESULT_CELL = 'bg-muted'
export const FLAT_CELL = 'bg-muted-foreground/30'

/** Step 0..3 of `value` against `max` (both above 0): up to 25 %, 50 %, 75 %, 100 %. */
function step(value: number, max: number): number {
  const share = Math.min(1, value / max)
  return Math.min(3, Math.max(0, Math.ceil(share * 4) - 1))
}

/** A total pnl's colour: green for profit, red for loss, in 4 steps of |pnl| against the grid's largest. */
export function pnlHeat(pnl: number | null, maxAbs: number): string {
  if (pnl === null) return NO_RESULT_CELL
  if (pnl === 0 || maxAbs <= 0) return FLAT_CELL
  const steps = pnl > 0 ? PROFIT_STEPS : LOSS_STEPS
  return steps[step(Math.abs(pnl), maxAbs)] ?? FLAT_CELL
}

/** A max drawdown's colour: red, stronger in 4 steps against the grid's deepest; none for 0. */
export function drawdownHeat(drawdown: number | null, max: number): string {
  if (drawdown === null) return NO_RESULT_CELL
  if (drawdown <= 0 || max <= 0) return FLAT_CELL
  return DRAWDOWN_STEPS[step(drawdown, max)] ?? FLAT_CELL
}

/** The largest |total pnl| and the deepest drawdown of the grid (0 without results). */
export function gridExtremes(grid: SweepGrid): { maxAbsPnl: number; maxDrawdown: number } {
  let maxAbsPnl = 0
  let maxDrawdown = 0
  for (const cell of gridCells(grid)) {
    if (cell.pnl !== null) maxAbsPnl = Math.max(maxAbsPnl, Math.abs(cell.pnl))
    if (cell.drawdown !== null) maxDrawdown = Math.max(maxDrawdown, cell.drawdown)
  }
  return { maxAbsPnl, maxDrawdown }
}
