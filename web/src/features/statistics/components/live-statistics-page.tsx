import { PageHeader } from '@/components/page-header'
import { statisticsStrings } from '@/features/statistics/strings'

/** /statistics. The period select and the cards come with their own issue. */
export function LiveStatisticsPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={statisticsStrings.title} />
    </div>
  )
}
