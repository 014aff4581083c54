import { Fragment, useState } from 'react'
import { ChartCandlestick } from 'lucide-react'
import { TradePrice } from '@/components/trade-cells'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { TradeChartBody } from '@/components/trade-chart/trade-chart'
import { useLiveTradeChart } from '@/features/trades/api/get-trade-chart'
import { tradesStrings as s } from '@/features/trades/strings'
import { formatInZone } from '@/features/trades/utils/trades-filter'
import { formatMoney } from '@/lib/format-money'
import { pnlClass } from '@/lib/pnl-class'
import { cn } from '@/lib/utils'
import { closeReasonLabel, tradeStatusLabel } from '@/lib/trade-labels'
import type { Trade } from '@/types/api'

type Props = { trades: Trade[]; timeZone: string; desktop: boolean }

function LiveTradeChart({ trade, timeZone }: { trade: Trade; timeZone: string }) {
  return <TradeChartBody chart={useLiveTradeChart(trade.id)} trade={trade} timeZone={timeZone} />
}

/**
 * The pnl's colour: the shared one, but a darker green in the light theme, where the theme's
 * success green on white is under 4.5:1 for this small text (axe color-contrast).
 */
function pnlTone(pnl: number): string {
  return cn(pnlClass(pnl), pnl > 0 && 'text-emerald-700 dark:text-success')
}

function reason(trade: Trade): string {
  return trade.close_reason ? closeReasonLabel(trade.close_reason) : '—'
}

function ChartToggle({ trade, open, onToggle }: { trade: Trade; open: boolean; onToggle: () => void }) {
  return (
    <Button
      variant="outline"
      size="sm"
      aria-expanded={open}
      aria-label={open ? s.hideChart(trade.id) : s.showChart(trade.id)}
      disabled={trade.entry_price === null}
      onClick={onToggle}
    >
      <ChartCandlestick aria-hidden="true" />
      {s.chart}
    </Button>
  )
}

/**
 * The page's trades: a table from 768 px, cards on phones (no sideways scroll); each row opens
 * its chart under it. Times in the user's settings zone, money in USDT with 2 decimals.
 */
export function TradesList({ trades, timeZone, desktop }: Props) {
  const [open, setOpen] = useState<number | null>(null)
  const toggle = (id: number) => {
    setOpen((old) => (old === id ? null : id))
  }

  if (!desktop) {
    return (
      <ul aria-label={s.tableLabel} className="space-y-3">
        {trades.map((t) => (
          <li key={t.id} className="min-w-0 space-y-2 rounded-lg border p-3" data-trade-id={t.id}>
            <div className="flex items-center justify-between gap-2">
              <span className="font-medium">
                {t.symbol} <span className="text-muted-foreground">#{t.id}</span>
              </span>
              <span className={cn('font-semibold tabular-nums', pnlTone(t.pnl))}>{formatMoney(t.pnl)}</span>
            </div>
            <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
              <dt className="text-muted-foreground">{s.side}</dt>
              <dd>{s.sides[t.side]}</dd>
              <dt className="text-muted-foreground">{s.status}</dt>
              <dd>{tradeStatusLabel(t.status)}</dd>
              <dt className="text-muted-foreground">{s.openedShort}</dt>
              <dd className="tabular-nums">{formatInZone(t.opened_at ?? t.created_at, timeZone)}</dd>
              <dt className="text-muted-foreground">{s.closedShort}</dt>
              <dd className="tabular-nums">{formatInZone(t.closed_at, timeZone)}</dd>
              <dt className="text-muted-foreground">{s.closeReason}</dt>
              <dd>{reason(t)}</dd>
            </dl>
            <ChartToggle
              trade={t}
              open={open === t.id}
              onToggle={() => {
                toggle(t.id)
              }}
            />
            {open === t.id ? <LiveTradeChart trade={t} timeZone={timeZone} /> : null}
          </li>
        ))}
      </ul>
    )
  }

  return (
    <Table aria-label={s.tableLabel}>
      <TableHeader>
        <TableRow>
          <TableHead>{s.id}</TableHead>
          <TableHead>{s.symbol}</TableHead>
          <TableHead>{s.side}</TableHead>
          <TableHead>{s.status}</TableHead>
          <TableHead>{s.opened(timeZone)}</TableHead>
          <TableHead>{s.closed(timeZone)}</TableHead>
          <TableHead className="text-right">{s.entry}</TableHead>
          <TableHead className="text-right">{s.exit}</TableHead>
          <TableHead className="text-right">{s.pnl}</TableHead>
          <TableHead>{s.closeReason}</TableHead>
          <TableHead>
            <span className="sr-only">{s.chart}</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {trades.map((t) => (
          <Fragment key={t.id}>
            <TableRow data-trade-id={t.id}>
              <TableCell className="tabular-nums">{t.id}</TableCell>
              <TableCell className="font-medium">{t.symbol}</TableCell>
              <TableCell>{s.sides[t.side]}</TableCell>
              <TableCell>{tradeStatusLabel(t.status)}</TableCell>
              <TableCell className="whitespace-nowrap tabular-nums">
                {formatInZone(t.opened_at ?? t.created_at, timeZone)}
              </TableCell>
              <TableCell className="whitespace-nowrap tabular-nums">
                {formatInZone(t.closed_at, timeZone)}
              </TableCell>
              <TableCell className="text-right tabular-nums">
                <TradePrice value={t.entry_price} />
              </TableCell>
              <TableCell className="text-right tabular-nums">
                <TradePrice value={t.exit_price} />
              </TableCell>
              <TableCell className={cn('text-right font-medium tabular-nums', pnlTone(t.pnl))}>
                {formatMoney(t.pnl)}
              </TableCell>
              <TableCell>{reason(t)}</TableCell>
              <TableCell>
                <ChartToggle
                  trade={t}
                  open={open === t.id}
                  onToggle={() => {
                    toggle(t.id)
                  }}
                />
              </TableCell>
            </TableRow>
            {open === t.id ? (
              <TableRow>
                <TableCell colSpan={11}>
                  <LiveTradeChart trade={t} timeZone={timeZone} />
                </TableCell>
              </TableRow>
            ) : null}
          </Fragment>
        ))}
      </TableBody>
    </Table>
  )
}
