import { describe, expect, it } from 'vitest'
import type { SweepResult } from '@/features/backtest/api/sweep'
import {
  cellRequest,
  drawdownHeat,
  gridCells,
  gridExtremes,
  pnlHeat,
  sweepGrid,
} from '@/features/backtest/utils/sweep-grid'
import { backtestSummary } from '@/testing/fixtures'

const twoByTwo: SweepResult = {
  sweep: {
    axes: [
      { field: 'initial_stop_loss_pct', values: [1, 2] },
      { field: 'take_profit_first_pct', values: [2, 4] },
    ],
    cells: [
      { values: [1, 2], error: null, summary: backtestSummary(10, 5) },
      { values: [1, 4], error: null, summary: backtestSummary(-20, 12.5) },
      { values: [2, 2], error: 'no candles', summary: null },
      { values: [2, 4], error: null, summary: backtestSummary(0, 0) },
    ],
  },
}

describe('the sweep grid', () => {
  it('puts the first axis in rows and the second in columns, the last axis fastest', () => {
    const grid = sweepGrid(twoByTwo)
    expect(grid?.rowAxis.values).toEqual([1, 2])
    expect(grid?.columnAxis?.values).toEqual([2, 4])
    expect(grid?.rows.map((row) => row.cells.map((cell) => cell.values))).toEqual([
      [
        [1, 2],
        [1, 4],
      ],
      [
        [2, 2],
        [2, 4],
      ],
    ])
    expect(grid?.rows[0]?.cells[1]).toEqual({
      values: [1, 4],
      name: 'Stop loss % 1, First take profit % 4',
      pnl: -20,
      drawdown: 12.5,
      error: null,
      label: 'Stop loss % 1, First take profit % 4: total PnL -20.00, max drawdown 12.50%',
    })
    expect(grid?.rows[1]?.cells[0]?.label).toBe('Stop loss % 2, First take profit % 2: failed (no candles)')
  })

  it('makes one column of a single axis and marks missing cells as without a result', () => {
    const grid = sweepGrid({
      sweep: {
        axes: [{ field: 'leverage', values: [5, 10, 20] }],
        cells: [
          { values: [5], error: null, summary: backtestSummary(1, 1) },
          { values: [10], error: null, summary: backtestSummary(2, 2) },
        ],
      },
    })
    expect(grid?.columnAxis).toBeNull()
    expect(grid?.rows.map((row) => row.cells.map((cell) => cell.label))).toEqual([
      ['Leverage 5: total PnL 1.00, max drawdown 1.00%'],
      ['Leverage 10: total PnL 2.00, max drawdown 2.00%'],
      ['Leverage 20: no result'],
    ])
    expect(sweepGrid({ sweep: { axes: [], cells: [] } })).toBeNull()
  })

  it('finds the largest |pnl| and the deepest drawdown, and colours by them', () => {
    const grid = sweepGrid(twoByTwo)
    expect(grid && gridExtremes(grid)).toEqual({ maxAbsPnl: 20, maxDrawdown: 12.5 })
    expect(grid && gridCells(grid)).toHaveLength(4)
    expect(pnlHeat(10, 20)).toBe('bg-success/40')
    expect(pnlHeat(-20, 20)).toBe('bg-destructive')
    expect(pnlHeat(0, 20)).toBe('bg-muted-foreground/30')
    expect(pnlHeat(null, 20)).toBe('bg-muted')
    expect(drawdownHeat(12.5, 12.5)).toBe('bg-destructive/85')
    expect(drawdownHeat(1, 12.5)).toBe('bg-destructive/15')
    expect(drawdownHeat(0, 12.5)).toBe('bg-muted-foreground/30')
    expect(drawdownHeat(null, 12.5)).toBe('bg-muted')
  })

  it("makes a cell's single run: the sweep's request, its overrides plus the cell's values, no sweep", () => {
    expect(
      cellRequest(
        {
          date_from: '2026-11-10',
          date_to: '2026-11-20',
          symbols: ['BTCUSDT'],
          source: 'alerts',
          data: 'bybit',
          overrides: { leverage: 5, initial_stop_loss_pct: 9 },
          sweep: twoByTwo.sweep.axes,
        },
        twoByTwo.sweep.axes,
        [2, 4],
      ),
    ).toEqual({
      date_from: '2026-11-10',
      date_to: '2026-11-20',
      symbols: ['BTCUSDT'],
      source: 'alerts',
      data: 'bybit',
      overrides: { leverage: 5, initial_stop_loss_pct: 2, take_profit_first_pct: 4 },
    })
    expect(
      cellRequest({ date_from: 'a', date_to: 'b', symbols: null }, [{ field: 'leverage', values: [3] }], [3]),
    ).toEqual({ date_from: 'a', date_to: 'b', overrides: { leverage: 3 } })
  })
})
