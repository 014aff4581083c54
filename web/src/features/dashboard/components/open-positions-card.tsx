import { BriefcaseBusiness, X } from 'lucide-react'
import { liveNumberFormat } from '@/lib/format-number'
import { useEffect, useId, type ReactNode } from 'react'
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
  AlertDialogTrigger,
} from '@/components/ui/alert-dialog'
import { TradeSymbol } from '@/components/trade-cells'
import { VenueBadge } from '@/components/venue-badge'
import { QueryState } from '@/components/query-state'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { serverMessage } from '@/lib/api-client'
import { useLiveOrders } from '@/lib/live/live-cache'
import { useLiveActions, useLiveStatus } from '@/lib/live/use-live'
import { notify } from '@/lib/toast'
import { cn } from '@/lib/utils'
import { pnlClass } from '@/lib/pnl-class'
import { venueLabel, venueStrings } from '@/lib/venue'
import { formatDateTime } from '@/lib/user-time'
import { useNow } from '@/lib/use-now'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { useCloseAllTrades } from '@/features/trades/api/close-all-trades'
import { useCloseTrade } from '@/features/trades/api/close-trade'
import { useOpenTrades } from '@/features/trades/api/get-open-trades'
import { useBotSettingsPolling } from '@/features/settings/api/get-bot-settings'
import { useControlBot } from '@/features/dashboard/api/control-bot'
import { useBotStatus } from '@/features/dashboard/api/get-bot-status'
import { dashboardStrings } from '@/features/dashboard/strings'
import { mergeOpenPositions, openFor, type OpenPositionRow } from '@/features/dashboard/utils/open-positions'

const s = dashboardStrings.openPositions

const quantityFormat = liveNumberFormat({ maximumFractionDigits: 8 })
const priceFormat = liveNumberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 8 })
const pnlFormat = liveNumberFormat({
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'exceptZero',
})

/** Funding moves by fractions of a cent on a small position: four decimals, signed. */
const fundingFormat = liveNumberFormat({
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
  signDisplay: 'exceptZero',
})

const price = (value: number | null) => (value === null ? s.none : priceFormat.format(value))
const moneyFormat = liveNumberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 })
const pctFormat = liveNumberFormat({
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'exceptZero',
})

/**
 * "Open Positions" on the dashboard (not in the spec): the open trades of GET /api/trades/ with the
 * live positions' mark price and unrealized PnL, the funding each position has received (+) or
 * paid (−) so far, each closable after a confirmation, and Close all.
 * Each row shows the venue its trade was made on (nothing for a trade from before venues were
 * recorded), and Close all the venue the bot trades on now (GET /api/bot/status/).
 * On mount, and whenever the live feed (re)connects, it asks the feed for the positions
 * (`get_trades`); every `orders` message also refetches the trades.
 */
