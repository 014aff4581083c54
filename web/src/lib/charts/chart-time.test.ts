import { TickMarkType, type UTCTimestamp } from 'lightweight-charts'
import { describe, expect, it } from 'vitest'
import { crosshairTimeLabel, tickMarkLabel, toChartTime } from '@/lib/charts/chart-time'

const time = (Date.parse('2026-03-05T22:30:15Z') / 1000) as UTCTimestamp
/** 22:30 UTC is 01:30 the next day in Moscow. */
const moscow = 'Europe/Moscow'

describe('chart time', () => {
  it('turns epoch milliseconds into whole UTC seconds', () => {
    expect(toChartTime(1767225600000)).toBe(1767225600)
    expect(toChartTime(1767225600999)).toBe(1767225600)
  })

  it('labels tick marks in the given zone, 24 h, in English', () => {
    expect(tickMarkLabel(time, TickMarkType.Year, 'en-US', moscow)).toBe('2026')
    expect(tickMarkLabel(time, TickMarkType.Month, 'en-US', moscow)).toBe('Mar')
    expect(tickMarkLabel(time, TickMarkType.DayOfMonth, 'en-US', moscow)).toBe('Mar 6')
    expect(tickMarkLabel(time, TickMarkType.Time, 'en-US', moscow)).toBe('01:30')
    expect(tickMarkLabel(time, TickMarkType.TimeWithSeconds, 'en-US', moscow)).toBe('01:30:15')
    expect(tickMarkLabel(time, TickMarkType.Time, 'en-US', 'UTC')).toBe('22:30')
    expect(tickMarkLabel(time, TickMarkType.DayOfMonth, 'en-US', 'UTC')).toBe('Mar 5')
  })

  it('labels tick marks in Russian in the Russian locale', () => {
    expect(tickMarkLabel(time, TickMarkType.Month, 'ru-RU', moscow)).toBe(
      new Intl.DateTimeFormat('ru-RU', { month: 'short' }).format(new Date(2026, 2, 6)),
    )
    expect(tickMarkLabel(time, TickMarkType.DayOfMonth, 'ru-RU', moscow)).toMatch(/^6 мар/)
    expect(tickMarkLabel(time, TickMarkType.Time, 'ru-RU', moscow)).toBe('01:30')
  })

  it('labels the crosshair with the date and time in the zone and the locale', () => {
    expect(crosshairTimeLabel(time, 'en-US', moscow)).toBe('Mar 6, 2026, 01:30')
    expect(crosshairTimeLabel(time, 'en-US', 'UTC')).toBe('Mar 5, 2026, 22:30')
    expect(crosshairTimeLabel(time, 'ru-RU', moscow)).toBe(
      new Intl.DateTimeFormat('ru-RU', {
        dateStyle: 'medium',
        timeStyle: 'short',
        hourCycle: 'h23',
        timeZone: moscow,
      }).format(new Date(time * 1000)),
    )
    expect(crosshairTimeLabel(time, 'ru-RU', moscow)).toMatch(/^6 мар\. 2026 г\., 01:30$/)
  })

  it('falls back to the browser’s zone for a zone Intl does not know', () => {
    expect(crosshairTimeLabel(time, 'en-US', 'Nowhere/Else')).toBe(
      new Date(time * 1000).toLocaleString('en-US', {
        dateStyle: 'medium',
        timeStyle: 'short',
        hourCycle: 'h23',
      }),
    )
  })
})
