import { FlaskConical, TriangleAlert, Wallet } from 'lucide-react'
import { cn } from '@/lib/utils'
import { isRealVenue, venueLabel } from '@/lib/venue'
import type { Venue } from '@/types/api'

/**
 * The venue as a small badge: "Paper" (muted), "Bybit Demo" (sky) or "Bybit Real" (amber with a
 * warning icon, so it stands out without relying on colour). Text and background keep at least
 * 4.5:1 in both themes (amber-900 on amber-100, amber-200 on a dark amber tint). Nothing for a
 * null venue (a trade from before venues were recorded).
 */
export function VenueBadge({ venue, className }: { venue: Venue | null | undefined; className?: string }) {
  if (!venue) return null
  const real = isRealVenue(venue)
  const paper = !real && (venue.exchange === 'paper' || venue.environment === 'paper')
  const Icon = real ? TriangleAlert : paper ? Wallet : FlaskConical
  return (
    <span
      data-slot="venue-badge"
      data-environment={real ? 'real' : paper ? 'paper' : 'demo'}
      className={cn(
        'inline-flex w-fit shrink-0 items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap [&_svg]:size-3',
        real &&
          'border-amber-600 bg-amber-100 font-semibold text-amber-900 dark:border-amber-400/70 dark:bg-amber-400/15 dark:text-amber-200',
        paper && 'border-border bg-muted text-muted-foreground',
        !real &&
          !paper &&
          'border-sky-600/40 bg-sky-50 text-sky-900 dark:border-sky-400/40 dark:bg-sky-400/10 dark:text-sky-200',
        className,
      )}
    >
      <Icon aria-hidden="true" />
      {venueLabel(venue)}
    </span>
  )
}
