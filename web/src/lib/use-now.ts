import { useEffect, useState } from 'react'

/** The time (ms since the epoch), read again every `everyMs`: for "open for 2h 15m" and the like. */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now())
    }, everyMs)
    return () => {
      clearInterval(timer)
    }
  }, [everyMs])
  return now
}