export function OpenPositionsCard({ className }: { className?: string }) {
  const id = useId()
  const trades = useOpenTrades()
  const live = useLiveOrders()
  const status = useLiveStatus()
  const { requestTrades } = useLiveActions()
  const close = useCloseTrade()
  const closeAll = useCloseAllTrades()
  const venue = useBotStatus().data?.venue
  const timeZone = useUserTimeZone()
  const now = useNow(60_000)

  useEffect(() => {
    if (status === 'connected') requestTrades()
  }, [status, requestTrades])

  const rows = trades.data ? mergeOpenPositions(trades.data, live) : []

  const onClose = (row: OpenPositionRow) => {
    close.mutate(row.trade.id, {
      onSuccess: () => notify.success(s.closedToast),
      onError: (error) => notify.error(serverMessage(error) ?? s.closeFailed),
    })
  }

  const stopBot = useControlBot()
  const record = useBotSettingsPolling().data
  const botRuns = record?.is_bot_running === true
  const venueName = venue ? venueLabel(venue) : venueStrings.paper
  const busy = close.isPending || closeAll.isPending || stopBot.isPending

  // The bot stops first, so it cannot open a position between the closes and the stop.
  const onCloseAllAndStop = () => {
    if (!record) return
    stopBot.mutate(
      { id: record.id, action: 'stop_bot' },
      {
        onSuccess: () => {
          onCloseAll()
        },
        onError: (error) => notify.error(s.stopFailedKeptOpen, { description: serverMessage(error) }),
      },
    )
  }

  const onCloseAll = () => {
    closeAll.mutate(undefined, {
      onSuccess: ({ closed }) => notify.success(s.closedAllToast(closed)),
      onError: (error) => notify.error(serverMessage(error) ?? s.closeAllFailed),
    })
  }

  return (
    <Card role="region" aria-labelledby={`${id}-title`} className={className}>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-4 space-y-0">
        <div className="space-y-1.5">
          <CardTitle className="flex items-center gap-2">
            <h2 id={`${id}-title`} className="text-base">
              {s.title}
            </h2>
            {rows.length > 0 ? (
              <Badge variant="secondary" className="tabular-nums">
                {rows.length}
              </Badge>
            ) : null}
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
        {rows.length > 0 ? (
          <div className="flex items-center gap-2">
            <VenueBadge venue={venue} />
            <ConfirmButton
              trigger={
                <Button
                  variant="outline"
                  size="sm"
                  disabled={busy}
                  className="text-destructive hover:bg-destructive/10 hover:text-destructive"
                >
                  {closeAll.isPending ? <Spinner className="size-4" /> : <X aria-hidden="true" />}
                  {s.closeAll}
                </Button>
              }
              title={s.closeAllTitle(venueName)}
              description={
                botRuns
                  ? `${s.closeAllDescription(rows.length)} ${s.closeAllBotRuns}`
                  : s.closeAllDescription(rows.length)
              }
              confirm={s.closeAll}
              onConfirm={onCloseAll}
              also={botRuns ? { label: s.closeAllAndStop, onConfirm: onCloseAllAndStop } : undefined}
            />
          </div>
        ) : null}
      </CardHeader>
      <CardContent className="px-3 sm:px-6">
        <QueryState
          query={trades}
          strings={s}
          isEmpty={() => rows.length === 0}
          emptyIcon={BriefcaseBusiness}
          className="py-10"
        >
          {() => (
            <Table phoneCards aria-labelledby={`${id}-title`}>
              <TableHeader>
                <TableRow className="hover:bg-transparent">
                  <TableHead scope="col">{s.columns.symbol}</TableHead>
                  <TableHead scope="col">{s.columns.side}</TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.pnl}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.size}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.entry}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.mark}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.stop}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.liquidation}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.takeProfit}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.margin}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.funding}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.openFor}
                  </TableHead>
                  <TableHead scope="col" className="sticky right-0 bg-card text-right">
                    <span className="sr-only">{s.columns.actions}</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((row) => {
                  const { trade, markPrice, unrealizedPnl, stopLoss, pnlPct } = row
                  const closing = close.isPending && close.variables === trade.id
                  return (
                    <TableRow key={trade.id}>
                      <TableCell className="font-medium">
                        <TradeSymbol symbol={trade.symbol} venue={trade.venue} />
                      </TableCell>
                      <TableCell>
                        {/* Under 640 px the leverage goes under the side: the key columns fit a phone. */}
                        <span className="inline-flex flex-col items-start gap-0.5 sm:flex-row sm:items-center sm:gap-2">
                          <Badge variant={trade.side === 'long' ? 'success' : 'destructive'}>
                            {s.sides[trade.side]}
                          </Badge>
                          <span className="text-xs text-muted-foreground tabular-nums">
                            {s.leverage(String(trade.leverage))}
                          </span>
                        </span>
                      </TableCell>
                      <TableCell
                        data-column="pnl"
                        className={cn(
                          'text-right font-mono font-medium tabular-nums',
                          pnlClass(unrealizedPnl),
                          unrealizedPnl === null && 'text-muted-foreground',
                        )}
                      >
                        {unrealizedPnl === null ? s.none : pnlFormat.format(unrealizedPnl)}
                        {pnlPct === null ? null : (
                          <span data-column="pnl-pct" className="block text-xs font-normal">
                            {pctFormat.format(pnlPct)}%
                          </span>
                        )}
                      </TableCell>
                      <TableCell className="text-right font-mono tabular-nums">
                        {quantityFormat.format(trade.open_quantity)}
                      </TableCell>
                      <TableCell className="text-right font-mono tabular-nums">
                        {price(trade.entry_price)}
                      </TableCell>
                      <TableCell className="text-right font-mono tabular-nums">{price(markPrice)}</TableCell>
                      <TableCell className="text-right font-mono tabular-nums">{price(stopLoss)}</TableCell>
                      <TableCell data-column="liquidation" className="text-right font-mono tabular-nums">
                        {price(row.liquidationPrice)}
                      </TableCell>
                      <TableCell data-column="take-profit" className="text-right font-mono tabular-nums">
                        {price(row.takeProfit)}
                      </TableCell>
                      <TableCell data-column="margin" className="text-right font-mono tabular-nums">
                        {moneyFormat.format(row.margin)}
                      </TableCell>
                      <TableCell
                        data-column="funding"
                        className={cn('text-right font-mono tabular-nums', pnlClass(trade.funding))}
                      >
                        {fundingFormat.format(trade.funding)}
                      </TableCell>
                      <TableCell
                        data-column="open-for"
                        className="text-right whitespace-nowrap tabular-nums"
                        title={s.openedAt(formatDateTime(row.openedAt, timeZone), timeZone)}
                      >
                        {openFor(row.openedAt, now)}
                      </TableCell>
                      <TableCell className="sticky right-0 bg-card text-right">
                        <ConfirmButton
                          trigger={
                            <Button
                              variant="ghost"
                              size="sm"
                              disabled={busy}
                              aria-label={s.closeLabel(trade.symbol)}
                              className="text-destructive hover:bg-destructive/10 hover:text-destructive"
                            >
                              {closing ? <Spinner className="size-4" /> : null}
                              {s.close}
                            </Button>
                          }
                          title={s.closeTitle(trade.symbol)}
                          description={s.closeDescription}
                          confirm={s.closeConfirm}
                          onConfirm={() => {
                            onClose(row)
                          }}
                        />
                      </TableCell>
                    </TableRow>
                  )
                })}
              </TableBody>
            </Table>
          )}
        </QueryState>
      </CardContent>
    </Card>
  )
}

type ConfirmButtonProps = {
  trigger: ReactNode
  title: string
  description: string
  confirm: string
  onConfirm: () => void
  /** A second way to confirm, after the first (Close all and stop the bot). */
  also?: { label: string; onConfirm: () => void }
}

/** A button that asks first, in an alert dialog (Cancel has the focus). */
function ConfirmButton({ trigger, title, description, confirm, onConfirm, also }: ConfirmButtonProps) {
  return (
    <AlertDialog>
      <AlertDialogTrigger asChild>{trigger}</AlertDialogTrigger>
      <AlertDialogContent>
        <div className="space-y-2">
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </div>
        <AlertDialogFooter>
          <AlertDialogCancel>{s.cancel}</AlertDialogCancel>
          <AlertDialogAction destructive onClick={onConfirm}>
            {confirm}
          </AlertDialogAction>
          {also ? (
            <AlertDialogAction destructive onClick={also.onConfirm}>
              {also.label}
            </AlertDialogAction>
          ) : null}
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  )
}
