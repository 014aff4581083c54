import { describe, expect, it } from 'vitest'
import { DASHBOARD_SIGNALS_LIMIT, SIGNALS_CAP } from '@/lib/live/constants'
import { createQueryClient } from '@/lib/query-client'
import { signalRecord } from '@/testing/live'
import {
  putSignalFirst,
  replaceSignals,
  signalsQueryOptions,
  withSignalFirst,
} from '@/features/signals/api/get-signals'

describe('signal list rules', () => {
  it('caps at 50 by default; the dashboard shows 5', () => {
    expect(SIGNALS_CAP).toBe(50)
    expect(DASHBOARD_SIGNALS_LIMIT).toBe(5)
  })

  it('moves a symbol to the front without duplicates and keeps the cap', () => {
    const list = ['A', 'B', 'C'].map((symbol) => signalRecord(symbol))
    expect(withSignalFirst(list, signalRecord('B', 'STRONG_BUY')).map((s) => s.symbol)).toEqual([
      'B',
      'A',
      'C',
    ])
    expect(withSignalFirst(list, signalRecord('D'), 3).map((s) => s.symbol)).toEqual(['D', 'A', 'B'])
  })

  it('replaces the cached list on signals_update and leaves an unloaded list alone on signal', () => {
    const queryClient = createQueryClient()
    const key = signalsQueryOptions().queryKey

    putSignalFirst(queryClient, signalRecord('A'))
    expect(queryClient.getQueryData(key)).toBeUndefined()

    const sixty = Array.from({ length: 60 }, (_, i) => signalRecord(`S${i}`))
    replaceSignals(queryClient, sixty)
    expect(queryClient.getQueryData(key)).toHaveLength(50)

    putSignalFirst(queryClient, signalRecord('S10', 'STRONG_SELL'))
    const list = queryClient.getQueryData(key) ?? []
    expect(list).toHaveLength(50)
    expect(list[0]?.recommendation).toBe('STRONG_SELL')
    expect(list.filter((s) => s.symbol === 'S10')).toHaveLength(1)
  })
})
