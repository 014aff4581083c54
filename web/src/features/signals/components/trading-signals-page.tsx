import { PageHeader } from '@/components/page-header'
import { signalsStrings } from '@/features/signals/strings'

/** /trading-signals. The signals table comes with its own issue. */
export function TradingSignalsPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={signalsStrings.title} />
    </div>
  )
}
