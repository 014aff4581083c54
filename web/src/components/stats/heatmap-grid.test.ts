import { describe, expect, it } from 'vitest'
import { cellColor, heatmapRows, hourRows, maxAbsPnl, weekdayOfRow } from '@/components/stats/heatmap-grid'

const cell = (weekday: number, hour: number, pnl: number) => ({ weekday, hour, pnl, total: 1 })

describe('heatmap grid', () => {
  it('orders the rows Monday..Sunday from the API weekday (1 = Sunday)', () => {
    expect(Array.from({ length: 7 }, (_, row) => weekdayOfRow(row))).toEqual([2, 3, 4, 5, 6, 7, 1])
    const rows = heatmapRows([cell(1, 23, -4), cell(2, 0, 3), cell(9, 1, 1), cell(3, 24, 1)])
    expect(rows.map((row) => row.label)).toEqual([
      'Понедельник',
      'Вторник',
      'Среда',
      'Четверг',
      'Пятница',
      'Суббота',
      'Воскресенье',
    ])
    expect(rows.every((row) => row.cells.length === 24)).toBe(true)
    expect(rows[0]?.cells[0]?.pnl).toBe(3)
    expect(rows[6]?.cells[23]?.pnl).toBe(-4)
    // Out-of-range cells are dropped.
    expect(rows.flatMap((row) => row.cells).filter(Boolean)).toHaveLength(2)
  })

  it('colours green for profit and red for loss, by the share of the largest amount', () => {
    const cells = [cell(2, 0, 100), cell(2, 1, -50)]
    const max = maxAbsPnl(cells)
    expect(max).toBe(100)
    expect(cellColor(cell(2, 0, 100), max)).toBe('bg-success')
    expect(cellColor(cell(2, 0, 60), max)).toBe('bg-success/70')
    expect(cellColor(cell(2, 0, 50), max)).toBe('bg-success/40')
    expect(cellColor(cell(2, 0, 1), max)).toBe('bg-success/20')
    expect(cellColor(cell(2, 1, -50), max)).toBe('bg-destructive/40')
    expect(cellColor(cell(2, 1, -100), max)).toBe('bg-destructive')
    expect(cellColor(cell(2, 1, 0), max)).toBe('bg-muted-foreground/30')
    expect(cellColor(null, max)).toBe('bg-muted')
    expect(maxAbsPnl([])).toBe(0)
  })
})

describe('hourRows', () => {
  it('turns the seven weekday rows into 24 hour rows of seven weekdays, Monday first', () => {
    const cell = { weekday: 2, hour: 9, pnl: 30, total: 2 }
    const turned = hourRows(heatmapRows([cell]))
    expect(turned).toHaveLength(24)
    expect(turned.map((row) => row.hour)).toEqual(Array.from({ length: 24 }, (_, hour) => hour))
    expect(turned[9]?.cells.map((c) => c.cell)).toEqual([cell, null, null, null, null, null, null])
    expect(turned[9]?.cells[0]?.label).toBe('Понедельник')
    expect(turned[10]?.cells.every((c) => c.cell === null)).toBe(true)
  })
})
