import { describe, expect, it } from 'vitest'
import { equitySeries } from '@/components/stats/equity-points'

const seconds = (iso: string) => Date.parse(iso) / 1000

describe('equity series', () => {
  it('starts at zero a second before the first sample, then follows the samples in seconds', () => {
    expect(
      equitySeries([
        { time: '2026-11-20T10:00:00Z', pnl: 2 },
        { time: '2026-11-20T12:00:00Z', pnl: -1 },
      ]),
    ).toEqual([
      { time: seconds('2026-11-20T10:00:00Z') - 1, value: 0 },
      { time: seconds('2026-11-20T10:00:00Z'), value: 2 },
      { time: seconds('2026-11-20T12:00:00Z'), value: -1 },
    ])
    expect(equitySeries([])).toEqual([])
  })

  it('leaves out a sample whose time does not parse', () => {
    expect(
      equitySeries([
        { time: 'not a time', pnl: 5 },
        { time: '2026-11-20T10:00:00Z', pnl: 2 },
      ]).map((point) => point.value),
    ).toEqual([0, 2])
    expect(equitySeries([{ time: 'nope', pnl: 1 }])).toEqual([])
  })

  it('sorts by time, keeping the order of samples of one instant', () => {
    const series = equitySeries([
      { time: '2026-11-20T12:00:00Z', pnl: 3 },
      { time: '2026-11-20T10:00:00Z', pnl: 1 },
      { time: '2026-11-20T11:00:00Z', pnl: 2 },
    ])
    expect(series.map((point) => point.value)).toEqual([0, 1, 2, 3])
  })

  it('keeps the last sample of one second, so the times rise strictly', () => {
    const series = equitySeries([
      { time: '2026-11-20T10:00:00Z', pnl: 1 },
      { time: '2026-11-20T10:15:00.000Z', pnl: 4 },
      { time: '2026-11-20T10:15:00.400Z', pnl: 6 },
      { time: '2026-11-20T10:15:00Z', pnl: 5 },
      { time: '2026-11-20T10:30:00Z', pnl: 7 },
    ])
    expect(series).toEqual([
      { time: seconds('2026-11-20T10:00:00Z') - 1, value: 0 },
      { time: seconds('2026-11-20T10:00:00Z'), value: 1 },
      { time: seconds('2026-11-20T10:15:00Z'), value: 5 },
      { time: seconds('2026-11-20T10:30:00Z'), value: 7 },
    ])
    for (let i = 1; i < series.length; i++) {
      expect(series[i]?.time).toBeGreaterThan(series[i - 1]?.time ?? Infinity)
    }
  })
})
