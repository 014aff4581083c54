import { TickMarkType, type UTCTimestamp } from 'lightweight-charts'
import { describe, expect, it } from 'vitest'
import { crosshairTimeLabel, tickMarkLabel, toChartTime } from '@/lib/charts/chart-time'

const time = (Date.parse('2026-03-05T22:30:15Z') / 1000) as UTCTimestamp

describe('chart time', () => {
  it('turns epoch milliseconds into whole UTC seconds', () => {
    expect(toChartTime(1767225600000)).toBe(1767225600)
    expect(toChartTime(1767225600999)).toBe(1767225600)
  })

  it('labels tick marks in the given zone (the browser’s by default)', () => {
    const zone = 'Europe/Moscow' // 22:30 UTC is 01:30 the next day in Moscow.
    expect(tickMarkLabel(time, TickMarkType.Year, 'en-GB', zone)).toBe('2026')
    expect(tickMarkLabel(time, TickMarkType.Month, 'en-GB', zone)).toBe('Mar')
    expect(tickMarkLabel(time, TickMarkType.DayOfMonth, 'en-GB', zone)).toBe('6 Mar')
    expect(tickMarkLabel(time, TickMarkType.Time, 'en-GB', zone)).toBe('01:30')
    expect(tickMarkLabel(time, TickMarkType.TimeWithSeconds, 'en-GB', zone)).toBe('01:30:15')
    expect(tickMarkLabel(time, TickMarkType.Time, 'en-GB', 'UTC')).toBe('22:30')
  })

  it('labels the crosshair with the date and time', () => {
    expect(crosshairTimeLabel(time, 'en-GB', 'Europe/Moscow')).toBe('6 Mar 2026, 01:30')
  })
})
