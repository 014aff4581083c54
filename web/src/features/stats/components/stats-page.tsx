import { PageHeader } from '@/components/page-header'
import { statsStrings } from '@/features/stats/strings'

/** /stats. The period filter, tiles, lists and chains table come with their own issue. */
export function StatsPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={statsStrings.title} />
    </div>
  )
}
