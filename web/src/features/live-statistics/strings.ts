/** The periods of the live statistics select (spec section 2), sent as GET /api/statistics/?period=…. */
export type LivePeriod = '24h' | '7d' | '30d' | 'all'

export const LIVE_PERIODS = ['24h', '7d', '30d', 'all'] as const satisfies readonly LivePeriod[]

/** UI strings of the live statistics page, verbatim from the spec (section 2). */
export const statisticsStrings = {
  title: 'Live Trading Statistics',
  periodOptions: {
    '24h': '24h',
    '7d': '7d',
    '30d': '30d',
    all: 'all time',
  } satisfies Record<LivePeriod, string>,
  totalTrades: 'Total Trades',
  winRate: 'Win Rate %',
  totalProfit: 'Total Profit $',
  averageProfit: 'Average Profit $',
  winningTrades: 'Winning Trades',
  losingTrades: 'Losing Trades',
  maxDrawdown: 'Max Drawdown %',

  // Not worded by the spec.
  periodLabel: 'Period',
  loading: 'Loading...',
  loadFailed: 'Failed to load statistics',
} as const
