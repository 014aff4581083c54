import { TrendingDown, TrendingUp } from 'lucide-react'
import { StatTile } from '@/components/stat-tile'
import { formatMoney } from '@/lib/format-money'
import { cn } from '@/lib/utils'
import type { DashboardResponse } from '@/features/dashboard/api/get-dashboard'
import { dashboardStrings as s } from '@/features/dashboard/strings'
import { formatChange, percentChange } from '@/features/dashboard/utils/percent-change'
import { formatCount } from '@/lib/format-number'

/**
 * The change against 24 hours ago: "+25.0%" with an up trend (green) or "-12.5%" with a down trend
 * (red); "—" and no trend when the earlier figure is missing or 0.
 */
function ChangeLine({ now, before }: { now: number; before: number | null }) {
  const change = percentChange(now, before)
  if (!change) {
    return (
      <p className="text-xs text-muted-foreground" data-testid="change">
        {s.noChange} {s.changeSuffix}
      </p>
    )
  }
  const up = change.trend === 'up'
  const Icon = up ? TrendingUp : TrendingDown
  return (
    <p
      className={cn('flex items-center gap-1 text-xs', up ? 'text-success' : 'text-destructive')}
      data-testid="change"
      data-trend={change.trend}
    >
      <Icon role="img" aria-label={up ? s.trendUp : s.trendDown} className="size-4" />
      <span className="tabular-nums">{formatChange(change)}</span>
      <span className="text-muted-foreground">{s.changeSuffix}</span>
    </p>
  )
}

/** Total Balance, 24h Volume, Open Trades and Total Trades, each against 24 hours ago. */
export function SummaryCards({ dashboard }: { dashboard: DashboardResponse }) {
  const { balance, summary } = dashboard
  return (
    <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <StatTile label={s.totalBalance} value={formatMoney(balance.totalEquity)}>
        <ChangeLine now={balance.totalEquity} before={dashboard.balance_24h_ago} />
      </StatTile>
      <StatTile label={s.volume24h} value={formatMoney(dashboard.volume24h)}>
        <ChangeLine now={dashboard.volume24h} before={dashboard.volume24h_ago} />
      </StatTile>
      <StatTile label={s.openTrades} value={formatCount(summary.open_trades)}>
        <ChangeLine now={summary.open_trades} before={summary.open_trades_24h_ago} />
      </StatTile>
      <StatTile label={s.totalTrades} value={formatCount(summary.total_trades)}>
        <ChangeLine now={summary.total_trades} before={summary.total_trades_24h_ago} />
      </StatTile>
    </div>
  )
}
