import { PageHeader } from '@/components/page-header'
import { BotStatusCard } from '@/features/dashboard/components/bot-status-card'
import { dashboardStrings } from '@/features/dashboard/strings'

/** /dashboard. The bot status card; balance, volume, trades and signals come with their own issues. */
export function DashboardPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={dashboardStrings.title} description={dashboardStrings.subtitle} />
      <div className="grid gap-6 lg:grid-cols-2">
        <BotStatusCard />
      </div>
    </div>
  )
}
