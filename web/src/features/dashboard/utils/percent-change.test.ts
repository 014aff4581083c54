import { describe, expect, it } from 'vitest'
import { formatChange, percentChange } from '@/features/dashboard/utils/percent-change'

describe('percentChange', () => {
  it('is the change in percent with its trend', () => {
    expect(percentChange(10000, 8000)).toEqual({ percent: 25, trend: 'up' })
    expect(percentChange(1, 2)).toEqual({ percent: -50, trend: 'down' })
    expect(percentChange(5, 5)).toEqual({ percent: 0, trend: 'up' })
    expect(percentChange(0, 4)).toEqual({ percent: -100, trend: 'down' })
  })

  it('has no percent when the figure of 24 hours ago is missing, zero or not finite', () => {
    expect(percentChange(10000, null)).toBeNull()
    expect(percentChange(10, 0)).toBeNull()
    expect(percentChange(0, 0)).toBeNull()
    expect(percentChange(10, Number.NaN)).toBeNull()
    expect(percentChange(Number.POSITIVE_INFINITY, 3)).toBeNull()
  })

  it('measures a negative base by its size', () => {
    expect(percentChange(-50, -100)).toEqual({ percent: 50, trend: 'up' })
  })
})

describe('formatChange', () => {
  it('gives 1 decimal with the sign first, none for zero', () => {
    expect(formatChange({ percent: 25, trend: 'up' })).toBe('+25.0%')
    expect(formatChange({ percent: -12.345, trend: 'down' })).toBe('-12.3%')
    expect(formatChange({ percent: 0, trend: 'up' })).toBe('0.0%')
    expect(formatChange({ percent: 0.04, trend: 'up' })).toBe('0.0%')
  })
})
