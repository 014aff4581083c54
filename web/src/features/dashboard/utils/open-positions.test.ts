import { describe, expect, it } from 'vitest'
import { openFor } from '@/features/dashboard/utils/open-positions'

describe('open for', () => {
  const at = '2026-11-27T10:00:00Z'
  const after = (minutes: number) => Date.parse(at) + minutes * 60_000

  it('says how long a position has been open, in the two largest units', () => {
    expect(openFor(at, after(0.5))).toBe('<1m')
    expect(openFor(at, after(45))).toBe('45m')
    expect(openFor(at, after(135))).toBe('2h 15m')
    expect(openFor(at, after(3 * 1440 + 4 * 60 + 59))).toBe('3d 4h')
  })

  it('never goes below zero and says "—" for a time it cannot read', () => {
    expect(openFor(at, after(-5))).toBe('<1m')
    expect(openFor('not a time', after(5))).toBe('—')
  })
})
