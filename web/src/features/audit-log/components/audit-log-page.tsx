import { ChevronDown, ShieldCheck } from 'lucide-react'
import { PageHeader } from '@/components/page-header'
import { EmptyState, ErrorState, QueryState } from '@/components/query-state'
import { Button } from '@/components/ui/button'
import { Card, CardContent } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { serverMessage } from '@/lib/api-client'
import { browserTimeZone, formatDateTime } from '@/lib/user-time'
import { useBotSettings } from '@/features/settings/api/get-bot-settings'
import { useAuditLog } from '@/features/audit-log/api/get-audit-log'
import { describeDetail } from '@/features/audit-log/components/describe-detail'
import { auditLogStrings as s } from '@/features/audit-log/strings'
import type { AuditEntry, AuditPage } from '@/types/api'

/** The longest user agent shown in the table; the full one is in the cell's title. */
const AGENT_CHARS = 40

function truncated(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text
}

function AuditRow({ entry, timeZone }: { entry: AuditEntry; timeZone: string }) {
  const details = describeDetail(entry)
  const agent = entry.user_agent ?? ''
  return (
    <TableRow data-action={entry.action}>
      <TableCell className="whitespace-nowrap tabular-nums">
        {formatDateTime(entry.at, timeZone, { seconds: true })}
      </TableCell>
      <TableCell className="font-medium">{s.actions[entry.action] ?? entry.action}</TableCell>
      <TableCell className="min-w-48">
        {details.length === 0 ? (
          <span className="text-muted-foreground">{s.none}</span>
        ) : (
          <ul className="space-y-0.5">
            {details.map((line, i) => (
              <li key={i} className="break-words">
                {line}
              </li>
            ))}
          </ul>
        )}
      </TableCell>
      <TableCell className="whitespace-nowrap">{entry.address ?? s.none}</TableCell>
      <TableCell className="text-muted-foreground" title={agent || undefined}>
        {agent ? truncated(agent, AGENT_CHARS) : s.none}
      </TableCell>
    </TableRow>
  )
}

type AuditRowsProps = { log: ReturnType<typeof useAuditLog>; pages: AuditPage[]; timeZone: string }

/** The loaded rows, the failure of the last "Load more" if any, and "Load more" while older rows exist. */
function AuditRows({ log, pages, timeZone }: AuditRowsProps) {
  const entries = pages.flatMap((page) => page.entries)
  if (entries.length === 0) {
    return <EmptyState text={s.empty} icon={ShieldCheck} className="py-16" />
  }
  return (
    <div className="space-y-4">
      <Table phoneCards aria-label={s.tableLabel} scrollLabel={s.scrollLabel}>
        <TableHeader>
          <TableRow>
            <TableHead>{s.columns.time(timeZone)}</TableHead>
            <TableHead>{s.columns.action}</TableHead>
            <TableHead>{s.columns.details}</TableHead>
            <TableHead>{s.columns.address}</TableHead>
            <TableHead>{s.columns.userAgent}</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {entries.map((entry) => (
            <AuditRow key={entry.id} entry={entry} timeZone={timeZone} />
          ))}
        </TableBody>
      </Table>
      {log.isFetchNextPageError ? (
        <ErrorState title={s.loadMoreFailed} message={serverMessage(log.error)} />
      ) : null}
      {log.hasNextPage ? (
        <div className="flex justify-center">
          <Button
            variant="outline"
            disabled={log.isFetchingNextPage}
            onClick={() => void log.fetchNextPage()}
          >
            {log.isFetchingNextPage ? <Spinner className="size-4" /> : <ChevronDown aria-hidden="true" />}
            {s.loadMore}
          </Button>
        </div>
      ) : null}
    </div>
  )
}

/**
 * /audit-log (issue 31 point 2): the user's audit rows, newest first, in the time zone of their
 * settings (the browser's while the settings cannot be read); "Load more" fetches older pages.
 */
export function AuditLogPage() {
  const log = useAuditLog()
  const settings = useBotSettings()
  const timeZone = settings.data?.user_timezone ?? browserTimeZone()

  return (
    <div className="space-y-6">
      <PageHeader title={s.title} description={s.description} />
      <Card>
        <CardContent className="p-2 sm:p-4">
          {/* Rows already loaded stay when a later page fails (that failure shows below them). */}
          {log.data ? (
            <AuditRows log={log} pages={log.data.pages} timeZone={timeZone} />
          ) : (
            <QueryState
              query={log}
              strings={{ loading: s.loading, loadFailed: s.loadFailed, retry: s.retry }}
              layout="inline"
            >
              {(data) => <AuditRows log={log} pages={data.pages} timeZone={timeZone} />}
            </QueryState>
          )}
        </CardContent>
      </Card>
    </div>
  )
}
