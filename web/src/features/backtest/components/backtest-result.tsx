import { Fragment, useState } from 'react'
import { ChartCandlestick } from 'lucide-react'
import { ErrorState } from '@/components/query-state'
import { StatTile } from '@/components/stat-tile'
import { TradePrice, TradeSymbol } from '@/components/trade-cells'
import { EquityCurveCard } from '@/components/stats/equity-curve'
import { PnlHeatmapCard } from '@/components/stats/pnl-heatmap'
import { StatsFigures } from '@/components/stats/stats-summary'
import { TradeChartBody } from '@/components/trade-chart/trade-chart'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { pnlClass } from '@/lib/pnl-class'
import { formatZonedDateTime } from '@/lib/user-time'
import type { Trade } from '@/types/api'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { useBacktest, type BacktestResult } from '@/features/backtest/api/backtests'
import { useTradeChart } from '@/features/backtest/api/trade-chart'
import {
  isSweepResult,
  isWalkForwardResult,
  type BacktestRun,
  type SweepResult,
  type WalkForwardResult,
} from '@/features/backtest/api/sweep'
import { NoTradesReason } from '@/features/backtest/components/no-trades'
import { ProgressBar } from '@/features/backtest/components/progress-bar'
import { RanWith } from '@/features/backtest/components/ran-with'
import { RunLabel } from '@/features/backtest/components/run-label'
import { SweepResultView } from '@/features/backtest/components/sweep-result'
import { WalkForwardResultView } from '@/features/backtest/components/walk-forward-result'
import { backtestStrings as s } from '@/features/backtest/strings'
import { formatNumber, formatPercent } from '@/lib/format-number'
import { closeReasonLabel, tradeStatusLabel } from '@/lib/trade-labels'

/** The trades listed under a result; the figures above count every trade. */
const TRADES_LISTED = 100

const TRADE_COLUMNS = 10

/** A backtest trade's price chart (GET /api/backtests/{id}/trades/{trade_id}/chart/). */
function TradeChartPanel({ runId, trade }: { runId: number; trade: Trade }) {
  return <TradeChartBody chart={useTradeChart(runId, trade.id)} trade={trade} />
}

