import { TriangleAlert } from 'lucide-react'
import { formatZonedDateTime } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { useAlerts } from '@/features/alerts/api/get-alerts'
import { alertStrings as s } from '@/features/alerts/strings'

/**
 * The raised alerts, one banner each, at the top of every page until they are cleared
 * (docs/alerts.md): what happened, since when, and what the bot does about it. Filled by
 * GET /api/alerts/ and kept current by the `alert` live message.
 */
export function AlertBanner() {
  const alerts = useAlerts()
  const timeZone = useUserTimeZone()
  const active = (alerts.data ?? []).filter((a) => a.active)
  if (active.length === 0) return null
  return (
    <section aria-label={s.region} className="border-b border-destructive/40 bg-destructive/10">
      {active.map((alert) => (
        <div
          key={`${alert.kind}-${alert.id}`}
          role="alert"
          className="flex items-start gap-2 px-4 py-2.5 text-sm text-foreground md:px-8"
        >
          {/* The red is the icon's, the border's and the tint's: red text on the red tint is too faint to read (WCAG AA). */}
          <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-destructive" />
          <div className="min-w-0 space-y-0.5 break-words">
            <p>
              <span className="font-semibold">{alert.title}</span> — {alert.detail}{' '}
              <span className="text-muted-foreground">
                {s.since(formatZonedDateTime(alert.raised_at, timeZone, { seconds: true }))}
              </span>
            </p>
            <p className="text-muted-foreground">
              {s.botAction} {alert.action}
            </p>
          </div>
        </div>
      ))}
    </section>
  )
}
