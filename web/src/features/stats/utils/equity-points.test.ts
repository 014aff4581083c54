import { describe, expect, it } from 'vitest'
import type { Chain } from '@/features/stats/api/get-martingale-chains'
import { equityPoints, polylinePoints } from '@/features/stats/utils/equity-points'

const chain = (chain_id: number, trades: Chain['trades']): Chain => ({
  chain_id,
  status: 'CLOSED',
  trades_count: trades.length,
  total_pnl: 0,
  trades,
})

describe('equity points', () => {
  it('sums the trades by creation time across chains, skipping a null pnl', () => {
    const points = equityPoints([
      chain(1, [
        { id: 1, pnl: 2, created_at: '2026-11-20T10:00:00Z' },
        { id: 2, pnl: null, created_at: '2026-11-20T12:00:00Z' },
      ]),
      chain(2, [{ id: 3, pnl: -3, created_at: '2026-11-20T09:00:00Z' }]),
    ])
    expect(points.map((point) => point.value)).toEqual([-3, -1])
  })

  it('scales the points into the box, zero included', () => {
    const points = [
      { time: 1, value: 0 },
      { time: 2, value: 10 },
    ]
    expect(polylinePoints(points, 100, 40)).toBe('0.00,40.00 100.00,0.00')
  })
})
