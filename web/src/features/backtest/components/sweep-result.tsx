import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { cn } from '@/lib/utils'
import { pnlClass } from '@/lib/pnl-class'
import { useStartBacktest } from '@/features/backtest/api/backtests'
import type { BacktestRun, SweepResult } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'
import { overrideLabel } from '@/features/backtest/utils/overrides'
import {
  cellRequest,
  drawdownHeat,
  gridExtremes,
  pnlHeat,
  sweepGrid,
  type GridCell,
  type SweepGrid,
} from '@/features/backtest/utils/sweep-grid'
import { formatNumber, formatPercent } from '@/lib/format-number'

type OpenCell = (cell: GridCell) => void

/** The corner and column headers shared by the table and the heatmaps. */
function GridHeader({ grid }: { grid: SweepGrid }) {
  const corner = grid.columnAxis
    ? `${overrideLabel(grid.rowAxis.field)} \\ ${overrideLabel(grid.columnAxis.field)}`
    : overrideLabel(grid.rowAxis.field)
  return (
    <thead>
      <tr>
        <th
          scope="col"
          className="px-2 py-1 text-left text-xs font-medium whitespace-nowrap text-muted-foreground"
        >
          {corner}
        </th>
        {grid.columnAxis ? (
          grid.columnAxis.values.map((value) => (
            <th
              key={value}
              scope="col"
              className="px-2 py-1 text-xs font-medium text-muted-foreground tabular-nums"
            >
              {value}
            </th>
          ))
        ) : (
          <th scope="col" className="px-2 py-1 text-xs font-medium text-muted-foreground">
            {s.sweepResultColumn}
          </th>
        )}
      </tr>
    </thead>
  )
}

function RowHeader({ value }: { value: number }) {
  return (
    <th scope="row" className="px-2 py-1 text-left text-xs font-medium text-muted-foreground tabular-nums">
      {value}
    </th>
  )
}

/** The rows of a grid: each its first axis' value, then one cell per value of the second. */
function GridBody({ grid, cell }: { grid: SweepGrid; cell: (cell: GridCell) => React.ReactNode }) {
  return (
    <tbody>
      {grid.rows.map((row) => (
        <tr key={row.value}>
          <RowHeader value={row.value} />
          {row.cells.map((c) => (
            <td key={c.values.join('|')} className="p-0">
              {cell(c)}
            </td>
          ))}
        </tr>
      ))}
    </tbody>
  )
}

/** A cell of the table or a heatmap: a button labelled with the cell's values that opens its run. */
function CellButton({
  cell,
  onOpen,
  disabled,
  className,
  children,
}: {
  cell: GridCell
  onOpen: OpenCell
  disabled: boolean
  className: string
  children: React.ReactNode
}) {
  return (
    <button
      type="button"
      aria-label={cell.label}
      title={cell.label}
      disabled={disabled}
      onClick={() => {
        onOpen(cell)
      }}
      className={className}
    >
      {children}
    </button>
  )
}

/** Rows of the first axis' values, columns of the second's; each cell its total pnl and max drawdown. */
function SweepTable({ grid, onOpen, disabled }: { grid: SweepGrid; onOpen: OpenCell; disabled: boolean }) {
  return (
    <div className="overflow-x-auto">
      <table aria-label={s.sweepTable} className="w-full border-separate border-spacing-1 text-sm">
        <GridHeader grid={grid} />
        <GridBody
          grid={grid}
          cell={(cell) => (
            <CellButton
              cell={cell}
              onOpen={onOpen}
              disabled={disabled}
              className="flex w-full min-w-24 flex-col items-end rounded-md border px-2 py-1 tabular-nums hover:bg-muted/60 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none disabled:opacity-60"
            >
              {cell.error !== null ? (
                <span className="text-destructive">{s.sweepFailed}</span>
              ) : (
                <>
                  <span className={cn('font-medium', pnlClass(cell.pnl))}>
                    <span className="text-xs font-normal text-muted-foreground">{s.pnlShort} </span>
                    {cell.pnl === null ? '—' : formatNumber(cell.pnl, 2)}
                  </span>
                  <span className="text-xs text-muted-foreground">
                    {s.drawdownShort} {cell.drawdown === null ? '—' : formatPercent(cell.drawdown, 2)}
                  </span>
                </>
              )}
            </CellButton>
          )}
        />
      </table>
    </div>
  )
}

