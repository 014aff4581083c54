import { Badge } from '@/components/ui/badge'
import { useLiveStatus } from '@/lib/live/use-live'
import { cn } from '@/lib/utils'
import { dashboardStrings as s } from '@/features/dashboard/strings'

/** The Dashboard heading's badge for the live connection: Connected (green) or Disconnected (muted, red dot). */
export function ConnectionBadge() {
  const connected = useLiveStatus() === 'connected'
  return (
    <Badge variant={connected ? 'success' : 'outline'} aria-live="polite" className="px-3 py-1">
      <span
        aria-hidden="true"
        className={cn('size-2 rounded-full', connected ? 'bg-success' : 'bg-destructive/80')}
      />
      {connected ? s.connected : s.disconnected}
    </Badge>
  )
}
