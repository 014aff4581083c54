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
