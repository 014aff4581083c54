import { EquityCurveCard } from '@/components/stats/equity-curve'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { ErrorAlert } from '@/components/ui/alert'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { pnlClass } from '@/lib/pnl-class'
import { backtestStrings as s } from '@/features/backtest/strings'
import { overrideLabel } from '@/features/backtest/utils/overrides'
import { chosenLabel, pnlWithDaily } from '@/features/backtest/utils/walk-forward'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import type { WalkForwardResult, WalkWindow } from '@/types/api'

function dates(from: string, to: string): string {
  return from === to ? from : `${from} – ${to}`
}

function Pnl({ figures }: { figures: WalkWindow['in_sample'] }) {
  if (!figures) return <>—</>
  return (
    <span className={pnlClass(figures.total_pnl)}>
      {pnlWithDaily(figures.total_pnl, figures.pnl_per_day)}
    </span>
  )
}

/**
 * A finished walk-forward: a warning when the out-of-sample results are far below the in-sample
 * ones (over all windows, and which windows), the windows as a table (dates, the chosen
 * combination, in-sample and out-of-sample pnl, each window's warning), and the chained
 * out-of-sample equity curve.
 */
export function WalkForwardResultView({ result }: { result: WalkForwardResult }) {
  const walk = result.walk_forward
  const timeZone = useUserTimeZone()
  const farBelow = walk.windows.flatMap((window, index) => (window.far_below ? [index + 1] : []))
  const trainTotal = walk.train_days * walk.windows.length
  const testTotal = walk.test_days * walk.windows.length
  return (
    <div className="space-y-4">
      <Card role="region" aria-label={s.walkForward}>
        <CardHeader>
          <CardTitle>
            {s.walkForwardOver(
              walk.axes.map((axis) => overrideLabel(axis.field)),
              walk.train_days,
              walk.test_days,
            )}
          </CardTitle>
          <CardDescription>{s.walkForwardBestBy(s.metrics[walk.metric] ?? walk.metric)}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          {walk.far_below || farBelow.length > 0 ? (
            <ErrorAlert>
              {walk.far_below ? <p>{s.walkForwardWarning}</p> : null}
              {farBelow.length > 0 ? <p>{s.walkForwardWindowsWarning(farBelow)}</p> : null}
            </ErrorAlert>
          ) : null}
          {walk.unused_from && walk.unused_to ? (
            <p className="text-sm text-muted-foreground">
              {s.walkForwardUnused(walk.unused_from, walk.unused_to)}
            </p>
          ) : null}
          {/* Wider than a side-by-side column: the table's own scroll area, named and focusable. */}
          <Table phoneCards aria-label={s.walkForwardTable} scrollLabel={s.walkForwardTable}>
            <TableHeader>
              <TableRow>
                <TableHead>{s.walkForwardWindow}</TableHead>
                <TableHead>{s.walkForwardTraining}</TableHead>
                <TableHead>{s.walkForwardTest}</TableHead>
                <TableHead>{s.walkForwardChosen}</TableHead>
                <TableHead className="text-right">{s.walkForwardInSample}</TableHead>
                <TableHead className="text-right">{s.walkForwardOutOfSample}</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {walk.windows.map((window, index) => (
                <TableRow key={window.test_from} data-far-below={window.far_below || undefined}>
                  <TableCell className="tabular-nums">{index + 1}</TableCell>
                  <TableCell className="whitespace-nowrap tabular-nums">
                    {dates(window.train_from, window.train_to)}
                  </TableCell>
                  <TableCell className="whitespace-nowrap tabular-nums">
                    {dates(window.test_from, window.test_to)}
                  </TableCell>
                  <TableCell>{window.error ?? chosenLabel(walk.axes, window.chosen)}</TableCell>
                  <TableCell className="text-right whitespace-nowrap tabular-nums">
                    <Pnl figures={window.in_sample} />
                  </TableCell>
                  <TableCell className="text-right whitespace-nowrap tabular-nums">
                    <Pnl figures={window.out_of_sample} />
                    {window.far_below ? (
                      <span className="block text-xs text-destructive">{s.walkForwardFarBelow}</span>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
            <tfoot className="border-t font-medium">
              <TableRow>
                <TableCell colSpan={4}>{s.walkForwardTotal}</TableCell>
                <TableCell
                  className={`text-right whitespace-nowrap tabular-nums ${pnlClass(walk.in_sample_pnl)}`}
                >
                  {pnlWithDaily(walk.in_sample_pnl, walk.in_sample_pnl / Math.max(trainTotal, 1))}
                </TableCell>
                <TableCell
                  className={`text-right whitespace-nowrap tabular-nums ${pnlClass(walk.out_of_sample_pnl)}`}
                >
                  {pnlWithDaily(walk.out_of_sample_pnl, walk.out_of_sample_pnl / Math.max(testTotal, 1))}
                </TableCell>
              </TableRow>
            </tfoot>
          </Table>
        </CardContent>
      </Card>
      <EquityCurveCard equity={walk.equity} timeZone={timeZone} title={s.walkForwardEquity} />
    </div>
  )
}
