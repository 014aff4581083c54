/**
 * The API keys whose real-money trading the trader has confirmed on this browser (typing REAL in
 * the Start Bot dialog): localStorage `real-trading-confirmed-keys`, a JSON array of key ids. A key
 * is confirmed once; another real key (a new id) asks again. Unreadable storage counts as nothing
 * confirmed, so the dialog is shown rather than skipped.
 */
export const REAL_CONFIRMED_STORAGE_KEY = 'real-trading-confirmed-keys'

/** The word the trader types to confirm. */
export const REAL_CONFIRMATION_WORD = 'REAL'

function readConfirmed(): number[] {
  try {
    const raw = localStorage.getItem(REAL_CONFIRMED_STORAGE_KEY)
    if (!raw) return []
    const parsed: unknown = JSON.parse(raw)
    return Array.isArray(parsed) ? parsed.filter((id): id is number => Number.isInteger(id)) : []
  } catch {
    return []
  }
}

export function isRealConfirmed(keyId: number): boolean {
  return readConfirmed().includes(keyId)
}

export function rememberRealConfirmed(keyId: number): void {
  const confirmed = readConfirmed()
  if (confirmed.includes(keyId)) return
  try {
    localStorage.setItem(REAL_CONFIRMED_STORAGE_KEY, JSON.stringify([...confirmed, keyId]))
  } catch {
    // Storage full or blocked: the dialog simply asks again next time.
  }
}
