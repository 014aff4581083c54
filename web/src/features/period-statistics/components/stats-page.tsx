import { useId, useState } from 'react'
import { Link } from 'react-router'
import { PageHeader } from '@/components/page-header'
import { AccountBadge } from '@/components/account-badge'
import { Button } from '@/components/ui/button'
import { backtestStrings } from '@/features/backtest/strings'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { useBotStatus } from '@/features/dashboard/api/get-bot-status'
import { STATS_PERIODS, type StatsFilter, type StatsPeriod } from '@/features/period-statistics/api/get-stats'
import { ChainsTable } from '@/features/period-statistics/components/chains-table'
import { EquityCurve, PnlHeatmap, StatsSummary } from '@/features/period-statistics/components/period-figures'
import { statsStrings as s } from '@/features/period-statistics/strings'

function isPeriod(value: string): value is StatsPeriod {
  return (STATS_PERIODS as readonly string[]).includes(value)
}

/**
 * /stats (spec section 2): the period selector (default This month; Custom shows two dates, sent
 * only when both are set), the tiles, the best and worst weekdays and hours, and the chains table;
 * not in the spec, the period's equity curve and its weekday x hour pnl heatmap, and the account the
 * figures are of (they follow the account the bot trades on now).
 */
export function StatsPage() {
  const id = useId()
  const [filter, setFilter] = useState<StatsFilter>({ period: 'month', dateFrom: '', dateTo: '' })

  return (
    <div className="space-y-6">
      <PageHeader
        title={s.title}
        actions={
          <div className="flex flex-wrap items-center gap-3">
            <AccountBadge venue={useBotStatus().data?.venue} />
            <Button asChild variant="outline" size="sm">
              <Link to="/backtest">{backtestStrings.openFromStats}</Link>
            </Button>
            <Label htmlFor={`${id}-period`} className="text-muted-foreground">
              {s.periodLabel}
            </Label>
            <NativeSelect
              id={`${id}-period`}
              className="w-44"
              value={filter.period}
              onChange={(event) => {
                const period = event.target.value
                if (isPeriod(period)) setFilter((old) => ({ ...old, period }))
              }}
            >
              {STATS_PERIODS.map((value) => (
                <option key={value} value={value}>
                  {s.periodOptions[value]}
                </option>
              ))}
            </NativeSelect>
            {filter.period === 'custom' ? (
              <>
                <Label htmlFor={`${id}-from`} className="text-muted-foreground">
                  {s.dateFrom}
                </Label>
                <Input
                  id={`${id}-from`}
                  type="date"
                  className="w-40"
                  value={filter.dateFrom}
                  onChange={(event) => {
                    const dateFrom = event.target.value
                    setFilter((old) => ({ ...old, dateFrom }))
                  }}
                />
                <Label htmlFor={`${id}-to`} className="text-muted-foreground">
                  {s.dateTo}
                </Label>
                <Input
                  id={`${id}-to`}
                  type="date"
                  className="w-40"
                  value={filter.dateTo}
                  onChange={(event) => {
                    const dateTo = event.target.value
                    setFilter((old) => ({ ...old, dateTo }))
                  }}
                />
              </>
            ) : null}
          </div>
        }
      />
      <StatsSummary filter={filter} />
      <EquityCurve filter={filter} />
      <PnlHeatmap filter={filter} />
      <ChainsTable filter={filter} />
    </div>
  )
}
