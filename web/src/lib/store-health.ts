import { useSyncExternalStore } from 'react'

/**
 * Degraded mode (docs/reliability.md): whether the server said its database is unreachable.
 *
 * The API client reports every 503 answer here; while degraded, the banner (app/layout) asks
 * `/healthz` every few seconds and clears the flag when it answers 200. A successful API answer
 * does not clear it: reads can work while the database takes no writes.
 */

export const HEALTH_URL = '/healthz'
/** How often `/healthz` is asked while degraded. */
export const HEALTH_POLL_MS = 5000

let degraded = false
const listeners = new Set<() => void>()

export function isStoreDegraded(): boolean {
  return degraded
}

export function setStoreDegraded(value: boolean) {
  if (degraded === value) return
  degraded = value
  for (const listener of listeners) listener()
}

export function subscribeStoreHealth(listener: () => void): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

/** True while the server runs in degraded mode; re-renders when that changes. */
export function useStoreDegraded(): boolean {
  return useSyncExternalStore(subscribeStoreHealth, isStoreDegraded, () => false)
}

/**
 * Asks `/healthz`: true for 200 (healthy), false for 503 (degraded), undefined when the answer
 * says neither (the server unreachable, another status).
 */
export async function checkHealth(signal?: AbortSignal): Promise<boolean | undefined> {
  try {
    const response = await fetch(HEALTH_URL, { signal, headers: { Accept: 'application/json' } })
    if (response.ok) return true
    if (response.status === 503) return false
    return undefined
  } catch {
    return undefined
  }
}
