import { describe, expect, it } from 'vitest'
import {
  isRealConfirmed,
  REAL_CONFIRMED_STORAGE_KEY,
  rememberRealConfirmed,
} from '@/features/dashboard/utils/real-confirmation'

describe('real-money confirmations', () => {
  it('remembers each confirmed key id once, in localStorage "real-trading-confirmed-keys"', () => {
    expect(REAL_CONFIRMED_STORAGE_KEY).toBe('real-trading-confirmed-keys')
    expect(isRealConfirmed(5)).toBe(false)
    rememberRealConfirmed(5)
    rememberRealConfirmed(5)
    rememberRealConfirmed(9)
    expect(isRealConfirmed(5)).toBe(true)
    expect(isRealConfirmed(9)).toBe(true)
    expect(isRealConfirmed(6)).toBe(false)
    expect(localStorage.getItem(REAL_CONFIRMED_STORAGE_KEY)).toBe('[5,9]')
  })

  it.each([
    ['not JSON', '{'],
    ['not a list', '{"5": true}'],
    ['ids as text', '["5"]'],
  ])('counts nothing as confirmed when the stored value is %s', (_case, stored) => {
    localStorage.setItem(REAL_CONFIRMED_STORAGE_KEY, stored)
    expect(isRealConfirmed(5)).toBe(false)
  })
})
