import { ArrowRight, RotateCw, Signal as SignalIcon } from 'lucide-react'
import { useId } from 'react'
import { Link } from 'react-router'
import { ErrorAlert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { SIGNALS_CAP } from '@/lib/live/constants'
import { useSignals } from '@/features/signals/api/get-signals'
import { SignalBadge } from '@/features/signals/components/signal-badge'
import { signalValue } from '@/features/signals/utils/signal-value'
import { signalsStrings as s } from '@/features/signals/strings'

type SignalsTableProps = {
  /** Show only the first N signals; the title then reads "Trading Signals (Last N)". */
  limit?: number
  /** A "View all" link to this path in the card's header. */
  viewAllHref?: string
}

/**
 * The signals table of spec section 2: a card titled "Trading Signals" (plus "(Last N)" when
 * limited) with the columns Symbol and Signal. The list is the live one: the feed replaces it on
 * `signals_update` and moves a symbol to the front on `signal`.
 */
export function SignalsTable({ limit, viewAllHref }: SignalsTableProps) {
  const id = useId()
  const signals = useSignals()
  const title = limit === undefined ? s.title : `${s.title} ${s.lastN(limit)}`
  const rows = signals.data?.slice(0, limit ?? SIGNALS_CAP) ?? []

  return (
    <Card role="region" aria-labelledby={`${id}-title`}>
      <CardHeader className="flex-row items-start justify-between gap-4 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>
            <h2 id={`${id}-title`} className="text-base">
              {title}
            </h2>
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
        {viewAllHref ? (
          <Button asChild variant="ghost" size="sm" className="-mt-1 -mr-2 text-primary">
            <Link to={viewAllHref}>
              {s.viewAll}
              <ArrowRight aria-hidden="true" />
            </Link>
          </Button>
        ) : null}
      </CardHeader>
      <CardContent>
        {signals.isPending ? (
          <div role="status" className="flex items-center justify-center gap-3 py-10 text-muted-foreground">
            <Spinner className="text-primary" />
            <span>{s.loading}</span>
          </div>
        ) : signals.isError ? (
          <ErrorAlert>
            <p className="font-medium">{s.loadFailed}</p>
            <p className="mt-1 text-destructive/90">{signals.error.message}</p>
            <Button
              variant="outline"
              size="sm"
              className="mt-3"
              disabled={signals.isFetching}
              onClick={() => void signals.refetch()}
            >
              <RotateCw aria-hidden="true" />
              {s.retry}
            </Button>
          </ErrorAlert>
        ) : rows.length === 0 ? (
          <div className="flex flex-col items-center justify-center gap-3 rounded-lg border border-dashed py-10 text-center">
            <span className="flex size-10 items-center justify-center rounded-full bg-muted text-muted-foreground">
              <SignalIcon aria-hidden="true" className="size-5" />
            </span>
            <p className="text-sm text-muted-foreground">{s.empty}</p>
          </div>
        ) : (
          <Table phoneCards aria-labelledby={`${id}-title`}>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead scope="col">{s.symbol}</TableHead>
                <TableHead scope="col" className="text-right">
                  {s.signal}
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((signal) => (
                <TableRow key={signal.symbol}>
                  <TableCell className="font-medium">{signal.symbol}</TableCell>
                  <TableCell className="text-right">
                    <SignalBadge value={signalValue(signal)} />
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
