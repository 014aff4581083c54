import {
  TickMarkType,
  type BarPrice,
  type ChartOptions,
  type DeepPartial,
  type PriceFormatterFn,
  type TickMarkFormatter,
  type TimeFormatterFn,
  type UTCTimestamp,
} from 'lightweight-charts'
import { afterEach, describe, expect, it } from 'vitest'
import { applyLanguage } from '@/i18n/language'
import { FALLBACK_PALETTE } from '@/lib/charts/chart-colors'
import { baseChartOptions } from '@/lib/charts/chart-options'

afterEach(() => {
  applyLanguage('en')
})

const time = (Date.parse('2026-03-05T22:30:15Z') / 1000) as UTCTimestamp

/** The formatters the options hand lightweight-charts (DeepPartial hides that they are functions). */
function formatters(options: DeepPartial<ChartOptions>) {
  return {
    crosshair: options.localization?.timeFormatter as TimeFormatterFn,
    tickMark: options.timeScale?.tickMarkFormatter as TickMarkFormatter,
    price: options.localization?.priceFormatter as PriceFormatterFn,
  }
}

describe('the base chart options', () => {
  it('put the axis, the crosshair and the prices in the given locale and zone', () => {
    const options = baseChartOptions(FALLBACK_PALETTE, { locale: 'en-US', timeZone: 'Europe/Moscow' })
    const format = formatters(options)
    expect(options.localization?.locale).toBe('en-US')
    expect(format.crosshair(time)).toBe('Mar 6, 2026, 01:30')
    expect(format.tickMark(time, TickMarkType.Time, 'en-US')).toBe('01:30')
    expect(format.price(65000.5 as BarPrice)).toBe('65,000.50')
    // The theme's and the axis' options are kept together.
    expect(options.timeScale?.borderColor).toBe(FALLBACK_PALETTE.grid)
    expect(options.timeScale?.timeVisible).toBe(true)
  })

  it('write prices the Russian way in Russian', () => {
    applyLanguage('ru')
    const options = baseChartOptions(FALLBACK_PALETTE, { locale: 'ru-RU', timeZone: 'UTC' })
    const format = formatters(options)
    expect(options.localization?.locale).toBe('ru-RU')
    expect(format.price(65000.5 as BarPrice)).toBe(
      new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2 }).format(65000.5),
    )
    expect(format.tickMark(time, TickMarkType.Month, 'ru-RU')).toBe(
      new Intl.DateTimeFormat('ru-RU', { month: 'short', timeZone: 'UTC' }).format(time * 1000),
    )
    expect(format.tickMark(time, TickMarkType.Time, 'ru-RU')).toBe('22:30')
  })
})
