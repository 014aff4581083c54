import { TickMarkType, type Time, type UTCTimestamp } from 'lightweight-charts'

/**
 * Time on the charts. lightweight-charts takes UTC seconds and, left alone, labels its axis in
 * UTC and English; the app shows times in the user's settings zone and the language's locale, 24 h
 * (src/lib/user-time.ts), so the axis and the crosshair label are formatted here with Intl.
 */

/** Epoch milliseconds -> the whole UTC seconds lightweight-charts takes. */
export function toChartTime(milliseconds: number): UTCTimestamp {
  return Math.floor(milliseconds / 1000) as UTCTimestamp
}

/** A chart time (UTC seconds; business days and strings are not used by this app) -> a Date. */
function toDate(time: Time): Date {
  if (typeof time === 'number') return new Date(time * 1000)
  if (typeof time === 'string') return new Date(time)
  return new Date(time.year, time.month - 1, time.day)
}

const TICK_FORMAT: Record<TickMarkType, Intl.DateTimeFormatOptions> = {
  [TickMarkType.Year]: { year: 'numeric' },
  [TickMarkType.Month]: { month: 'short' },
  [TickMarkType.DayOfMonth]: { day: 'numeric', month: 'short' },
  [TickMarkType.Time]: { hour: '2-digit', minute: '2-digit' },
  [TickMarkType.TimeWithSeconds]: { hour: '2-digit', minute: '2-digit', second: '2-digit' },
}

/** `options` in `locale` and `timeZone`, 24 h; an unknown zone falls back to the browser's rather than throwing. */
function format(time: Time, options: Intl.DateTimeFormatOptions, locale: string, timeZone: string): string {
  const date = toDate(time)
  try {
    return date.toLocaleString(locale, { ...options, hourCycle: 'h23', timeZone })
  } catch {
    return date.toLocaleString(locale, { ...options, hourCycle: 'h23' })
  }
}

/**
 * The time axis' label of a tick mark in `locale` and `timeZone`: the year, the month, the day, or
 * the time of day, as lightweight-charts asks.
 */
export function tickMarkLabel(time: Time, type: TickMarkType, locale: string, timeZone: string): string {
  return format(time, TICK_FORMAT[type], locale, timeZone)
}

/** The crosshair's time label: the date and time in `locale` and `timeZone`. */
export function crosshairTimeLabel(time: Time, locale: string, timeZone: string): string {
  return format(time, { dateStyle: 'medium', timeStyle: 'short' }, locale, timeZone)
}
