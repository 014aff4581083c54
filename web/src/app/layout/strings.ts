/** UI strings of the app frame (spec section 2, Sidebar). */
export const layoutStrings = {
  productName: 'Signal Desk',
  nav: {
    botStatus: 'Bot Status',
    statistics: 'Statistics',
    apiKeys: 'API Keys',
    settings: 'Settings',
    // Not in the spec's sidebar (issues 31 and 33); listed after its links, in a navigation of
    // their own.
    signals: 'Signals',
    // Not "Live Statistics": a link named with "Statistics" in it would be a second match for
    // the spec's Statistics link wherever a name is matched as a part (as Playwright does).
    liveStatistics: 'Live figures',
    trades: 'Trades',
    logs: 'Logs',
    backtest: 'Backtest',
    auditLog: 'Audit log',
  },
  toggleTheme: 'Toggle Theme',
  logout: 'Logout',
  openMenu: 'Open menu',
  // Not worded by the spec.
  navigationLabel: 'Main navigation',
  moreNavigationLabel: 'More pages',
  navigationTitle: 'Navigation',
  collapseSidebar: 'Collapse sidebar',
  expandSidebar: 'Expand sidebar',
  themeNames: { dark: 'Dark', light: 'Light', system: 'System' },
  signedInAs: 'Signed in as',
  // The live connection lost (issue 33): one banner instead of repeating toasts.
  connectionLost: {
    title: (time: string, zone: string) => `Connection lost since ${time} (${zone}).`,
    detail: 'What this page shows may be stale until it is back; the app tries again every 30 s.',
    retry: 'Retry now',
  },
  // Degraded mode (docs/reliability.md).
  degraded: {
    title: 'Database unreachable',
    detail: "Showing the last known data; the bot's books will catch up when it returns.",
  },
} as const
