import type { ReactNode } from 'react'
import { PageHeader } from '@/components/page-header'
import { ErrorState, LoadingState } from '@/components/query-state'
import { useDashboard } from '@/features/dashboard/api/get-dashboard'
import { BalanceCard } from '@/features/dashboard/components/balance-card'
import { TWO_COLUMNS_QUERY, useMediaQuery } from '@/lib/use-media-query'
import { BotStatusCard } from '@/features/dashboard/components/bot-status-card'
import { ConnectionBadge } from '@/features/dashboard/components/connection-badge'
import { OpenPositionsCard } from '@/features/dashboard/components/open-positions-card'
import { SummaryCards } from '@/features/dashboard/components/summary-cards'
import { dashboardStrings } from '@/features/dashboard/strings'

type DashboardPageProps = {
  /**
   * The Trading Signals card limited to 5 entries. It belongs to the signals feature, and features
   * do not use each other's components, so the router (src/app) passes it in.
   */
  signals?: ReactNode
}

/**
 * /dashboard (spec section 2): heading with the live connection badge; the four cards (Total
 * Balance, 24h Volume, Open Trades, Total Trades) and the Balance card from GET /api/dashboard/,
 * a spinner while it loads and "Error: {message}" if it fails; the Trading Signals card and Bot
 * Status (each with its own query; first of all in one column); below them the Open Positions card
 * (not in the spec).
 */
export function DashboardPage({ signals }: DashboardPageProps) {
  const dashboard = useDashboard()
  // In one column (phones, narrow windows) Bot Status comes first, above the four cards: it says
  // whether the bot trades at all (issue 33 point 6). In two columns it keeps its place.
  const twoColumns = useMediaQuery(TWO_COLUMNS_QUERY)

  return (
    <div className="space-y-6">
      <PageHeader
        title={dashboardStrings.title}
        description={dashboardStrings.subtitle}
        actions={<ConnectionBadge />}
      />
      {twoColumns ? null : <BotStatusCard />}
      {dashboard.isPending ? (
        <LoadingState label={dashboardStrings.loading} labelHidden className="py-10" />
      ) : dashboard.isError ? (
        <ErrorState title={dashboardStrings.loadError(dashboard.error.message)} />
      ) : (
        <SummaryCards dashboard={dashboard.data} />
      )}
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-2">
        {signals}
        <div className="space-y-6">
          {twoColumns ? <BotStatusCard /> : null}
          {dashboard.data ? <BalanceCard balance={dashboard.data.balance} /> : null}
        </div>
        <OpenPositionsCard className="lg:col-span-2" />
      </div>
    </div>
  )
}
