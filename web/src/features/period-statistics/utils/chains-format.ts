import type { Chain, ChainTrade } from '@/features/period-statistics/api/get-martingale-chains'
import { formatNumber } from '@/lib/format-number'

function firstCreated(chain: Chain): number {
  const times = chain.trades
    .map((trade) => new Date(trade.created_at).getTime())
    .filter((t) => !Number.isNaN(t))
  return times.length > 0 ? Math.min(...times) : Number.POSITIVE_INFINITY
}

/** Chains sorted by their first trade's creation time, ascending (chains without trades last). */
export function sortChains(chains: readonly Chain[]): Chain[] {
  return [...chains].sort((a, b) => {
    const [x, y] = [firstCreated(a), firstCreated(b)]
    return x === y ? 0 : x < y ? -1 : 1
  })
}

/** A chain trade's pnl with 4 decimals, "-" when null. */
export function tradePnl(trade: ChainTrade): string {
  return trade.pnl === null ? '-' : formatNumber(trade.pnl, 4)
}