function Figures({ run, result }: { run: BacktestRun; result: BacktestResult }) {
  const runId = run.id
  const timeZone = useUserTimeZone()
  const summary = result.summary
  const trades = result.trades.slice(-TRADES_LISTED).reverse()
  const [charted, setCharted] = useState<ReadonlySet<number>>(() => new Set())
  const toggleChart = (tradeId: number) => {
    setCharted((old) => {
      const next = new Set(old)
      if (!next.delete(tradeId)) next.add(tradeId)
      return next
    })
  }
  const noTrades = result.trades_total === 0 ? (result.no_trades ?? null) : null
  return (
    <div className="space-y-4">
      <RanWith
        request={run.request}
        settings={result.settings}
        history={result.history}
        wallet={summary.starting_balance}
      />
      <div className="grid grid-cols-2 gap-4 md:grid-cols-4">
        <StatTile label={s.maxDrawdown} value={formatPercent(summary.max_drawdown_pct, 2)} />
        <StatTile
          label={s.finalBalance}
          value={formatNumber(summary.final_balance, 2)}
          valueClassName={pnlClass(summary.final_balance - summary.starting_balance)}
        />
        <StatTile label={s.fees} value={formatNumber(summary.fees, 2)} />
        <StatTile
          label={s.funding}
          value={formatNumber(summary.funding, 2)}
          valueClassName={pnlClass(summary.funding)}
        />
        <StatTile label={s.openAtEnd} value={String(summary.open_at_end)} />
      </div>
      <StatsFigures data={summary.stats} />
      <EquityCurveCard equity={summary.stats.equity} timeZone={timeZone} />
      <PnlHeatmapCard cells={summary.stats.heatmap} />
      {noTrades ? (
        <NoTradesReason reason={noTrades} />
      ) : (
        <Card>
          <CardHeader>
            <CardTitle>
              {s.trades}{' '}
              <span className="text-sm font-normal text-muted-foreground">
                ({s.tradesShown(trades.length, result.trades_total)})
              </span>
            </CardTitle>
          </CardHeader>
          <CardContent className="overflow-x-auto">
            <Table phoneCards aria-label={s.trades}>
              <TableHeader>
                <TableRow>
                  <TableHead>{s.tradeColumns.symbol}</TableHead>
                  <TableHead>{s.tradeColumns.side}</TableHead>
                  <TableHead>{s.tradeColumns.entry}</TableHead>
                  <TableHead>{s.tradeColumns.exit}</TableHead>
                  <TableHead>{s.tradeColumns.pnl}</TableHead>
                  <TableHead>{s.fees}</TableHead>
                  <TableHead>{s.funding}</TableHead>
                  <TableHead>{s.tradeColumns.reason}</TableHead>
                  <TableHead>{s.tradeColumns.closed}</TableHead>
                  <TableHead>
                    <span className="sr-only">{s.chart}</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {trades.map((trade) => {
                  const open = charted.has(trade.id)
                  const panelId = `trade-chart-${String(runId)}-${String(trade.id)}`
                  return (
                    <Fragment key={trade.id}>
                      <TableRow>
                        <TableCell>
                          <TradeSymbol symbol={trade.symbol} venue={trade.venue} />
                        </TableCell>
                        <TableCell>{s.tradeSides[trade.side]}</TableCell>
                        <TableCell className="tabular-nums">
                          <TradePrice value={trade.entry_price} />
                        </TableCell>
                        <TableCell className="tabular-nums">
                          <TradePrice value={trade.exit_price} />
                        </TableCell>
                        <TableCell className={`tabular-nums ${pnlClass(trade.pnl)}`}>
                          {formatNumber(trade.pnl, 2)}
                        </TableCell>
                        <TableCell className="tabular-nums">{formatNumber(trade.fees, 4)}</TableCell>
                        <TableCell
                          data-column="funding"
                          className={`tabular-nums ${pnlClass(trade.funding)}`}
                        >
                          {formatNumber(trade.funding, 4)}
                        </TableCell>
                        <TableCell>
                          {trade.close_reason
                            ? closeReasonLabel(trade.close_reason)
                            : tradeStatusLabel(trade.status)}
                        </TableCell>
                        <TableCell className="whitespace-nowrap tabular-nums">
                          {trade.closed_at ? formatZonedDateTime(trade.closed_at, timeZone) : '—'}
                        </TableCell>
                        <TableCell>
                          <Button
                            size="sm"
                            variant={open ? 'secondary' : 'outline'}
                            aria-label={s.chartOf(trade.id)}
                            aria-expanded={open}
                            aria-controls={open ? panelId : undefined}
                            onClick={() => {
                              toggleChart(trade.id)
                            }}
                          >
                            <ChartCandlestick aria-hidden="true" />
                            {s.chart}
                          </Button>
                        </TableCell>
                      </TableRow>
                      {open ? (
                        <TableRow id={panelId} className="hover:bg-transparent">
                          <TableCell colSpan={TRADE_COLUMNS} className="whitespace-normal">
                            <TradeChartPanel runId={runId} trade={trade} />
                          </TableCell>
                        </TableRow>
                      ) : null}
                    </Fragment>
                  )
                })}
              </TableBody>
            </Table>
          </CardContent>
        </Card>
      )}
    </div>
  )
}

/** The "Ran with" panel of a sweep or a walk-forward (results stored before they kept it have none). */
function BaseRanWith({ run, result }: { run: BacktestRun; result: SweepResult | WalkForwardResult }) {
  if (!result.settings || !result.history) return null
  return <RanWith request={run.request} settings={result.settings} history={result.history} />
}

/**
 * One run: its progress while it runs, why it failed, or its figures once done; a sweep's table
 * and heatmaps, whose cells open their own runs through `onOpenRun`; a walk-forward's windows.
 */
export function BacktestResultView({
  id,
  onOpenRun,
}: {
  id: number
  onOpenRun?: (run: BacktestRun) => void
}) {
  const run = useBacktest(id)
  const title = s.result(id)
  const result = run.data?.result ?? null

  return (
    <section aria-label={title} className="min-w-0 space-y-4">
      <h2 className="text-xl font-semibold">{title}</h2>
      {run.data ? <RunLabel id={id} label={run.data.label} /> : null}
      {run.isError ? (
        <ErrorState title={s.loadFailed} />
      ) : !run.data ? null : run.data.status === 'running' ? (
        <ProgressBar value={run.data.progress} label={s.progressLabel(id)} />
      ) : run.data.status === 'failed' ? (
        <p role="alert" className="text-sm text-destructive">
          {s.runFailed}: {run.data.error}
        </p>
      ) : result && isWalkForwardResult(result) ? (
        <>
          <BaseRanWith run={run.data} result={result} />
          <WalkForwardResultView result={result} />
        </>
      ) : result && isSweepResult(result) ? (
        <>
          <BaseRanWith run={run.data} result={result} />
          <SweepResultView run={run.data} result={result} onOpenRun={onOpenRun} />
        </>
      ) : result ? (
        <Figures run={run.data} result={result} />
      ) : (
        <p className="text-sm text-muted-foreground">{s.statuses[run.data.status] ?? run.data.status}</p>
      )}
    </section>
  )
}
