import { afterEach, describe, expect, it } from 'vitest'
import { applyLanguage } from '@/i18n/language'
import { formatMoney } from '@/lib/format-money'

afterEach(() => {
  applyLanguage('en')
})

describe('formatMoney', () => {
  it('gives USDT with 2 decimals, the sign first, thousands grouped', () => {
    expect(formatMoney(0)).toBe('0.00 USDT')
    expect(formatMoney(3.456)).toBe('3.46 USDT')
    expect(formatMoney(-3)).toBe('-3.00 USDT')
    expect(formatMoney(10000)).toBe('10,000.00 USDT')
    expect(formatMoney(-1234567.891)).toBe('-1,234,567.89 USDT')
    expect(formatMoney(1.23456, 4)).toBe('1.2346 USDT')
  })

  it('groups and separates decimals the Russian way in Russian', () => {
    applyLanguage('ru')
    expect(formatMoney(10000).replace(/\s/g, ' ')).toBe('10 000,00 USDT')
    expect(formatMoney(-3.5)).toBe('-3,50 USDT')
  })
})
