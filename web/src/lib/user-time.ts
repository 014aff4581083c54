/** The browser's zone: only while the user's `user_timezone` setting cannot be read. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

/** `ms` as HH:MM (24 h) in `timeZone`. */
export function formatClock(ms: number, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
  try {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(ms)
  } catch {
    return new Intl.DateTimeFormat('en-GB', options).format(ms)
  }
}

/** `at` (RFC 3339) as "27 Nov 2026, 13:05" in `timeZone` (24 h). */
export function formatDateTime(at: string, timeZone: string): string {
  const date = new Date(at)
  if (Number.isNaN(date.getTime())) return at
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' }
  try {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(date)
  } catch {
    return new Intl.DateTimeFormat('en-GB', options).format(date)
  }
}
