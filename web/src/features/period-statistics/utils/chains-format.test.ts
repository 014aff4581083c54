import { describe, expect, it } from 'vitest'
import { chainDates, daysBefore, zonedDate } from '@/features/period-statistics/api/get-martingale-chains'
import { sortChains, tradePnl } from '@/features/period-statistics/utils/chains-format'

describe('chain formats', () => {
  it('gives a chain trade pnl 4 decimals, "-" when null', () => {
    expect(tradePnl({ id: 1, pnl: 1.5, created_at: '' })).toBe('1.5000')
    expect(tradePnl({ id: 1, pnl: null, created_at: '' })).toBe('-')
  })

  it('sorts chains by their first trade, ascending', () => {
    const chain = (chain_id: number, created_at: string) => ({
      chain_id,
      status: 'CLOSED',
      trades_count: 1,
      total_pnl: 0,
      trades: [{ id: chain_id, pnl: 0, created_at }],
    })
    const sorted = sortChains([chain(1, '2026-11-20T10:00:00Z'), chain(2, '2026-11-19T10:00:00Z')])
    expect(sorted.map((c) => c.chain_id)).toEqual([2, 1])
  })

  it("dates the chains: custom with both dates, whole days back in the user's zone, none for all and month", () => {
    // 01:30 UTC on the 23rd: 10:30 on the 23rd in Tokyo, still the 22nd (17:30) in Los Angeles.
    const now = new Date('2026-11-23T01:30:00Z')
    const empty = { dateFrom: '', dateTo: '' }
    expect(zonedDate(now, 'Asia/Tokyo')).toBe('2026-11-23')
    expect(zonedDate(now, 'America/Los_Angeles')).toBe('2026-11-22')
    expect(chainDates({ period: '24h', ...empty }, 'Asia/Tokyo', now)).toEqual({
      date_from: '2026-11-22',
      date_to: '2026-11-23',
    })
    expect(chainDates({ period: '24h', ...empty }, 'America/Los_Angeles', now)).toEqual({
      date_from: '2026-11-21',
      date_to: '2026-11-22',
    })
    expect(chainDates({ period: '3d', ...empty }, 'Asia/Tokyo', now)).toEqual({
      date_from: '2026-11-20',
      date_to: '2026-11-23',
    })
    expect(chainDates({ period: '7d', ...empty }, 'America/Los_Angeles', now)).toEqual({
      date_from: '2026-11-15',
      date_to: '2026-11-22',
    })
    // 21:30 UTC on the 22nd: already the 23rd in Moscow (UTC+3).
    expect(
      chainDates({ period: '24h', ...empty }, 'Europe/Moscow', new Date('2026-11-22T21:30:00Z')),
    ).toEqual({
      date_from: '2026-11-22',
      date_to: '2026-11-23',
    })
    expect(chainDates({ period: 'all', ...empty }, 'Asia/Tokyo', now)).toEqual({})
    expect(chainDates({ period: 'month', ...empty }, 'Asia/Tokyo', now)).toEqual({})
    expect(chainDates({ period: 'custom', dateFrom: '2026-11-01', dateTo: '' }, 'Asia/Tokyo', now)).toEqual(
      {},
    )
    expect(
      chainDates({ period: 'custom', dateFrom: '2026-11-01', dateTo: '2026-11-05' }, 'Asia/Tokyo', now),
    ).toEqual({
      date_from: '2026-11-01',
      date_to: '2026-11-05',
    })
  })

  it('counts days back across month and year ends', () => {
    expect(daysBefore('2026-03-01', 1)).toBe('2026-02-28')
    expect(daysBefore('2027-01-03', 7)).toBe('2026-12-27')
  })
})
