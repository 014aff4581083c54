import { describe, expect, it } from 'vitest'
import { formatMoney } from '@/lib/format-money'

describe('formatMoney', () => {
  it('gives 2 decimals, the sign first, thousands grouped', () => {
    expect(formatMoney(0)).toBe('$0.00')
    expect(formatMoney(3.456)).toBe('$3.46')
    expect(formatMoney(-3)).toBe('-$3.00')
    expect(formatMoney(10000)).toBe('$10,000.00')
    expect(formatMoney(-1234567.891)).toBe('-$1,234,567.89')
  })
})
