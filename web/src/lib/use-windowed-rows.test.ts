import { describe, expect, it } from 'vitest'
import { computeWindow } from '@/lib/use-windowed-rows'

describe('computeWindow', () => {
  const tens = Array.from({ length: 1000 }, () => 10)

  it('renders the rows in view plus the overscan, spacers for the rest', () => {
    expect(computeWindow(tens, 0, 100, 5)).toEqual({ first: 0, last: 15, before: 0, after: 9850 })
    expect(computeWindow(tens, 500, 100, 5)).toEqual({ first: 45, last: 65, before: 450, after: 9350 })
  })

  it('ends at the last row when scrolled to the bottom', () => {
    expect(computeWindow(tens, 9900, 100, 5)).toEqual({ first: 985, last: 1000, before: 9850, after: 0 })
  })

  it('uses each row its own height', () => {
    const heights = [100, 10, 10, 10, 100, 10]
    // 105 px down: the first row is above the view, rows 1 to 4 are in it.
    expect(computeWindow(heights, 105, 40, 0)).toEqual({ first: 1, last: 5, before: 100, after: 10 })
  })

  it('handles an empty list', () => {
    expect(computeWindow([], 0, 600, 8)).toEqual({ first: 0, last: 0, before: 0, after: 0 })
  })
})
