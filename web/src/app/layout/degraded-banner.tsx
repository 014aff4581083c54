import { useQueryClient } from '@tanstack/react-query'
import { DatabaseZap } from 'lucide-react'
import { useEffect } from 'react'
import { layoutStrings } from '@/app/layout/strings'
import { checkHealth, HEALTH_POLL_MS, setStoreDegraded, useStoreDegraded } from '@/lib/store-health'

/**
 * The banner of degraded mode: shown while the server's database is unreachable. Meanwhile it asks
 * `/healthz` every few seconds; on a 200 it goes away and every query is fetched again, so the
 * pages catch up with what happened during the outage.
 */
export function DegradedBanner() {
  const degraded = useStoreDegraded()
  const queryClient = useQueryClient()

  useEffect(() => {
    if (!degraded) return
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      const healthy = await checkHealth(controller.signal)
      if (controller.signal.aborted) return
      if (healthy === true) {
        setStoreDegraded(false)
        void queryClient.invalidateQueries()
        return
      }
      timer = setTimeout(() => void poll(), HEALTH_POLL_MS)
    }
    timer = setTimeout(() => void poll(), HEALTH_POLL_MS)
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [degraded, queryClient])

  if (!degraded) return null
  return (
    <div
      role="alert"
      className="flex items-start gap-2 border-b border-amber-500/40 bg-amber-500/10 px-4 py-2.5 text-sm text-amber-700 md:px-8 dark:text-amber-300"
    >
      <DatabaseZap aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <p>
        <span className="font-medium">{layoutStrings.degraded.title}</span> — {layoutStrings.degraded.detail}
      </p>
    </div>
  )
}
