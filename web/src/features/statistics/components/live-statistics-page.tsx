import { useId, useState } from 'react'
import { PageHeader } from '@/components/page-header'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { Spinner } from '@/components/ui/spinner'
import { formatMoney } from '@/features/statistics/utils/format-money'
import { LIVE_PERIODS, statisticsStrings as s, type LivePeriod } from '@/features/statistics/strings'
import { useLiveStatistics } from '@/lib/live/live-cache'
import { cn } from '@/lib/utils'

function isPeriod(value: string): value is LivePeriod {
  return (LIVE_PERIODS as readonly string[]).includes(value)
}

function StatCard({ label, value, className }: { label: string; value: string; className?: string }) {
  return (
    <Card role="group" aria-label={label} className="gap-2 py-4">
      <CardHeader className="px-4">
        <CardTitle className="text-sm font-medium text-muted-foreground">{label}</CardTitle>
      </CardHeader>
      <CardContent className={cn('px-4 text-2xl font-semibold tabular-nums', className)}>{value}</CardContent>
    </Card>
  )
}

function profitClass(value: number): string | undefined {
  if (value === 0) return undefined
  return value > 0 ? 'text-success' : 'text-destructive'
}

/**
 * /statistics (spec section 2): the period select (24h, 7d, 30d, all time; default 24h; the choice
 * changes no request) and the cards of the latest `statistics` message of the live feed, sent
 * right after authenticating. "Loading..." until it arrives.
 */
export function LiveStatisticsPage() {
  const id = useId()
  const [period, setPeriod] = useState<LivePeriod>('24h')
  const stats = useLiveStatistics()

  return (
    <div className="space-y-6">
      <PageHeader
        title={s.title}
        actions={
          <div className="flex items-center gap-3">
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
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
          <StatCard label={s.totalTrades} value={String(stats.total_trades)} />
          <StatCard label={s.winRate} value={`${stats.win_rate.toFixed(1)}%`} />
          <StatCard
            label={s.totalProfit}
            value={formatMoney(stats.total_profit)}
            className={profitClass(stats.total_profit)}
          />
          <StatCard
            label={s.averageProfit}
            value={formatMoney(stats.average_profit)}
            className={profitClass(stats.average_profit)}
          />
          <StatCard label={s.winningTrades} value={String(stats.winning_trades)} />
          <StatCard label={s.losingTrades} value={String(stats.losing_trades)} />
          <StatCard label={s.maxDrawdown} value={`${stats.max_drawdown.toFixed(2)}%`} />
        </div>
      ) : (
        <div role="status" className="flex items-center justify-center gap-3 py-16 text-muted-foreground">
          <Spinner className="text-primary" />
          <span>{s.loading}</span>
        </div>
      )}
    </div>
  )
}
