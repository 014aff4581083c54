import { RotateCw, ScrollText } from 'lucide-react'
import { ErrorAlert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { useLogs, type LogLevelFilter } from '@/features/logs/api/get-logs'
import { LogLevelBadge } from '@/features/logs/components/log-level-badge'
import { logsStrings as s } from '@/features/logs/strings'

/** The browser's local time and locale (the server sends UTC). */
function formatTime(timestamp: string): string {
  const date = new Date(timestamp)
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString()
}

/** The bot log of one level filter: Time, Level, Message, newest first. */
export function LogsTable({ level, label }: { level: LogLevelFilter; label: string }) {
  const logs = useLogs(level)

  if (logs.isPending) {
    return (
      <div role="status" className="flex items-center justify-center gap-3 py-16 text-muted-foreground">
        <Spinner className="text-primary" />
        <span>{s.loading}</span>
      </div>
    )
  }

  if (logs.isError) {
    return (
      <ErrorAlert>
        <p className="font-medium">{s.loadFailed}</p>
        <p className="mt-1 text-destructive/90">{logs.error.message}</p>
        <Button
          variant="outline"
          size="sm"
          className="mt-3"
          disabled={logs.isFetching}
          onClick={() => void logs.refetch()}
        >
          <RotateCw aria-hidden="true" />
          {s.retry}
        </Button>
      </ErrorAlert>
    )
  }

  if (logs.data.length === 0) {
    return (
      <div className="flex flex-col items-center justify-center gap-3 rounded-lg border border-dashed py-16 text-center">
        <span className="flex size-10 items-center justify-center rounded-full bg-muted text-muted-foreground">
          <ScrollText aria-hidden="true" className="size-5" />
        </span>
        <p className="text-sm text-muted-foreground">{s.empty}</p>
      </div>
    )
  }

  return (
    <Table aria-label={label}>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead scope="col" className="w-28 sm:w-48">
            {s.time}
          </TableHead>
          <TableHead scope="col" className="w-24 sm:w-28">
            {s.level}
          </TableHead>
          <TableHead scope="col" className="min-w-48">
            {s.message}
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {logs.data.map((entry) => (
          <TableRow key={entry.id}>
            <TableCell className="pt-[13px] align-top text-xs text-muted-foreground tabular-nums sm:whitespace-nowrap">
              <time dateTime={entry.timestamp}>{formatTime(entry.timestamp)}</time>
            </TableCell>
            <TableCell className="align-top">
              <LogLevelBadge level={entry.level} />
            </TableCell>
            <TableCell className="font-mono text-xs break-words whitespace-pre-wrap">
              {entry.message}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  )
}
