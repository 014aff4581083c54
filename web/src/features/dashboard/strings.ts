/**
 * UI strings of the dashboard, verbatim from the spec (sections 2 and 8). The Open Positions card is
 * not in the spec; its strings are marked below.
 */
export const dashboardStrings = {
  title: 'Dashboard',
  subtitle: 'Welcome back to your trading dashboard',
  /** The live connection badge on the heading. */
  connected: 'Connected',
  disconnected: 'Disconnected',
  /** The four cards, each with its change against 24 hours ago. */
  totalBalance: 'Total Balance',
  volume24h: '24h Volume',
  openTrades: 'Open Trades',
  totalTrades: 'Total Trades',
  /** The Balance card. */
  balance: 'Balance',
  equity: 'Equity',
  available: 'Available',
  margin: 'Margin',
  /** Spec section 8: the dashboard's load error. */
  loadError: (message: string) => `Error: ${message}`,

  // Not worded by the spec: the change line of the four cards and the spinner's accessible name.
  /** Shown instead of a percent when the figure of 24 hours ago is missing or 0. */
  noChange: '—',
  changeSuffix: 'vs 24h ago',
  trendUp: 'Up',
  trendDown: 'Down',
  loading: 'Loading dashboard',

  botStatus: {
    title: 'Bot Status',
    description: 'Current trading bot status and controls',
    running: 'Running',
    stopped: 'Stopped',
    signalsActive: 'Signals Active',
    signalsInactive: 'Signals Inactive',
    startBot: 'Start Bot',
    stopBot: 'Stop Bot',
    startSignals: 'Start Signals',
    stopSignals: 'Stop Signals',
    /** The two radio options for bot mode. */
    modeLabel: 'Bot mode',
    classic: 'Use classic bot',
    martingale: 'Use martingale',
    loading: 'Loading...',

    /** Toasts (spec section 8). */
    botStarted: 'Bot started',
    botStopped: 'Bot stopped',
    botToastText: 'Trading bot has been started or stopped successfully',
    signalsStarted: 'Signals started',
    signalsStopped: 'Signals stopped',
    signalsToastText: 'Signal fetching has been started or stopped successfully',
    controlFailed: 'Failed to control bot',
    fetchFailed: 'Failed to fetch bot settings',
    noSettings: 'No settings found',
    modeSaved: 'Settings saved successfully',
    modeSaveFailed: 'Failed to save settings',

    // Not worded by the spec: where the bot trades, and the confirmation before real money.
    /** Before the venue badge ("Paper", "Bybit Demo", "Bybit Real"; src/lib/venue.ts). */
    venueLabel: 'Trades on',
    /** Several servers on one database: the one running the bot stopped renewing its lease. */
    ownerSilent: (instance: string, silentSecs: number, withinSecs: number) =>
      `The server running the bot (${instance}) stopped answering ${String(silentSecs)} s ago: another server takes the bot over within ${String(withinSecs)} s.`,
    /** Issue 33: why a running bot opens no position, with the page that explains it. */
    notTrading: (detail: string) => `Not trading: ${detail}.`,
    stopLeavesOpen: (count: number, venue: string) =>
      `Stop Bot closes nothing: ${count === 1 ? '1 position stays' : `${String(count)} positions stay`} open on ${venue}, each with its stop loss and take profit on the exchange.`,
    // None of them named like a sidebar link ("Settings", "Statistics"…), which a name matched
    // as a part would find twice.
    notTradingLinks: {
      worker_stopped: 'Read the log',
      out_of_sync: 'Read why in the log',
      signals_inactive: 'Open the signals page',
      circuit_breaker: 'Read the log',
      forbidden_window: 'Change the forbidden days and hours',
      limit_reached: 'Change the limits',
    },
    realDialog: {
      title: 'Start trading with real money?',
      description:
        'Your active API key is a Bybit Real key: the bot will open positions with real money on your Bybit mainnet account. Losses are real and cannot be undone.',
      inputLabel: 'Type REAL to confirm',
      confirm: 'Start real trading',
      cancel: 'Cancel',
    },
  },

  // Not worded by the spec: the Open Positions card (English, like the rest of the dashboard).
  openPositions: {
    title: 'Open Positions',
    description: 'What the bot holds now. Mark price and PnL follow the live feed.',
    loading: 'Loading...',
    loadFailed: 'Failed to load open positions',
    retry: 'Retry',
    empty: 'No open positions',
    columns: {
      symbol: 'Symbol',
      side: 'Side',
      size: 'Size',
      entry: 'Entry',
      mark: 'Mark',
      pnl: 'PnL',
      funding: 'Funding',
      stop: 'Stop',
      // Issue 33: what the live feed carries about each position.
      liquidation: 'Liq. price',
      takeProfit: 'Next TP',
      margin: 'Margin (USDT)',
      openFor: 'Open for',
      actions: 'Actions',
    },
    openedAt: (time: string, zone: string) => `Opened ${time} (${zone})`,
    sides: { long: 'Long', short: 'Short' },
    /** Shown for a mark price or PnL the live feed has not sent yet, and a missing stop. */
    none: '—',
    close: 'Close',
    closeLabel: (symbol: string) => `Close ${symbol}`,
    closeTitle: (symbol: string) => `Close the ${symbol} position?`,
    closeDescription: 'It is closed at the market price now. This cannot be undone.',
    closeConfirm: 'Close position',
    closeAll: 'Close all',
    closeAllTitle: (venue: string) => `Close all open positions on ${venue}?`,
    closeAllDescription: (count: number) =>
      `${count === 1 ? 'The open position is' : `All ${count} open positions are`} closed at the market price now. This cannot be undone.`,
    /** Issue 33: a running bot opens positions again on its next signal. */
    closeAllBotRuns:
      'The bot keeps running and opens new positions on its next signals unless you stop it too.',
    closeAllAndStop: 'Close all and stop the bot',
    stopFailedKeptOpen: 'The bot could not be stopped, so no position was closed',
    cancel: 'Cancel',
    /** Toasts. */
    closedToast: 'Position closed',
    closeFailed: 'Failed to close the position',
    closedAllToast: (count: number) => (count === 1 ? 'Closed 1 position' : `Closed ${count} positions`),
    closeAllFailed: 'Failed to close the positions',
  },
} as const
