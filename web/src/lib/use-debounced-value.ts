import { useEffect, useState } from 'react'

/**
 * `value` once it has stayed the same for `delayMs`; the first value at once. Compared with
 * Object.is, so pass a string (e.g. JSON) for data that is rebuilt on every render.
 */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => {
      setDebounced(value)
    }, delayMs)
    return () => {
      clearTimeout(timer)
    }
  }, [value, delayMs])
  return debounced
}
