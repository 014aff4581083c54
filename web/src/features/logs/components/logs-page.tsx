import { PageHeader } from '@/components/page-header'
import { logsStrings } from '@/features/logs/strings'

/** /logs. The level filter and the live table come with their own issue. */
export function LogsPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={logsStrings.title} />
    </div>
  )
}
