import { EmptyState, ErrorState } from '@/components/query-state'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { useBacktests, useCancelBacktest, useDeleteBacktest } from '@/features/backtest/api/backtests'
import { isSweep, type BacktestRun } from '@/features/backtest/api/sweep'
import { ProgressBar } from '@/features/backtest/components/progress-bar'
import { backtestStrings as s } from '@/features/backtest/strings'
import { runSummary } from '@/features/backtest/utils/run-summary'

const STATUS_VARIANT = {
  running: 'default',
  done: 'success',
  failed: 'destructive',
  cancelled: 'secondary',
} as const

function period(run: BacktestRun): string {
  return `${run.request.date_from} – ${run.request.date_to}`
}

type RunsTableProps = {
  /** The runs shown below, at most two. */
  selected: number[]
  onOpen: (id: number) => void
  onCompare: (id: number) => void
}

/**
 * The user's runs, newest first: period and label (or, without one, what sets the run apart),
 * status, progress, and what can be done with each.
 */
export function RunsTable({ selected, onOpen, onCompare }: RunsTableProps) {
  const runs = useBacktests()
  const cancel = useCancelBacktest()
  const remove = useDeleteBacktest()

  return (
    <Card>
      <CardHeader>
        <CardTitle>{s.runs}</CardTitle>
      </CardHeader>
      <CardContent className="overflow-x-auto">
        {runs.isError ? (
          <ErrorState title={s.loadFailed} />
        ) : !runs.data || runs.data.length === 0 ? (
          <EmptyState text={s.noRuns} />
        ) : (
          <Table phoneCards aria-label={s.runs}>
            <TableHeader>
              <TableRow>
                <TableHead>#</TableHead>
                <TableHead>{s.period}</TableHead>
                <TableHead>{s.status}</TableHead>
                <TableHead>{s.progress}</TableHead>
                <TableHead>
                  <span className="sr-only">{s.actions}</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {runs.data.map((run) => (
                <TableRow key={run.id} data-selected={selected.includes(run.id) || undefined}>
                  <TableCell className="whitespace-nowrap tabular-nums">
                    {run.id}
                    {run.kind === 'walk_forward' ? (
                      <Badge variant="outline" className="ml-2">
                        {s.walkForward}
                      </Badge>
                    ) : isSweep(run) ? (
                      <Badge variant="outline" className="ml-2">
                        {s.sweep}
                      </Badge>
                    ) : null}
                  </TableCell>
                  <TableCell className="whitespace-normal md:min-w-48">
                    <span className="block whitespace-nowrap tabular-nums">{period(run)}</span>
                    {run.label ? (
                      <span className="block font-medium break-words" data-testid="run-name">
                        {run.label}
                      </span>
                    ) : (
                      <span
                        className="block text-xs break-words text-muted-foreground"
                        data-testid="run-name"
                      >
                        {runSummary(run)}
                      </span>
                    )}
                  </TableCell>
                  <TableCell>
                    <Badge variant={STATUS_VARIANT[run.status as keyof typeof STATUS_VARIANT]}>
                      {s.statuses[run.status] ?? run.status}
                    </Badge>
                  </TableCell>
                  <TableCell>
                    <ProgressBar value={run.progress} label={s.progressLabel(run.id)} />
                  </TableCell>
                  <TableCell>
                    <div className="flex flex-wrap justify-end gap-2">
                      <Button
                        size="sm"
                        variant="outline"
                        aria-label={`${s.open} #${String(run.id)}`}
                        onClick={() => {
                          onOpen(run.id)
                        }}
                      >
                        {s.open}
                      </Button>
                      <Button
                        size="sm"
                        variant="outline"
                        aria-label={`${s.compare} #${String(run.id)}`}
                        disabled={selected.includes(run.id)}
                        onClick={() => {
                          onCompare(run.id)
                        }}
                      >
                        {s.compare}
                      </Button>
                      {run.status === 'running' ? (
                        <Button
                          size="sm"
                          variant="outline"
                          aria-label={`${s.cancel} #${String(run.id)}`}
                          onClick={() => {
                            cancel.mutate(run.id)
                          }}
                        >
                          {s.cancel}
                        </Button>
                      ) : null}
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`${s.delete} #${String(run.id)}`}
                        onClick={() => {
                          remove.mutate(run.id)
                        }}
                      >
                        {s.delete}
                      </Button>
                    </div>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  )
}
