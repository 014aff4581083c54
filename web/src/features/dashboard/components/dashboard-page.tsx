import type { ReactNode } from 'react'
import { PageHeader } from '@/components/page-header'
import { BotStatusCard } from '@/features/dashboard/components/bot-status-card'
import { ConnectionBadge } from '@/features/dashboard/components/connection-badge'
import { OpenPositionsCard } from '@/features/dashboard/components/open-positions-card'
import { dashboardStrings } from '@/features/dashboard/strings'

type DashboardPageProps = {
  /**
   * The Trading Signals card limited to 5 entries. It belongs to the signals feature, and features
   * do not use each other's components, so the router (src/app) passes it in.
   */
  signals?: ReactNode
}

/**
 * /dashboard: heading with the live connection badge, the Trading Signals card and Bot Status, and
 * below them the Open Positions card (not in the spec) across the grid.
 */
export function DashboardPage({ signals }: DashboardPageProps) {
  return (
    <div className="space-y-6">
      <PageHeader
        title={dashboardStrings.title}
        description={dashboardStrings.subtitle}
        actions={<ConnectionBadge />}
      />
      <div className="grid items-start gap-6 lg:grid-cols-2">
        {signals}
        <BotStatusCard />
        <OpenPositionsCard className="lg:col-span-2" />
      </div>
    </div>
  )
}
