import { currentLocale } from '@/i18n/language'

/**
 * The one formatter of every time the app shows (issue 33 point 5): in the user's settings zone
 * (`useUserTimeZone()`), in the current language's locale (en-US / ru-RU), 24 h, and labelled
 * with the zone either beside the time ("14:03 (Europe/Moscow)") or in a column header.
 */

/** The browser's zone: only while the user's `user_timezone` setting cannot be read. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

type TimeInput = string | number | Date

function toDate(at: TimeInput): Date | null {
  const date = at instanceof Date ? at : new Date(at)
  return Number.isNaN(date.getTime()) ? null : date
}

/** Formats in `timeZone`; an unknown zone falls back to the browser's rather than throwing. */
function format(date: Date, options: Intl.DateTimeFormatOptions, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(currentLocale(), { ...options, hourCycle: 'h23', timeZone }).format(date)
  } catch {
    return new Intl.DateTimeFormat(currentLocale(), { ...options, hourCycle: 'h23' }).format(date)
  }
}

/** `at` as HH:MM in `timeZone`. */
export function formatClock(at: TimeInput, timeZone: string): string {
  const date = toDate(at)
  return date ? format(date, { hour: '2-digit', minute: '2-digit' }, timeZone) : String(at)
}

/**
 * `at` (RFC 3339, epoch ms or a Date) as the date and the time in `timeZone`: "Nov 27, 2026, 13:05"
 * in English, "27 нояб. 2026 г., 13:05" in Russian; with `seconds`, to the second. A text that is not
 * a time is shown as it is.
 */
export function formatDateTime(at: TimeInput, timeZone: string, { seconds = false } = {}): string {
  const date = toDate(at)
  if (!date) return String(at)
  return format(date, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' }, timeZone)
}

/** `at` as the date and time in `timeZone` with the zone beside it: "Nov 27, 2026, 13:05 (Europe/Moscow)". */
export function formatZonedDateTime(
  at: TimeInput,
  timeZone: string,
  options?: { seconds?: boolean },
): string {
  const date = toDate(at)
  return date ? `${formatDateTime(date, timeZone, options)} (${timeZone})` : String(at)
}

/** `at` as the date only in `timeZone`. */
export function formatDate(at: TimeInput, timeZone: string): string {
  const date = toDate(at)
  return date ? format(date, { dateStyle: 'medium' }, timeZone) : String(at)
}
