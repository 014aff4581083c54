import { LogOut, MonitorSmartphone, TerminalSquare } from 'lucide-react'
import { useId } from 'react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'
import { QueryState } from '@/components/query-state'
import { notify } from '@/lib/toast'
import { formatZonedDateTime } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { useSessions } from '@/features/security/api/get-sessions'
import { useRevokeOtherSessions } from '@/features/security/api/revoke-other-sessions'
import { useRevokeSession } from '@/features/security/api/revoke-session'
import { securityStrings } from '@/features/security/strings'
import type { SessionInfo } from '@/types/api'

const s = securityStrings.sessions

/**
 * "Sessions" in the Security section: every login of the user (created, last seen, address,
 * client), this one marked; Revoke ends one at once, Revoke others every one but this.
 */
export function SessionsCard() {
  const headingId = useId()
  const timeZone = useUserTimeZone()
  const sessions = useSessions()
  const revoke = useRevokeSession()
  const revokeOthers = useRevokeOtherSessions()
  const others = sessions.data?.filter((session) => !session.current).length ?? 0

  const onRevoke = (session: SessionInfo) => {
    revoke.mutate(session.id, {
      onSuccess: () => notify.success(s.revokedToast),
      onError: (error) => notify.error(s.revokeFailed, { description: serverMessage(error) }),
    })
  }

  const onRevokeOthers = () => {
    revokeOthers.mutate(undefined, {
      onSuccess: ({ revoked }) => notify.success(s.revokedOthersToast(revoked)),
      onError: (error) => notify.error(s.revokeOthersFailed, { description: serverMessage(error) }),
    })
  }

  return (
    <Card role="region" aria-labelledby={headingId}>
      {/* Wraps: on a phone the button goes under the title instead of squeezing it. */}
      <CardHeader className="flex-row flex-wrap items-start gap-3 space-y-0 pb-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <MonitorSmartphone aria-hidden="true" className="size-[18px]" />
        </span>
        <div className="min-w-48 flex-1 space-y-1">
          <CardTitle>
            <h3 id={headingId} className="text-base">
              {s.title}
            </h3>
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
        <Button
          variant="outline"
          size="sm"
          disabled={others === 0 || revokeOthers.isPending}
          onClick={onRevokeOthers}
        >
          {revokeOthers.isPending ? <Spinner className="size-4" /> : <LogOut aria-hidden="true" />}
          {s.revokeOthers}
        </Button>
      </CardHeader>
      <CardContent>
        <QueryState
          query={sessions}
          strings={{
            loading: s.loading,
            loadFailed: s.loadFailed,
            retry: securityStrings.retry,
            empty: s.empty,
          }}
          isEmpty={(data) => data.length === 0}
          layout="inline"
        >
          {(data) => (
            <ul className="divide-y rounded-lg border" aria-label={s.title}>
              {data.map((session) => (
                <li key={session.id} className="flex flex-col gap-3 p-3 sm:flex-row sm:items-center">
                  <span className="flex size-8 shrink-0 items-center justify-center rounded-md bg-muted text-muted-foreground">
                    {session.browser ? (
                      <MonitorSmartphone aria-hidden="true" className="size-4" />
                    ) : (
                      <TerminalSquare aria-hidden="true" className="size-4" />
                    )}
                  </span>
                  <div className="min-w-0 flex-1 space-y-0.5 text-sm">
                    <p className="flex flex-wrap items-center gap-2 font-medium">
                      <span className="truncate">{session.user_agent ?? s.unknownAgent}</span>
                      {session.current ? <Badge>{s.current}</Badge> : null}
                    </p>
                    <p className="text-muted-foreground">
                      {session.browser ? s.browser : s.token} · {session.address ?? s.unknownAddress} ·{' '}
                      {s.created(formatZonedDateTime(session.created_at, timeZone))} ·{' '}
                      {s.lastSeen(formatZonedDateTime(session.last_seen_at, timeZone))}
                    </p>
                  </div>
                  {session.current ? null : (
                    <Button
                      variant="outline"
                      size="sm"
                      disabled={revoke.isPending}
                      onClick={() => {
                        onRevoke(session)
                      }}
                      aria-label={`${s.revoke} ${session.user_agent ?? s.unknownAgent}`}
                    >
                      {s.revoke}
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </QueryState>
      </CardContent>
    </Card>
  )
}
