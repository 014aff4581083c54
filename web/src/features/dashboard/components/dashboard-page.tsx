import { PageHeader } from '@/components/page-header'
import { dashboardStrings } from '@/features/dashboard/strings'

/** /dashboard. Cards, signals, bot status and balance come with their own issues. */
export function DashboardPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={dashboardStrings.title} description={dashboardStrings.subtitle} />
    </div>
  )
}
