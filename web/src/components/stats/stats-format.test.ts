import { describe, expect, it } from 'vitest'
import { bestAndWorst, hourLabel, percentOf, weekdayLabel } from '@/components/stats/stats-format'

describe('stats formats', () => {
  it('labels API weekdays (1 = Sunday) Monday to Sunday in Russian, shifted by 2 modulo 7', () => {
    expect(weekdayLabel(1)).toBe('Воскресенье')
    expect(weekdayLabel(2)).toBe('Понедельник')
    expect([1, 2, 3, 4, 5, 6, 7].map(weekdayLabel)).toEqual([
      'Воскресенье',
      'Понедельник',
      'Вторник',
      'Среда',
      'Четверг',
      'Пятница',
      'Суббота',
    ])
  })

  it('shows hours as H:00 and shares with 1 decimal', () => {
    expect(hourLabel(0)).toBe('0:00')
    expect(hourLabel(9)).toBe('9:00')
    expect(hourLabel(23)).toBe('23:00')
    expect(percentOf(1, 3)).toBe('33.3')
    expect(percentOf(0, 0)).toBe('0.0')
  })

  it('picks the top rows among those that earned and the bottom among those that lost', () => {
    const rows = [5, -2, 9, 0, -7, 1, 3].map((pnl, hour) => ({ hour, pnl, success: 1, fail: 0, total: 1 }))
    const { best, worst } = bestAndWorst(rows, 3)
    expect(best.map((row) => row.pnl)).toEqual([9, 5, 3])
    expect(worst.map((row) => row.pnl)).toEqual([-7, -2])
  })

  it('never lists one row under both: a single losing hour is only among the worst', () => {
    const only = [{ hour: 4, pnl: -12, success: 0, fail: 1, total: 1 }]
    expect(bestAndWorst(only, 3)).toEqual({ best: [], worst: only })
    const winner = [{ hour: 4, pnl: 12, success: 1, fail: 0, total: 1 }]
    expect(bestAndWorst(winner, 3)).toEqual({ best: winner, worst: [] })
  })
})
