import { ArrowRight, Signal as SignalIcon } from 'lucide-react'
import { useId } from 'react'
import { Link } from 'react-router'
import { QueryState } from '@/components/query-state'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
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
        <QueryState
          query={signals}
          strings={s}
          isEmpty={(data) => data.length === 0}
          emptyIcon={SignalIcon}
          className="py-10"
        >
          {() => (
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
        </QueryState>
      </CardContent>
    </Card>
  )
}
