import { PageHeader } from '@/components/page-header'
import { SignalsTable } from '@/features/signals/components/signals-table'
import { signalsStrings } from '@/features/signals/strings'

/** /trading-signals: the whole live signals list (at most 50 entries). */
export function TradingSignalsPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={signalsStrings.title} />
      <div className="max-w-3xl">
        <SignalsTable />
      </div>
    </div>
  )
}
