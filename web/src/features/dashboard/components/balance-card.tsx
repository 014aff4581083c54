import { Wallet } from 'lucide-react'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { formatMoney } from '@/lib/format-money'
import type { DashboardResponse } from '@/features/dashboard/api/get-dashboard'
import { dashboardStrings as s } from '@/features/dashboard/strings'

/**
 * The Balance card: Equity, Available and Margin of the dashboard answer, which the live feed's
 * `balance` messages keep current (features/dashboard/api/get-dashboard.ts).
 */
export function BalanceCard({ balance }: { balance: DashboardResponse['balance'] }) {
  const rows = [
    { label: s.equity, value: balance.totalEquity },
    { label: s.available, value: balance.availableBalance },
    { label: s.margin, value: balance.marginBalance },
  ]
  return (
    <Card role="region" aria-label={s.balance}>
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <Wallet aria-hidden="true" className="size-4 text-muted-foreground" />
          <h2>{s.balance}</h2>
        </CardTitle>
      </CardHeader>
      <CardContent>
        <dl className="divide-y">
          {rows.map((row) => (
            <div key={row.label} className="flex items-baseline justify-between gap-4 py-2.5">
              <dt className="text-sm text-muted-foreground">{row.label}</dt>
              <dd className="text-lg font-semibold tabular-nums">{formatMoney(row.value)}</dd>
            </div>
          ))}
        </dl>
      </CardContent>
    </Card>
  )
}
