import { describe, expect, it } from 'vitest'
import { equityPoints, polylinePoints, zeroLineY } from '@/features/stats/utils/equity-points'

describe('equity points', () => {
  it('starts at zero at the first sample, then follows the samples, skipping a bad time', () => {
    const points = equityPoints([
      { time: '2026-11-20T10:00:00Z', pnl: 2 },
      { time: 'not a time', pnl: 5 },
      { time: '2026-11-20T12:00:00Z', pnl: -1 },
    ])
    const first = Date.parse('2026-11-20T10:00:00Z')
    expect(points).toEqual([
      { time: first, value: 0 },
      { time: first, value: 2 },
      { time: Date.parse('2026-11-20T12:00:00Z'), value: -1 },
    ])
    expect(equityPoints([])).toEqual([])
  })

  it('scales x by time and y from the lowest to the highest value, zero included', () => {
    const points = [
      { time: 1000, value: 0 },
      { time: 1000, value: 10 },
      { time: 2000, value: -10 },
      { time: 5000, value: 5 },
    ]
    expect(polylinePoints(points, 100, 40)).toBe('0.00,20.00 0.00,0.00 25.00,40.00 100.00,10.00')
    expect(zeroLineY(points, 40)).toBe(20)
  })

  it('spreads points of one instant evenly', () => {
    const points = [
      { time: 7, value: 0 },
      { time: 7, value: 4 },
    ]
    expect(polylinePoints(points, 100, 40)).toBe('0.00,40.00 100.00,0.00')
  })
})