/** One heatmap of the grid: a coloured button per cell, its value as text and its full label. */
function SweepHeatmap({
  grid,
  title,
  color,
  text,
  onOpen,
  disabled,
}: {
  grid: SweepGrid
  title: string
  color: (cell: GridCell) => string
  text: (cell: GridCell) => string
  onOpen: OpenCell
  disabled: boolean
}) {
  return (
    <div className="min-w-0 space-y-2">
      <h3 className="text-sm font-medium">{title}</h3>
      <div className="overflow-x-auto">
        <table aria-label={title} className="border-separate border-spacing-0.5 text-xs">
          <GridHeader grid={grid} />
          <GridBody
            grid={grid}
            cell={(cell) => (
              <CellButton
                cell={cell}
                onOpen={onOpen}
                disabled={disabled}
                className={cn(
                  'h-8 w-full min-w-12 rounded-sm px-1 text-[0.65rem] tabular-nums hover:ring-2 hover:ring-ring focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none disabled:opacity-60',
                  color(cell),
                )}
              >
                {text(cell)}
              </CellButton>
            )}
          />
        </table>
      </div>
    </div>
  )
}

/**
 * A finished sweep: the table of every combination (total pnl and max drawdown) and the two
 * heatmaps; a click on any cell starts the single run that reproduces it (the sweep's period,
 * symbols, source, data and overrides plus the cell's values) and opens it with `onOpenRun`.
 */
export function SweepResultView({
  run,
  result,
  onOpenRun,
}: {
  run: BacktestRun
  result: SweepResult
  onOpenRun?: (run: BacktestRun) => void
}) {
  const start = useStartBacktest()
  const grid = sweepGrid(result)
  if (!grid) return null
  const { maxAbsPnl, maxDrawdown } = gridExtremes(grid)
  const axes = result.sweep.axes

  const open: OpenCell = (cell) => {
    start.mutate(cellRequest(run.request, axes, cell.values), { onSuccess: onOpenRun })
  }
  const busy = start.isPending

  return (
    <Card role="region" aria-label={s.sweep}>
      <CardHeader>
        <CardTitle>{s.sweepOver(axes.map((axis) => overrideLabel(axis.field)))}</CardTitle>
        <CardDescription>{s.sweepCellOpen}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        {busy ? (
          <p role="status" className="text-sm text-muted-foreground">
            {s.sweepOpening}
          </p>
        ) : start.error ? (
          <p role="alert" className="text-sm text-destructive">
            {start.error.message}
          </p>
        ) : null}
        <SweepTable grid={grid} onOpen={open} disabled={busy} />
        <div className="space-y-2">
          <p className="text-xs text-muted-foreground">{s.sweepHeatmapHint}</p>
          <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
            <SweepHeatmap
              grid={grid}
              title={s.sweepPnlHeatmap}
              color={(cell) => pnlHeat(cell.pnl, maxAbsPnl)}
              text={(cell) => (cell.pnl === null ? '—' : formatNumber(cell.pnl, 2))}
              onOpen={open}
              disabled={busy}
            />
            <SweepHeatmap
              grid={grid}
              title={s.sweepDrawdownHeatmap}
              color={(cell) => drawdownHeat(cell.drawdown, maxDrawdown)}
              text={(cell) => (cell.drawdown === null ? '—' : formatPercent(cell.drawdown, 2))}
              onOpen={open}
              disabled={busy}
            />
          </div>
        </div>
      </CardContent>
    </Card>
  )
}
