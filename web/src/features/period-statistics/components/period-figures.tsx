import { QueryState } from '@/components/query-state'
import { EquityCurveCard } from '@/components/stats/equity-curve'
import { PnlHeatmapCard } from '@/components/stats/pnl-heatmap'
import { StatsFigures } from '@/components/stats/stats-summary'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { useStats, type StatsFilter } from '@/features/period-statistics/api/get-stats'
import { statsStrings as s } from '@/features/period-statistics/strings'

/** The tiles and the best/worst weekday and hour lists of one period, or its loading, failure or "no statistics". */
export function StatsSummary({ filter }: { filter: StatsFilter }) {
  return (
    <QueryState
      query={useStats(filter)}
      strings={{ loading: s.loading, loadFailed: s.loadFailed, retry: s.retry, empty: s.noStatistics }}
      isEmpty={(data) => data.total_trades === 0}
    >
      {(data) => <StatsFigures data={data} />}
    </QueryState>
  )
}

/*
 * Not in the spec: the period's equity curve and its weekday x hour pnl heatmap. Nothing while the
 * period loads, fails or has no trades (StatsSummary shows those states).
 */

export function EquityCurve({ filter }: { filter: StatsFilter }) {
  const stats = useStats(filter)
  const timeZone = useUserTimeZone()
  if (!stats.data || stats.data.total_trades === 0) return null
  return <EquityCurveCard equity={stats.data.equity} timeZone={timeZone} />
}

export function PnlHeatmap({ filter }: { filter: StatsFilter }) {
  const stats = useStats(filter)
  if (!stats.data || stats.data.total_trades === 0) return null
  return <PnlHeatmapCard cells={stats.data.heatmap} />
}
