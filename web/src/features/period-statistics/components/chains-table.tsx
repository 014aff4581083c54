import { QueryState } from '@/components/query-state'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { pnlClass } from '@/lib/pnl-class'
import { formatZonedDateTime } from '@/lib/user-time'
import type { Chain } from '@/types/api'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { useMartingaleChains } from '@/features/period-statistics/api/get-martingale-chains'
import type { StatsFilter } from '@/features/period-statistics/api/get-stats'
import { statsStrings as s } from '@/features/period-statistics/strings'
import { sortChains, tradePnl } from '@/features/period-statistics/utils/chains-format'
import { formatNumber } from '@/lib/format-number'

function ChainsBody({ filter }: { filter: StatsFilter }) {
  return (
    <QueryState
      query={useMartingaleChains(filter)}
      strings={{ loading: s.loading, loadFailed: s.chainsLoadFailed, retry: s.retry, empty: s.noChainData }}
      isEmpty={(data) => data.chains.length === 0}
    >
      {(data) => <ChainRows chains={data.chains} />}
    </QueryState>
  )
}

function ChainRows({ chains }: { chains: Chain[] }) {
  const timeZone = useUserTimeZone()
  return (
    <Table phoneCards aria-label={s.chainsTitle}>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead scope="col">{s.chainId}</TableHead>
          <TableHead scope="col">{s.chainStatus}</TableHead>
          <TableHead scope="col">{s.chainTradesCount}</TableHead>
          <TableHead scope="col">{s.chainTotalPnl}</TableHead>
          <TableHead scope="col">{s.chainTrades}</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {sortChains(chains).map((chain) => (
          <TableRow key={chain.chain_id}>
            <TableCell className="align-top tabular-nums">{chain.chain_id}</TableCell>
            <TableCell className="align-top">
              {chain.status === 'OPEN' ? s.chainOpen : s.chainClosed}
            </TableCell>
            <TableCell className="align-top tabular-nums">{chain.trades_count}</TableCell>
            <TableCell className="align-top tabular-nums">{formatNumber(chain.total_pnl, 4)}</TableCell>
            <TableCell className="align-top">
              <ul className="space-y-1 text-xs tabular-nums">
                {chain.trades.map((trade) => (
                  <li key={trade.id} className="flex flex-wrap gap-3">
                    <span>{trade.id}</span>
                    <span className={pnlClass(trade.pnl)}>{tradePnl(trade)}</span>
                    <time dateTime={trade.created_at} className="text-muted-foreground">
                      {formatZonedDateTime(trade.created_at, timeZone)}
                    </time>
                  </li>
                ))}
              </ul>
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  )
}

/** The martingale chains of the period, by their first trade's creation time. */
export function ChainsTable({ filter }: { filter: StatsFilter }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>{s.chainsTitle}</CardTitle>
      </CardHeader>
      <CardContent className="p-2 sm:p-4">
        <ChainsBody filter={filter} />
      </CardContent>
    </Card>
  )
}
