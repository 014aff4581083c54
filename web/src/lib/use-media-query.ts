import { useCallback, useSyncExternalStore } from 'react'

/** Whether a CSS media query matches, kept up to date. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (typeof window.matchMedia !== 'function') return () => undefined
      const list = window.matchMedia(query)
      list.addEventListener('change', onChange)
      return () => {
        list.removeEventListener('change', onChange)
      }
    },
    [query],
  )
  return useSyncExternalStore(
    subscribe,
    () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches,
    () => false,
  )
}

/** Spec section 9: the mobile breakpoint is 768 px. */
export const MOBILE_BREAKPOINT_PX = 768
export const DESKTOP_QUERY = `(min-width: ${MOBILE_BREAKPOINT_PX}px)`
/** Tailwind's `lg`: from here on the dashboard shows two columns (narrower, one). */
export const TWO_COLUMNS_QUERY = '(min-width: 1024px)'
