/**
 * The time zones the browser supports (spec section 5), plus the stored one when the browser lacks
 * it, so a saved value always stays selectable.
 */
export function timeZoneOptions(current: string): string[] {
  let zones: string[]
  try {
    zones = Intl.supportedValuesOf('timeZone')
  } catch {
    zones = []
  }
  const all = new Set(zones)
  if (current) all.add(current)
  return [...all].sort((a, b) => a.localeCompare(b))
}

const offsets = new Map<string, string>()

/** "GMT+3" for Europe/Moscow: shown next to each zone. Empty when the browser cannot tell. */
export function timeZoneOffset(zone: string, at = new Date()): string {
  const cached = offsets.get(zone)
  if (cached !== undefined) return cached
  let offset: string
  try {
    const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')
    offset = part?.value ?? ''
  } catch {
    offset = ''
  }
  offsets.set(zone, offset)
  return offset
}
