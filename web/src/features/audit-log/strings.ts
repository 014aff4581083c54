/**
 * UI strings of the Audit log page (issue 31 point 2). Not worded by the spec; English, like the
 * Security section. The action names are the server's stable ones (docs/security.md).
 */
export const auditLogStrings = {
  title: 'Audit log',
  description:
    'Every settings change, key, bot and position action, login and session change on your account, newest first. Rows are kept 365 days and never changed.',
  loading: 'Loading...',
  loadFailed: 'Failed to load the audit log',
  retry: 'Retry',
  empty: 'Nothing recorded yet.',
  loadMore: 'Load more',
  loadMoreFailed: 'Failed to load more rows',
  tableLabel: 'Audit log',
  scrollLabel: 'Audit log rows (scrolls sideways)',
  columns: {
    time: (zone: string) => `Time (${zone})`,
    action: 'Action',
    details: 'Details',
    address: 'Address',
    userAgent: 'User agent',
  },
  none: '—',
  actions: {
    settings_changed: 'Settings changed',
    api_key_added: 'API key added',
    api_key_activated: 'API key activated',
    api_key_deactivated: 'API key deactivated',
    api_key_deleted: 'API key deleted',
    bot_started: 'Bot started',
    bot_stopped: 'Bot stopped',
    signals_started: 'Signals started',
    signals_stopped: 'Signals stopped',
    position_closed: 'Position closed',
    positions_closed_all: 'All positions closed',
    login: 'Login',
    login_failed: 'Failed login',
    logout: 'Logout',
    two_factor_enabled: 'Two-factor login turned on',
    two_factor_disabled: 'Two-factor login turned off',
    webhook_url_created: 'Webhook URL created',
    webhook_url_rotated: 'Webhook URL rotated',
    session_revoked: 'Session revoked',
    sessions_revoked_others: 'Other sessions revoked',
    password_changed: 'Password changed',
  } as Record<string, string>,
  details: {
    key: (id: number, exchange: string, demo: boolean) =>
      `Key #${id} · ${exchange === 'paper' ? 'Paper' : 'Bybit'}${exchange === 'paper' ? '' : demo ? ' demo' : ' mainnet'}`,
    trade: (id: number, symbol: string) => `${symbol} · trade #${id}`,
    positions: (n: number) => `${n} position${n === 1 ? '' : 's'}`,
    sessions: (n: number) => `${n} session${n === 1 ? '' : 's'}`,
    session: (id: number) => `Session #${id}`,
    loginVia: { browser: 'In the browser', token: 'API token' } as Record<string, string>,
    failedReason: {
      password: 'Wrong password',
      otp: 'Wrong two-factor code',
    } as Record<string, string>,
    user: (name: string) => `user "${name}"`,
    passwordChanged: (n: number) => `${n} other session${n === 1 ? '' : 's'} ended`,
  },
  // The link in the Security section of /settings.
  securityLink: 'View the audit log',
  securityLinkHelp: 'Logins, key, bot and settings changes on your account.',
} as const
