import type { User } from '@/types/api'

/**
 * The stored session: the API token (localStorage `token`) and the user (localStorage `user`).
 * Components read it through `useSyncExternalStore` (see features/auth), so a change made by the
 * API client (a 401 clears it) re-renders the routes at once.
 */

export const TOKEN_KEY = 'token'
export const USER_KEY = 'user'

type Listener = () => void
const listeners = new Set<Listener>()

function emit() {
  for (const listener of listeners) listener()
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

export function getStoredUser(): User | null {
  try {
    const raw = localStorage.getItem(USER_KEY)
    if (!raw) return null
    const parsed: unknown = JSON.parse(raw)
    if (
      parsed &&
      typeof parsed === 'object' &&
      'id' in parsed &&
      'username' in parsed &&
      typeof parsed.username === 'string'
    ) {
      return parsed as User
    }
    return null
  } catch {
    return null
  }
}

export function setSession(token: string, user: User) {
  localStorage.setItem(TOKEN_KEY, token)
  localStorage.setItem(USER_KEY, JSON.stringify(user))
  emit()
}

export function clearSession() {
  localStorage.removeItem(TOKEN_KEY)
  localStorage.removeItem(USER_KEY)
  emit()
}

export function subscribeSession(listener: Listener): () => void {
  listeners.add(listener)
  // Another tab logging in or out changes the same keys.
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key === TOKEN_KEY || event.key === USER_KEY) listener()
  }
  window.addEventListener('storage', onStorage)
  return () => {
    listeners.delete(listener)
    window.removeEventListener('storage', onStorage)
  }
}
