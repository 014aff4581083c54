import type { StatsPeriod } from '@/features/stats/api/get-stats'

/** UI strings of the statistics page with the period filter, verbatim from the spec (section 2). */
export const statsStrings = {
  title: 'Statistics',
  periodOptions: {
    all: 'All',
    '24h': 'Last 24 hours',
    '3d': 'Last 3 days',
    '7d': 'Last 7 days',
    month: 'This month',
    custom: 'Custom',
  } satisfies Record<StatsPeriod, string>,
  totalTrades: 'Total trades',
  winningTrades: 'Winning trades',
  losingTrades: 'Losing trades',
  winRate: 'Win rate',
  totalPnl: 'Total PnL',
  averagePnl: 'Average PnL',
  bestWeekdays: 'Best weekdays',
  worstWeekdays: 'Worst weekdays',
  bestHours: 'Best hours',
  worstHours: 'Worst hours',
  /** Monday to Sunday; index = the API weekday (1 = Sunday) shifted by 2 modulo 7. */
  weekdays: ['Понедельник', 'Вторник', 'Среда', 'Четверг', 'Пятница', 'Суббота', 'Воскресенье'],
  noData: 'No data',
  loading: 'Loading...',
  noStatistics: 'No statistics available for this period.',
  chainId: 'ID цепочки',
  chainStatus: 'Статус',
  chainTradesCount: 'Количество сделок',
  chainTotalPnl: 'Общий PnL',
  chainTrades: 'Сделки',
  chainOpen: 'Открыта',
  chainClosed: 'Закрыта',
  noChainData: 'No chain data',

  // Not worded by the spec.
  periodLabel: 'Period',
  dateFrom: 'From',
  dateTo: 'To',
  chainsTitle: 'Martingale chains',
  equityCurve: 'Cumulative PnL of chain trades',
  success: 'success',
  fail: 'fail',
  loadFailed: 'Failed to load statistics',
  chainsLoadFailed: 'Failed to load chains',
  retry: 'Retry',
} as const
