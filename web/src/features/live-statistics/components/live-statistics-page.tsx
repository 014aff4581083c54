import { useId, useState } from 'react'
import { PageHeader } from '@/components/page-header'
import { AccountBadge } from '@/components/account-badge'
import { ErrorState, LoadingState } from '@/components/query-state'
import { StatTile } from '@/components/stat-tile'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { formatMoney } from '@/lib/format-money'
import { pnlClass } from '@/lib/pnl-class'
import { useBotStatus } from '@/features/dashboard/api/get-bot-status'
import { useStatistics } from '@/features/live-statistics/api/get-statistics'
import { LIVE_PERIODS, statisticsStrings as s, type LivePeriod } from '@/features/live-statistics/strings'
import { formatCount, formatPercent } from '@/lib/format-number'

function isPeriod(value: string): value is LivePeriod {
  return (LIVE_PERIODS as readonly string[]).includes(value)
}

/**
 * /statistics (spec section 2): the period select (24h, 7d, 30d, all time; default 24h) and the
 * seven cards of GET /api/statistics/?period=…. Every live `statistics` message (all time) is the
 * "all time" figures at once and makes the other periods read again (app/live-dispatch.ts). Not in
 * the spec: the account the figures are of (they follow the account the bot trades on now).
 */
export function LiveStatisticsPage() {
  const id = useId()
  const [period, setPeriod] = useState<LivePeriod>('24h')
  const statistics = useStatistics(period)
  const stats = statistics.data
  const venue = useBotStatus().data?.venue

  return (
    <div className="space-y-6">
      <PageHeader
        title={s.title}
        actions={
          <div className="flex flex-wrap items-center gap-3">
            <AccountBadge venue={venue} />
            <Label htmlFor={`${id}-period`} className="text-muted-foreground">
              {s.periodLabel}
            </Label>
            <NativeSelect
              id={`${id}-period`}
              className="w-36"
              value={period}
              onChange={(event) => {
                if (isPeriod(event.target.value)) setPeriod(event.target.value)
              }}
            >
              {LIVE_PERIODS.map((value) => (
                <option key={value} value={value}>
                  {s.periodOptions[value]}
                </option>
              ))}
            </NativeSelect>
          </div>
        }
      />
      {stats ? (
        <div
          aria-busy={statistics.isFetching}
          className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4"
        >
          <StatTile label={s.totalTrades} value={formatCount(stats.total_trades)} />
          <StatTile label={s.winRate} value={formatPercent(stats.win_rate, 1)} />
          <StatTile
            label={s.totalProfit}
            value={formatMoney(stats.total_profit)}
            valueClassName={pnlClass(stats.total_profit)}
          />
          <StatTile
            label={s.averageProfit}
            value={formatMoney(stats.average_profit)}
            valueClassName={pnlClass(stats.average_profit)}
          />
          <StatTile label={s.winningTrades} value={formatCount(stats.winning_trades)} />
          <StatTile label={s.losingTrades} value={formatCount(stats.losing_trades)} />
          <StatTile label={s.maxDrawdown} value={formatPercent(stats.max_drawdown, 2)} />
        </div>
      ) : statistics.isError ? (
        <ErrorState title={s.loadFailed} message={statistics.error.message} />
      ) : (
        <LoadingState label={s.loading} className="py-16" />
      )}
    </div>
  )
}
