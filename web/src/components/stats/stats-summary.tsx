import { StatTile } from '@/components/stat-tile'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { pnlClass } from '@/lib/pnl-class'
import { liveSection } from '@/i18n/catalogue'
import type { StatsResponse } from '@/types/api'
import {
  bestAndWorst,
  hourLabel,
  percentOf,
  weekdayLabel,
  type StatsBucket,
} from '@/components/stats/stats-format'
import { formatCount, formatNumber, formatPercent } from '@/lib/format-number'

const s = liveSection('periodStatistics')

/** Spec section 9: 2 weekdays and 3 hours in the best and worst lists. */
const WEEKDAYS_LISTED = 2
const HOURS_LISTED = 3

type ListRow = StatsBucket & { label: string }

function BucketList({ title, rows }: { title: string; rows: ListRow[] }) {
  return (
    <Card className="gap-3 py-4">
      <CardHeader className="px-4">
        <CardTitle className="text-base">{title}</CardTitle>
      </CardHeader>
      <CardContent className="px-4">
        {rows.length === 0 ? (
          <p className="text-sm text-muted-foreground">{s.noData}</p>
        ) : (
          <ul aria-label={title} className="space-y-2">
            {rows.map((row) => (
              <li key={row.label} className="flex flex-wrap items-baseline justify-between gap-2 text-sm">
                <span className="font-medium">{row.label}</span>
                <span className="flex gap-3 tabular-nums">
                  <span className={pnlClass(row.pnl)}>{formatNumber(row.pnl, 2)}</span>
                  <span className="text-muted-foreground">
                    {percentOf(row.success, row.total)}% {s.success}
                  </span>
                  <span className="text-muted-foreground">
                    {percentOf(row.fail, row.total)}% {s.fail}
                  </span>
                </span>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  )
}

/** The tiles and the best/worst lists of a Stats answer (the /stats page, a backtest's result). */
export function StatsFigures({ data }: { data: StatsResponse }) {
  const weekdays = bestAndWorst(
    data.weekday.map((row) => ({ ...row, label: weekdayLabel(row.weekday) })),
    WEEKDAYS_LISTED,
  )
  const hours = bestAndWorst(
    data.hour.map((row) => ({ ...row, label: hourLabel(row.hour) })),
    HOURS_LISTED,
  )

  return (
    <div className="space-y-4">
      <div className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6">
        <StatTile label={s.totalTrades} value={formatCount(data.total_trades)} />
        <StatTile label={s.winningTrades} value={formatCount(data.win_trades)} />
        <StatTile label={s.losingTrades} value={formatCount(data.lose_trades)} />
        <StatTile label={s.winRate} value={formatPercent(data.win_rate, 1)} />
        <StatTile
          label={s.totalPnl}
          value={formatNumber(data.total_pnl, 2)}
          valueClassName={pnlClass(data.total_pnl)}
        />
        <StatTile
          label={s.averagePnl}
          value={formatNumber(data.avg_pnl, 2)}
          valueClassName={pnlClass(data.avg_pnl)}
        />
      </div>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <BucketList title={s.bestWeekdays} rows={weekdays.best} />
        <BucketList title={s.worstWeekdays} rows={weekdays.worst} />
        <BucketList title={s.bestHours} rows={hours.best} />
        <BucketList title={s.worstHours} rows={hours.worst} />
      </div>
    </div>
  )
}
