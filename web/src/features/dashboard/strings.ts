/** UI strings of the dashboard, verbatim from the spec (sections 2 and 8). */
export const dashboardStrings = {
  title: 'Dashboard',
  subtitle: 'Welcome back to your trading dashboard',
  /** The live connection badge on the heading. */
  connected: 'Connected',
  disconnected: 'Disconnected',

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
  },
} as const
