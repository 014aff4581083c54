import { ScrollText } from 'lucide-react'
import { QueryState } from '@/components/query-state'
import { TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { useWindowedRows } from '@/lib/use-windowed-rows'
import { formatDateTime } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import type { LogEntry } from '@/types/api'
import { useLogs, type LogLevelFilter } from '@/features/logs/api/get-logs'
import { LogLevelBadge } from '@/features/logs/components/log-level-badge'
import { logsStrings as s } from '@/features/logs/strings'

/** A one-line entry's height (px); longer messages wrap and are measured once rendered. */
const ROW_ESTIMATE_PX = 45

/** The bot log of one level filter: Time, Level, Message, newest first. */
export function LogsTable({ level, label }: { level: LogLevelFilter; label: string }) {
  return (
    <QueryState
      query={useLogs(level)}
      strings={s}
      isEmpty={(entries) => entries.length === 0}
      emptyIcon={ScrollText}
      className="py-16"
    >
      {(entries) => <LogRows entries={entries} label={label} />}
    </QueryState>
  )
}

/**
 * The entries as a table that renders only the rows in view (the buffer holds up to 1,000): it
 * scrolls inside its card, with the header kept on top; the rows above and below the window are
 * spacers of their height, so the scroll bar is the whole list's.
 */
function LogRows({ entries, label }: { entries: LogEntry[]; label: string }) {
  // The settings zone, named in the page's description.
  const timeZone = useUserTimeZone()
  const keys = entries.map((entry) => String(entry.id))
  const { scrollRef, onScroll, first, last, before, after } = useWindowedRows({
    keys,
    estimate: ROW_ESTIMATE_PX,
  })

  return (
    <div
      ref={scrollRef}
      onScroll={onScroll}
      data-testid="logs-scroller"
      // It scrolls: keyboard users reach it (axe's scrollable-region-focusable).
      role="region"
      aria-label={label}
      tabIndex={0}
      className="relative max-h-[calc(100svh-14rem)] min-h-72 w-full overflow-auto rounded-md focus-visible:ring-2 focus-visible:ring-ring/60 focus-visible:outline-none"
    >
      <table
        aria-label={label}
        aria-rowcount={entries.length + 1}
        className="w-full table-fixed caption-bottom text-sm"
      >
        <TableHeader className="sticky top-0 z-10 bg-card">
          <TableRow className="hover:bg-transparent" aria-rowindex={1}>
            <TableHead scope="col" className="w-20 sm:w-48">
              {s.time}
            </TableHead>
            <TableHead scope="col" className="w-22 sm:w-28">
              {s.level}
            </TableHead>
            <TableHead scope="col">{s.message}</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {before > 0 ? <tr aria-hidden="true" style={{ height: before }} /> : null}
          {entries.slice(first, last).map((entry, offset) => (
            <TableRow key={entry.id} data-row-key={String(entry.id)} aria-rowindex={first + offset + 2}>
              <TableCell className="pt-[13px] align-top text-xs text-muted-foreground tabular-nums sm:whitespace-nowrap">
                <time dateTime={entry.timestamp}>
                  {formatDateTime(entry.timestamp, timeZone, { seconds: true })}
                </time>
              </TableCell>
              <TableCell className="align-top">
                <LogLevelBadge level={entry.level} />
              </TableCell>
              <TableCell className="font-mono text-xs [overflow-wrap:anywhere] whitespace-pre-wrap">
                {entry.message}
              </TableCell>
            </TableRow>
          ))}
          {after > 0 ? <tr aria-hidden="true" style={{ height: after }} /> : null}
        </TableBody>
      </table>
    </div>
  )
}
