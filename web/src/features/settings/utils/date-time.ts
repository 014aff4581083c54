const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** An RFC 3339 time from the server as a local date and time (as given when it does not parse). */
export function formatDateTime(at: string): string {
  const date = new Date(at)
  return Number.isNaN(date.getTime()) ? at : dateTimeFormat.format(date)
}
