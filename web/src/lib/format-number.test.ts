import { afterEach, describe, expect, it } from 'vitest'
import { applyLanguage } from '@/i18n/language'
import { formatCount, formatNumber, formatPercent, liveNumberFormat } from '@/lib/format-number'

afterEach(() => {
  applyLanguage('en')
})

/** The same figure through Intl in ru-RU: the no-break spaces Intl uses are kept, not guessed. */
const russian = (value: number, options: Intl.NumberFormatOptions) =>
  new Intl.NumberFormat('ru-RU', options).format(value)

describe('formatNumber', () => {
  it('gives the fixed decimals of toFixed in English, thousands grouped', () => {
    expect(formatNumber(0, 2)).toBe('0.00')
    expect(formatNumber(12.345, 2)).toBe('12.35')
    expect(formatNumber(-3, 2)).toBe('-3.00')
    expect(formatNumber(0.12345, 4)).toBe('0.1235')
    expect(formatNumber(66.666, 1)).toBe('66.7')
    expect(formatNumber(10000, 2)).toBe('10,000.00')
    expect(formatNumber(1.5, 2, 8)).toBe('1.50')
    expect(formatNumber(1.123456789, 2, 8)).toBe('1.12345679')
  })

  it('writes decimals with a comma and groups with a no-break space in Russian', () => {
    applyLanguage('ru')
    expect(formatNumber(10000, 2)).toBe(russian(10000, { minimumFractionDigits: 2 }))
    expect(formatNumber(10000, 2)).toBe('10\u00a0000,00')
    expect(formatNumber(-3.5, 2)).toBe('-3,50')
    expect(formatNumber(0.12345, 4)).toBe('0,1235')
  })
})

describe('formatCount', () => {
  it("groups a whole count the language's way, with no decimals", () => {
    expect(formatCount(0)).toBe('0')
    expect(formatCount(123456)).toBe('123,456')
    applyLanguage('ru')
    expect(formatCount(123456)).toBe('123\u00a0456')
    expect(formatCount(123456)).toBe(russian(123456, { maximumFractionDigits: 0 }))
  })
})

describe('formatPercent', () => {
  it('keeps "12.50%" in English', () => {
    expect(formatPercent(12.5, 2)).toBe('12.50%')
    expect(formatPercent(66.666, 1)).toBe('66.7%')
    expect(formatPercent(0, 1)).toBe('0.0%')
    expect(formatPercent(-4.2, 2)).toBe('-4.20%')
  })

  it('writes "12,50 %" in Russian', () => {
    applyLanguage('ru')
    expect(formatPercent(12.5, 2)).toBe(russian(0.125, { style: 'percent', minimumFractionDigits: 2 }))
    expect(formatPercent(12.5, 2)).toBe('12,50\u00a0%')
  })
})

describe('liveNumberFormat', () => {
  it('follows the language switched after it was made', () => {
    const format = liveNumberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 })
    expect(format.format(1234.5)).toBe('1,234.50')
    applyLanguage('ru')
    expect(format.format(1234.5)).toBe(russian(1234.5, { minimumFractionDigits: 2 }))
  })
})
