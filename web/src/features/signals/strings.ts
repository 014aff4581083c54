/** UI strings of the signals feature, verbatim from the spec (section 2). */
export const signalsStrings = {
  title: 'Trading Signals',
  /** Spec: 'Title "Trading Signals", plus "(Last N)" when limited'. */
  lastN: (limit: number) => `(Last ${limit})`,
  symbol: 'Symbol',
  signal: 'Signal',
  empty: 'No signals available',
  neutral: 'NEUTRAL',

  // Not worded by the spec.
  description: "Every symbol's latest signal, updated live.",
  loading: 'Loading...',
  loadFailed: 'Failed to load signals',
  retry: 'Retry',
  viewAll: 'View all',
} as const
