import { WifiOff } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { useLiveConnection } from '@/lib/live/use-live'
import { formatClock } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { layoutStrings } from '@/app/layout/strings'

const s = layoutStrings.connectionLost

/**
 * Shown while the live connection is lost: since when (in the user's zone, labelled), that the page
 * may be stale, and a button to try now. The app keeps trying by itself (every 30 s after the
 * spec's 5 quick tries, and when the window gets the focus or the browser is back online).
 */
export function ConnectionLostBanner() {
  const { lostSince, retryNow } = useLiveConnection()
  const timeZone = useUserTimeZone()
  if (lostSince === null) return null
  return (
    <div
      role="status"
      data-testid="connection-lost"
      className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-destructive/30 bg-destructive/10 px-4 py-2.5 text-sm md:px-8"
    >
      <WifiOff aria-hidden="true" className="size-4 shrink-0 text-destructive" />
      <p className="min-w-0 flex-1">
        <span className="font-medium">{s.title(formatClock(lostSince, timeZone), timeZone)}</span> {s.detail}
      </p>
      <Button size="sm" variant="outline" onClick={retryNow}>
        {s.retry}
      </Button>
    </div>
  )
}
