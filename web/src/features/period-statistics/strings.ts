import type { StatsPeriod } from '@/features/period-statistics/api/get-stats'

/** UI strings of the statistics page with the period filter, verbatim from the spec (section 2). */
export const statsStrings = {
  title: 'Statistics',
  /** Not in the spec: the badge's tooltip beside the title. */
  accountHint: 'Figures of the account the bot trades on now',
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
  equityCurve: 'Equity curve',
  equityLast: 'Cumulative PnL',
  equityCurveImage: (closes: number) =>
    `Cumulative PnL of the period over ${String(closes)} ${closes === 1 ? 'point' : 'points'}`,
  heatmap: 'PnL by weekday and hour',
  heatmapDescription: 'Close times in your time zone. Green: profit, red: loss; stronger with the amount.',
  heatmapCell: (weekday: string, hour: string, pnl: string, trades: number) =>
    `${weekday} ${hour}: PnL ${pnl}, ${String(trades)} ${trades === 1 ? 'trade' : 'trades'}`,
  heatmapEmptyCell: (weekday: string, hour: string) => `${weekday} ${hour}: no trades`,
  success: 'success',
  fail: 'fail',
  loadFailed: 'Failed to load statistics',
  chainsLoadFailed: 'Failed to load chains',
  retry: 'Retry',
} as const
