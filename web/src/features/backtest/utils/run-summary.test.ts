import { describe, expect, it } from 'vitest'
import { runSummary } from '@/features/backtest/utils/run-summary'

const dates = { date_from: '2026-11-10', date_to: '2026-11-20' }

describe('a run’s summary in the list', () => {
  it('names what differs, so runs over the same dates tell apart', () => {
    expect(
      runSummary({
        kind: 'single',
        request: { ...dates, overrides: { leverage: 5, initial_stop_loss_pct: 2 }, symbols: ['BTCUSDT'] },
      }),
    ).toBe('Leverage 5 · Stop loss % 2 · BTCUSDT')
    expect(
      runSummary({
        kind: 'sweep',
        request: {
          ...dates,
          sweep: [{ field: 'leverage', values: [1, 2] }],
          source: 'alerts',
          data: 'bybit',
        },
      }),
    ).toBe('Swept: Leverage · My TradingView alerts · Stored Bybit candles')
  })

  it('says “saved settings” when nothing differs', () => {
    expect(runSummary({ kind: 'single', request: { ...dates, overrides: {}, symbols: [] } })).toBe(
      'saved settings',
    )
  })
})
