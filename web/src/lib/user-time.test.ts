import { afterEach, describe, expect, it } from 'vitest'
import { applyLanguage } from '@/i18n/language'
import { formatClock, formatDateTime, formatZonedDateTime } from '@/lib/user-time'

const AT = '2026-11-27T11:03:00Z'

afterEach(() => {
  applyLanguage('en')
})

describe('user time', () => {
  it('shows a time in the given zone, 24 h', () => {
    expect(formatClock(AT, 'Europe/Moscow')).toBe('14:03')
    expect(formatClock(Date.parse(AT), 'America/New_York')).toBe('06:03')
  })

  it('labels a date and time with its zone, in the en-US format by default', () => {
    expect(formatZonedDateTime(AT, 'Europe/Moscow')).toBe('Nov 27, 2026, 14:03 (Europe/Moscow)')
    expect(formatDateTime(AT, 'UTC', { seconds: true })).toBe('Nov 27, 2026, 11:03:00')
  })

  it('formats in ru-RU in Russian', () => {
    applyLanguage('ru')
    expect(formatZonedDateTime(AT, 'Europe/Moscow').replace(/\s/g, ' ')).toBe(
      '27 нояб. 2026 г., 14:03 (Europe/Moscow)',
    )
  })

  it('keeps a text that is not a time as it is, and survives an unknown zone', () => {
    expect(formatDateTime('soon', 'UTC')).toBe('soon')
    expect(formatClock(AT, 'Not/AZone')).toMatch(/^\d\d:\d\d$/)
  })
})
