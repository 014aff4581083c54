import type { HourRange } from '@/types/api'

/**
 * The forbidden-hours text of the settings form (spec section 5): comma-separated intervals such as
 * "23.00-1.00, 6.00-8.00". Only the integer part of each hour is used; an interval that cannot be
 * parsed is dropped, and so is one with an hour above 23 or with start equal to end (the server
 * refuses both). The same interval twice is kept once.
 */

/** An hour as written: whole digits, then optionally "." or ":" and anything numeric ("23", "23.00", "6:30"). */
const HOUR = /^(\d+)(?:[.:]\d*)?$/
/** Hyphen, en dash or em dash between start and end. */
const DASH = /\s*[-\u2013\u2014]\s*/

function parseHour(text: string): number | null {
  const match = HOUR.exec(text.trim())
  if (!match?.[1]) return null
  const hour = Number(match[1])
  return hour <= 23 ? hour : null
}

export function parseForbiddenHours(text: string): HourRange[] {
  const ranges: HourRange[] = []
  for (const part of text.split(',')) {
    const bounds = part.trim().split(DASH)
    if (bounds.length !== 2) continue
    const start = parseHour(bounds[0] ?? '')
    const end = parseHour(bounds[1] ?? '')
    if (start === null || end === null || start === end) continue
    if (ranges.some(([s, e]) => s === start && e === end)) continue
    ranges.push([start, end])
  }
  return ranges
}

/** The stored value back in the form's format: [[23,1],[6,8]] -> "23.00-1.00, 6.00-8.00". */
export function formatForbiddenHours(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([start, end]) => `${start}.00-${end}.00`).join(', ')
}

/** For a preview a person reads: [[23,1]] -> "23:00–01:00". */
export function describeForbiddenHours(ranges: readonly (readonly [number, number])[]): string {
  const hh = (hour: number) => `${String(hour).padStart(2, '0')}:00`
  return ranges.map(([start, end]) => `${hh(start)}–${hh(end)}`).join(', ')
}
